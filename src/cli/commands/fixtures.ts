import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import { ReviewSettings } from "../../orchestration/review/settings.js";

/** The shipped fixtures (`fixtures/<name>/{fixture.json,script.yaml,project}`), beside `dist/` in the package. */
const FIXTURES = fileURLToPath(new URL("../../../fixtures/", import.meta.url));

const Fixture = v.strictObject({
  requirement: v.string(),
  verify: v.string(),
  needs: v.array(v.string()),
  /** The project is copied as a git repository with one commit on main (a team run needs one for its worktrees). */
  git: v.optional(v.boolean(), false),
  /** The requirement is planned as several tasks run by a team: the event log and the repository are checked for it. */
  team: v.optional(v.boolean(), false),
  /**
   * How many times the requirement runs in the one project, each a session of its own on a fresh copy of the
   * fixture's files (copied over the checkout, committed when `git`): what one run leaves in `.air/local/`
   * (the debug records) is there for the next.
   */
  runs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1),
  /** The review gate's settings for the run (default: the user's config, else `significant`). */
  review: v.optional(ReviewSettings),
});
export type Fixture = v.InferOutput<typeof Fixture>;

/** A fixture as shipped: its folder (the `project` to copy, the `script.yaml` of the scripted model) and its settings. */
export type ShippedFixture = { readonly name: string; readonly folder: string; readonly script: string; readonly fixture: Fixture };

export function fixture_names(): string[] {
  return fs.readdirSync(FIXTURES).filter((name) => fs.existsSync(path.join(FIXTURES, name, "fixture.json")));
}

export function read_fixture(name: string): ShippedFixture {
  const folder = path.join(FIXTURES, name);
  const fixture = v.parse(Fixture, JSON.parse(fs.readFileSync(path.join(folder, "fixture.json"), "utf8")));
  return { name, folder, script: path.join(folder, "script.yaml"), fixture };
}

export function shell(command: string, cwd: string) {
  return spawnSync("bash", ["--noprofile", "--norc", "-c", command], { cwd, encoding: "utf8" });
}

/** The tools the fixture needs that this machine's PATH lacks. */
export function missing_tools(fixture: Fixture): string[] {
  return fixture.needs.filter((tool) => spawnSync("bash", ["--noprofile", "--norc", "-c", 'command -v "$1"', "bash", tool], { cwd: os.tmpdir() }).status !== 0);
}

export function missing_tools_failure(name: string, missing: readonly string[]) {
  return air_failure({
    kind: "dependency_error",
    message: `fixture ${name} needs ${missing.join(", ")}`,
    retryability: "not_retryable",
    user_action: `Install ${missing.join(", ")} (Debian: apt-get install cmake g++).`,
  });
}

/** A fresh copy of the fixture's project at `<work>/project`. */
export function copy_fixture_project(shipped: ShippedFixture, work: string): string {
  const root = path.join(work, "project");
  fs.cpSync(path.join(shipped.folder, "project"), root, { recursive: true });
  return root;
}

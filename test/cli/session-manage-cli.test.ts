/**
 * `air session archive|delete|purge` through the built CLI: the words a person sees, the exit codes, and a
 * deleted session that `air resume` and `air -r` refuse to reopen.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionId } from "../../src/contracts/ids.js";
import { session_dir } from "../../src/project/layout.js";
import { init_project, type Project } from "../../src/project/project-store.js";
import { open_session } from "../../src/project/session-manager.js";
import { air, air_env, require_build, temp_dir } from "../e2e/helpers.js";
import { set_air_home } from "../fixtures/session.js";

let work: { dir: string; cleanup: () => void };
let project: Project;
let env: NodeJS.ProcessEnv;
let restore_home: () => void;

beforeAll(() => {
  require_build();
  work = temp_dir("air-session-manage-cli-");
  const home = path.join(work.dir, "air-home");
  restore_home = set_air_home(home);
  project = init_project(path.join(work.dir, "project"), { name: "fixture" }).project;
  // A key and an address nothing listens on: these runs must stop before any model is asked.
  env = air_env(home, { ANTHROPIC_API_KEY: "sk-never-used", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" });
});
afterAll(() => {
  restore_home();
  work.cleanup();
});

function closed_session(title: string): SessionId {
  const session = open_session(project, { title });
  session.close();
  return session.id;
}

const run = (args: readonly string[]) => air(args, { cwd: project.layout.root, env });

describe("air session archive / list --archived", () => {
  it("archives, and lists the session only when asked", async () => {
    const id = closed_session("put away from the CLI");
    const archived = await run(["session", "archive", id, "--reason", "finished"]);
    expect(archived.result, archived.transcript).toEqual({ code: 0, signal: null });
    expect((await run(["session", "list"])).stdout).not.toContain(id);
    expect((await run(["session", "list", "--archived"])).stdout).toMatch(new RegExp(`${id}.*archived.*put away from the CLI`));
  });

  it("takes one id only", async () => {
    const twice = await run(["session", "archive", "ses_A", "ses_B"]);
    expect(twice.result.code).toBe(2);
    expect(twice.stderr).toContain('air session archive takes one ID, not "ses_A ses_B"');
  });
});

describe("air session delete / purge without a terminal", () => {
  it("refuses without --yes, saying how to go ahead, and purges with it", async () => {
    const id = closed_session("to be purged from the CLI");
    const asked = await run(["session", "purge", id]);
    expect(asked.result.code).toBe(1);
    expect(asked.stderr).toContain("there is no terminal to ask");
    expect(asked.stderr).toContain(`air session purge ${id} --yes`);
    expect(fs.existsSync(session_dir(project.layout, id))).toBe(true);

    const purged = await run(["session", "purge", id, "--yes"]);
    expect(purged.result, purged.transcript).toEqual({ code: 0, signal: null });
    expect(fs.existsSync(session_dir(project.layout, id))).toBe(false);
  });
});

describe("a deleted session", () => {
  it("is refused by air resume --session, air -r and air compact --session, with the way to read its log", async () => {
    const id = closed_session("deleted from the CLI");
    const deleted = await run(["session", "delete", id, "-y"]);
    expect(deleted.result, deleted.transcript).toEqual({ code: 0, signal: null });

    for (const args of [
      ["resume", "--session", id],
      ["-r", id, "-p", "go on"],
      ["compact", "--session", id],
    ]) {
      const refused = await run(args);
      expect(refused.result.code, refused.transcript).toBe(1);
      expect(refused.stderr).toContain(`session ${id} was deleted at`);
      expect(refused.stderr).toContain(`air history --session ${id}`);
    }
    const history = await run(["history", "--session", id, "--view", "events"]);
    expect(history.result, history.transcript).toEqual({ code: 0, signal: null });
    expect(history.stdout).toContain("session.deleted");
  });
});

/**
 * `air demo` end to end in a real terminal: the built CLI in a tmux pane of fixed size, with no provider key,
 * model or base URL in its environment. The requirement waits in the prompt line, Enter sends it, the
 * permission prompt of the edit is answered by key, the final summary appears, Ctrl+C twice leaves. The
 * temp copy goes away (or stays with --keep), the folder it was started in and AIR_HOME are not touched.
 * Only skipped where tmux, or cmake and a C++ compiler, are not installed.
 */
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { leave_with_ctrl_c_twice, screen_shows, Tmux, tmux_available } from "../fixtures/tmux.js";
import { AIR_BIN, air, air_env, fixture_requirement, require_build, temp_dir, wait_until } from "./helpers.js";

const cpp_tools = ["cmake", "ctest", "c++"].every((tool) => spawnSync("bash", ["-c", `command -v ${tool}`]).status === 0);
/** A network namespace of our own with only loopback up (unprivileged user namespaces; some CI kernels forbid them). */
const NO_NETWORK = ["unshare", "-rn", "sh", "-c", 'ip link set lo up && exec "$0" "$@"'];
const netns_available = spawnSync(NO_NETWORK[0]!, [...NO_NETWORK.slice(1), "true"]).status === 0;

/** The requirement of the cpp-fix fixture as the prompt line shows it. */
const REQUIREMENT = fixture_requirement("cpp-fix");
const SUMMARY = /Task "Fix sum_to so the calc tests pass" is completed/;

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
});

/** Every file and folder under `dir`: relative path → sha256 of the bytes ("dir" for a folder). */
function snapshot(dir: string): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const relative of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const full = path.join(dir, relative);
    entries[relative] = fs.statSync(full).isDirectory() ? "dir" : crypto.createHash("sha256").update(fs.readFileSync(full)).digest("hex");
  }
  return entries;
}

/**
 * A folder to start the demo in (with a file of the user's), an AIR_HOME and a TMPDIR of the test's own,
 * and the environment of a newcomer: no key or model of any provider, no CI.
 */
function setup() {
  require_build();
  const work = temp_dir("air-e2e-demo-");
  cleanups.push(work.cleanup);
  const dirs = { cwd: path.join(work.dir, "cwd"), home: path.join(work.dir, "air-home"), tmp: path.join(work.dir, "tmp") };
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dirs.cwd, "notes.txt"), "the user's own file\n");
  const env = air_env(dirs.home, { TMPDIR: dirs.tmp, TERM: "xterm-256color" });
  for (const name of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENROUTER_API_KEY", "AIR_PROVIDER", "CI", "TMUX"]) delete env[name];
  const tmux = new Tmux(env);
  cleanups.push(() => tmux.kill());
  return { ...dirs, env, tmux };
}

/** Starts `air demo` in a pane and walks it as a newcomer does: Enter, `y` at the prompt, Ctrl+C twice at the end. */
async function walk_the_demo(tmux: Tmux, cwd: string, command: readonly string[]): Promise<{ asked: string; done: string; left: string }> {
  tmux.start("demo", cwd, command.map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(" "));
  await screen_shows(tmux, "demo", "the requirement typed into the prompt line", new RegExp(`› ${REQUIREMENT.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  tmux.keys("demo", "Enter");
  const asked = await screen_shows(tmux, "demo", "the permission prompt of the edit", /fs\.edit[\s\S]*src\/calc\.cpp[\s\S]*Allow once/, 60_000);
  tmux.keys("demo", "y");
  const done = await screen_shows(tmux, "demo", "the final summary", SUMMARY, 120_000);
  await leave_with_ctrl_c_twice(tmux, "demo");
  const left = await screen_shows(tmux, "demo", "air leaving", /\[air exited \d+\]/);
  return { asked, done, left };
}

describe.skipIf(!tmux_available || !cpp_tools)("air demo in a terminal (tmux)", () => {
  it("runs the cpp-fix fixture with no API key against a loopback model, asks before the edit, reaches the summary and removes its copy", async () => {
    const { cwd, home, tmp, tmux } = setup();
    const before = snapshot(cwd);

    const { asked, done, left } = await walk_the_demo(tmux, cwd, [process.execPath, AIR_BIN, "demo"]);

    expect(asked).toMatch(/scripted model\s+at http:\/\/127\.0\.0\.1:\d+: no API key/);
    expect(done).toMatch(/Verification: 1 of 1 passed/);
    expect(done).toMatch(/scripted-model/);
    expect(left).toContain("[air exited 0]");
    const removed = /Removed the demo's copy at (\S+)/.exec(left)?.[1];
    expect(removed?.startsWith(path.join(tmp, "air-demo-"))).toBe(true);
    expect(fs.readdirSync(tmp)).toEqual([]);
    expect(snapshot(cwd)).toEqual(before);
    expect(fs.existsSync(home) ? fs.readdirSync(home) : []).toEqual([]);
  }, 240_000);

  it("removes its copy when the terminal goes away mid-run", async () => {
    const { cwd, tmp, tmux } = setup();
    tmux.start("demo", cwd, `'${process.execPath}' '${AIR_BIN}' demo`);
    await screen_shows(tmux, "demo", "the TUI's first frame", /› ctest fails/);
    expect(fs.readdirSync(tmp)).toHaveLength(1);

    tmux.run("kill-session", "-t", "demo");

    await wait_until("the demo's copy to be removed", () => fs.readdirSync(tmp).length === 0, 20_000, 100);
  }, 120_000);

  it.skipIf(!netns_available)(
    "reaches the summary in a network namespace with only loopback, and --keep keeps the fixed project",
    async () => {
      const { cwd, home, tmp, tmux } = setup();

      const { left } = await walk_the_demo(tmux, cwd, [...NO_NETWORK, process.execPath, AIR_BIN, "demo", "--keep"]);

      expect(left).toContain("[air exited 0]");
      const [kept] = fs.readdirSync(tmp);
      expect(kept).toMatch(/^air-demo-/);
      const project = path.join(tmp, kept!, "project");
      expect(left).toContain(`The demo's project is kept at ${project}`);
      expect(fs.readFileSync(path.join(project, "src", "calc.cpp"), "utf8")).toContain("for (long i = 1; i <= n; ++i)");
      expect(fs.readdirSync(cwd)).toEqual(["notes.txt"]);
      expect(fs.existsSync(home) ? fs.readdirSync(home) : []).toEqual([]);
    },
    240_000,
  );
});

describe("air demo without a terminal", () => {
  it("refuses with a user error that names the headless run of the same fixture, and copies nothing", async () => {
    const { cwd, tmp, env } = setup();

    const run = await air(["demo"], { cwd, env });

    expect(run.result.code, run.transcript).toBe(1);
    expect(run.stderr).toContain("air demo opens the TUI, and there is no terminal");
    expect(run.stderr).toContain("air e2e cpp-fix-fixture");
    expect(fs.readdirSync(tmp)).toEqual([]);
  });
});

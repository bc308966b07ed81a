/**
 * `air run`'s start in a real terminal (tmux): the first frame is painted before ink and the runtime load,
 * and keys typed while they load are not lost — the text reaches the App's prompt line, and a Ctrl+C is the
 * App's first press. Only skipped where tmux is not installed.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { project_layout, session_lock_path } from "../../src/project/layout.js";
import { AIR_BIN, air_env, copy_fixture_project, pid_alive, require_build, session_ids, temp_dir, wait_until } from "./helpers.js";
import { screen_shows, taking_keys, Tmux, tmux_available } from "../fixtures/tmux.js";

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
});

/** `air run` in a pane, on a copy of the worker fixture; no request is made, so the server is never reached. */
function start_air(mode = "default"): { tmux: Tmux; project: string } {
  require_build();
  const work = temp_dir("air-e2e-tui-startup-");
  cleanups.push(work.cleanup);
  const project = copy_fixture_project("worker", work.dir);
  const env = air_env(path.join(work.dir, "air-home"), {
    ANTHROPIC_API_KEY: "sk-e2e-unused",
    ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    TERM: "xterm-256color",
  });
  delete env.CI;
  delete env.TMUX;
  const tmux = new Tmux(env);
  cleanups.push(() => tmux.kill());
  tmux.start("run", project, `${JSON.stringify(process.execPath)} ${JSON.stringify(AIR_BIN)} run --permission-mode ${mode}`);
  return { tmux, project };
}

/** ink's frame, not the pre-frame: the HUD names the model and the session. */
const INK_HUD = /claude-[\w.-]+ · ctx[\s\S]*session[\s\S]*ses_/;

describe.skipIf(!tmux_available)("air run's start in a terminal (tmux)", () => {
  it("keeps the keys typed as soon as the terminal is raw and shows them on the App's prompt line, under the run's mode", async () => {
    const { tmux } = start_air("accept-edits");
    await taking_keys(tmux, "run");
    tmux.type("run", "typed during start-up");
    const screen = await screen_shows(tmux, "run", "the typed text on ink's prompt line", new RegExp(`${INK_HUD.source}[\\s\\S]*› typed during start-up`));
    // One frame on screen: the pre-frame gave its place to ink's, nothing of it left behind; both name the flag's mode.
    expect(screen.match(/mode accept-edits/g)).toHaveLength(1);
    expect(screen).not.toContain("mode default");
    expect(screen).not.toContain("starting ·");
  }, 60_000);

  it("takes a Ctrl+C pressed before ink is up as the App's first press: the exit hint, then a second one leaves", async () => {
    const { tmux } = start_air();
    await taking_keys(tmux, "run");
    tmux.keys("run", "C-c");
    await screen_shows(tmux, "run", "the exit hint on ink's frame", new RegExp(`${INK_HUD.source}[\\s\\S]*Press Ctrl\\+C again to exit`));
    tmux.keys("run", "C-c");
    await screen_shows(tmux, "run", "air leaving", /\[air exited 0\]/);
  }, 60_000);

  it("closes its session as /exit would when its terminal goes away: the lock is released and the process ends", async () => {
    const { tmux, project } = start_air();
    await screen_shows(tmux, "run", "ink's frame", INK_HUD);
    const [session_id] = session_ids(project);
    const lock = session_lock_path(project_layout(project), session_id!);
    const { pid } = JSON.parse(fs.readFileSync(lock, "utf8")) as { pid: number };
    // The pane's terminal closes under air: its next write fails with EIO and a SIGHUP arrives.
    tmux.run("kill-server");
    await wait_until("air to end", () => (pid_alive(pid) ? undefined : true), 30_000, 50);
    expect(fs.existsSync(lock)).toBe(false);
  }, 60_000);
});

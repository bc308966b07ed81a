/**
 * `air resume` in a terminal runs the recovery checks (seeds 000 §16.3) on the session it opens and says
 * what they found in the conversation: the built CLI in a tmux pane against the scripted model server, on
 * a session left with a stray file in its artifacts folder. Only skipped where tmux is not installed.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { session_artifacts_dir } from "../../src/project/layout.js";
import { init_project } from "../../src/project/project-store.js";
import { open_session } from "../../src/project/session-manager.js";
import { leave_with_ctrl_c_twice, screen_shows, tmux_available } from "../fixtures/tmux.js";
import { set_air_home } from "../fixtures/session.js";
import { tui_project } from "../fixtures/tui-project.js";

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

describe.skipIf(!tmux_available)("air resume in a terminal (tmux), recovery checks", () => {
  it("quarantines a stray artifact file and says so in the conversation", async () => {
    const { project, tmux, air, env } = await tui_project({ turns: {} }, "sk-e2e-tui-recovery", cleanups, "tui-recovery");
    cleanups.push(set_air_home(String(env.AIR_HOME)));
    const session = open_session(init_project(project).project, { title: "an earlier run" });
    const artifacts = session_artifacts_dir(session.project.layout, session.id);
    fs.writeFileSync(path.join(artifacts, "stray.txt"), "not air's\n");
    session.close();

    tmux.start("resume", project, `${air} resume --session ${session.id} --permission-mode default`);
    await screen_shows(tmux, "resume", "the recovery line", /Recovery: 1 artifact file\(s\) quarantined/);
    expect(fs.existsSync(path.join(artifacts, "quarantine", "stray.txt"))).toBe(true);
    await leave_with_ctrl_c_twice(tmux, "resume");
    await screen_shows(tmux, "resume", "air leaving", /\[air exited 0\]/);
  }, 120_000);
});

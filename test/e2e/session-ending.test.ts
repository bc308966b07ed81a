/**
 * Ending sessions on a real terminal (tmux): `air session purge` asks first and does nothing on a no, and
 * the `air -r` picker offers active sessions only.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionId } from "../../src/contracts/ids.js";
import { session_dir } from "../../src/project/layout.js";
import { init_project, type Project } from "../../src/project/project-store.js";
import { archive_session } from "../../src/project/session-ending.js";
import { open_session } from "../../src/project/session-manager.js";
import { set_air_home } from "../fixtures/session.js";
import { screen_shows, tmux_available } from "../fixtures/tmux.js";
import { tui_project } from "../fixtures/tui-project.js";

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** The worker fixture on a tmux server, with sessions made in this process under air's own AIR_HOME. */
async function stage(label: string) {
  const staged = await tui_project({ turns: { main: [] } }, "sk-e2e-session-ending", cleanups, label);
  cleanups.push(set_air_home(String(staged.env.AIR_HOME)));
  const project: Project = init_project(staged.project).project;
  const session_titled = (title: string): SessionId => {
    const session = open_session(project, { title });
    session.close();
    return session.id;
  };
  return { ...staged, layout: project.layout, session_titled, project_of: project };
}

describe.skipIf(!tmux_available)("air session purge on a terminal (tmux)", () => {
  it("asks, removes nothing on a no, and purges on a yes", async () => {
    const { project, tmux, air, layout, session_titled } = await stage("purge-ask");
    const id = session_titled("about to be purged");

    tmux.start("no", project, `${air} session purge ${id}`);
    await screen_shows(tmux, "no", "the question", new RegExp(`Purge session ${id} "about to be purged"`));
    tmux.keys("no", "Enter");
    await screen_shows(tmux, "no", "air's exit", /Nothing purged\.[\s\S]*\[air exited 1\]/);
    expect(fs.existsSync(session_dir(layout, id))).toBe(true);

    tmux.start("yes", project, `${air} session purge ${id}`);
    await screen_shows(tmux, "yes", "the question", /This cannot be undone/);
    tmux.keys("yes", "Left");
    tmux.keys("yes", "Enter");
    await screen_shows(tmux, "yes", "air's exit", new RegExp(`Purged ${id}[\\s\\S]*\\[air exited 0\\]`));
    expect(fs.existsSync(session_dir(layout, id))).toBe(false);
  }, 120_000);
});

describe.skipIf(!tmux_available)("the air -r picker (tmux)", () => {
  it("offers the active sessions, not an archived one", async () => {
    const { project, tmux, air, session_titled, project_of } = await stage("picker-archived");
    session_titled("still active");
    archive_session(project_of, session_titled("archived away"));

    tmux.start("pick", project, `${air} -r`);
    const picker = await screen_shows(tmux, "pick", "the picker", /Resume which session\?[\s\S]*still active/);
    expect(picker).not.toContain("archived away");
    tmux.keys("pick", "Escape");
    await screen_shows(tmux, "pick", "air's exit", /\[air exited 130\]/);
    expect(fs.readdirSync(path.join(project, ".air", "local", "sessions")).filter((name) => name.startsWith("ses_"))).toHaveLength(2);
  }, 120_000);
});

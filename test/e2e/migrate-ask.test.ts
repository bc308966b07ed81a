/**
 * D-055 on a real terminal (tmux): `air -r ID -p … --permission-mode bypass` on a session an older air wrote
 * shows the plan and asks — bypass does not answer it. No leaves the database as it was; yes backs it up,
 * migrates it, and the run goes on against the scripted model.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { target_schema_version } from "../../src/db/migrate.js";
import { session_db_path } from "../../src/project/layout.js";
import { init_project } from "../../src/project/project-store.js";
import type { ScriptInput } from "../../src/providers/scripted/script.js";
import { older_session, previous_version, state_of } from "../fixtures/older-schema.js";
import { screen_shows, tmux_available } from "../fixtures/tmux.js";
import { type Cleanups, tui_project } from "../fixtures/tui-project.js";

const KEY = "sk-e2e-migrate";
const SCRIPT: ScriptInput = {
  turns: { main: [{ reply: { content: [{ type: "tool_use", name: "classify_request", input: { intent: "chat", answer: "Carried on." } }] } }] },
};

let cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

describe.skipIf(!tmux_available)("an older session database in a terminal (tmux), in bypass mode", () => {
  it("shows the plan and asks; no changes nothing, yes backs up, migrates and runs", async () => {
    const { project: root, tmux, air } = await tui_project(SCRIPT, KEY, cleanups, "migrate");
    const { project } = init_project(root);
    const session_id = older_session(project, "from an older air");
    const file = session_db_path(project.layout, session_id);
    const before = state_of(file);
    const command = `${air} -r ${session_id} -p "Go on." --permission-mode bypass`;

    tmux.start("no", root, command);
    const asked = await screen_shows(tmux, "no", "the plan and the question", /Back up and migrate 1 database\(s\)\?/);
    expect(asked).toContain(
      `.air/local/sessions/${session_id}/session.db (session): schema ${previous_version("session")} → ${target_schema_version("session")}`,
    );
    tmux.keys("no", "Enter");
    await screen_shows(tmux, "no", "the refusal", /the migration was declined; nothing was changed[\s\S]*\[air exited 1\]/);
    expect(state_of(file)).toEqual(before);

    tmux.start("yes", root, command);
    await screen_shows(tmux, "yes", "the question", /Back up and migrate 1 database\(s\)\?/);
    tmux.keys("yes", "Left");
    tmux.keys("yes", "Enter");
    const done = await screen_shows(tmux, "yes", "the run after the migration", /\[air exited \d+\]/, 60_000);
    expect(done).toContain(`Migrated .air/local/sessions/${session_id}/session.db`);
    expect(done).toContain("Carried on.");
    expect(done).toContain("[air exited 0]");
    expect(state_of(file)).toMatchObject({ version: String(target_schema_version("session")), rows: before.rows });
    const [stamp] = fs.readdirSync(path.join(project.layout.backups, "migrations"));
    expect(state_of(path.join(project.layout.backups, "migrations", stamp!, "local", "sessions", session_id, "session.db"))).toEqual(before);
  }, 120_000);
});

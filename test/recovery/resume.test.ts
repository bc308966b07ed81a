/**
 * `air resume` runs the recovery checks (seeds 000 §16.3) on the session it resumes: the built CLI against
 * the scripted model server, on a session left with a stray artifact file and a row deleted behind its
 * event log. It says one line of what it found, puts the summary into air.log, and is silent when there
 * was nothing to find.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { new_id, type SessionId } from "../../src/contracts/ids.js";
import { referential_check } from "../../src/event-store/referential-check.js";
import { log_paths } from "../../src/logs/log.js";
import { session_artifacts_dir } from "../../src/project/layout.js";
import { init_project } from "../../src/project/project-store.js";
import { open_session } from "../../src/project/session-manager.js";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import { air, air_env, open_readonly, require_build, session_files, temp_dir } from "../e2e/helpers.js";
import { ingest_steps, step } from "../fixtures/events.js";
import { set_air_home } from "../fixtures/session.js";

const KEY = "sk-recovery-resume";

let work: { dir: string; cleanup: () => void };
let server: ScriptedServer;
let air_home: string;
let restore_air_home: () => void;
beforeEach(async () => {
  work = temp_dir("air-recovery-resume-");
  air_home = path.join(work.dir, "air-home");
  // The project is made in this process too: its air home is the test's, as the child's is.
  restore_air_home = set_air_home(air_home);
  server = await start_scripted_server({ script: { turns: {} }, api_key: KEY });
});
afterEach(async () => {
  await server.close();
  restore_air_home();
  work.cleanup();
});

/** A project with one ended session that ran a command; `damage` runs on it before it closes. */
function ended_session(damage: (session: ReturnType<typeof open_session>, tool_run_id: string) => void): { root: string; session_id: SessionId } {
  const { project } = init_project(path.join(work.dir, "project"), { name: "recovery" });
  const session = open_session(project, { title: "an earlier run" });
  try {
    const tool_run_id = new_id("tool_run");
    ingest_steps(
      session.ingestor,
      [
        step("tool.started", { tool_run_id, tool_name: "bash", tool_version: 1, input: {} }),
        step("command.started", { command_run_id: new_id("command_run"), command: "ls", cwd: "/", tool_run_id }),
      ],
      session.origin,
    );
    damage(session, tool_run_id);
    return { root: project.layout.root, session_id: session.id };
  } finally {
    session.close();
  }
}

async function resume(root: string, session_id: SessionId) {
  const run = await air(["resume", "--session", session_id, "--prompts", "policy"], {
    cwd: root,
    env: air_env(air_home, { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url }),
  });
  expect(run.result, run.transcript).toEqual({ code: 0, signal: null });
  return run;
}

describe("air resume, recovery checks", () => {
  it("quarantines a stray artifact file and restores a deleted row, says so in a line and in air.log", async () => {
    require_build();
    const { root, session_id } = ended_session((session, tool_run_id) => {
      session.connection.client.exec(`DELETE FROM tool_runs WHERE id = '${tool_run_id}'`);
      fs.writeFileSync(path.join(session_artifacts_dir(session.project.layout, session.id), "stray.txt"), "not air's\n");
    });

    const run = await resume(root, session_id);

    const line = "Recovery: 1 artifact file(s) quarantined, 1 dangling reference(s) repaired\n";
    expect(run.stdout).toContain(line);
    const { db, artifacts } = session_files(root, session_id);
    expect(fs.existsSync(path.join(artifacts, "quarantine", "stray.txt"))).toBe(true);
    const after = open_readonly(db);
    try {
      expect(referential_check(after)).toEqual({ ok: true, orphans: [] });
    } finally {
      after.close();
    }
    const log = fs.readFileSync(log_paths(air_home).air_log, "utf8");
    expect(log).toMatch(
      new RegExp(`INFO \\[recovery\\] air resume ${session_id}: 1 artifact file\\(s\\) quarantined, 1 dangling reference\\(s\\) repaired\\n`),
    );
  });

  it("says nothing of the checks, in its output or in air.log, when they found nothing", async () => {
    require_build();
    const { root, session_id } = ended_session(() => undefined);

    const run = await resume(root, session_id);

    expect(run.stdout).toContain(`Resumed ${session_id}`);
    expect(run.stdout).not.toContain("Recovery");
    const air_log = log_paths(air_home).air_log;
    expect(fs.existsSync(air_log) ? fs.readFileSync(air_log, "utf8") : "").not.toContain(`[recovery] air resume ${session_id}`);
  });
});

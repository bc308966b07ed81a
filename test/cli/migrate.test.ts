/**
 * Migrations with a plan through the built CLI, without a terminal (D-055): a command that meets an older
 * database shows the plan and refuses with `air migrate --yes` — in `bypass` mode too — leaving it as it was;
 * `air migrate --yes` backs up, then migrates; a newer database is refused with both versions named. The
 * question itself is driven through `confirm_and_migrate`'s asker.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { confirm_and_migrate } from "../../src/cli/migration-gate.js";
import { is_air_failure } from "../../src/contracts/errors.js";
import type { SessionId } from "../../src/contracts/ids.js";
import { Connection } from "../../src/db/connection.js";
import { target_schema_version } from "../../src/db/migrate.js";
import { session_db_path } from "../../src/project/layout.js";
import { plan_project_migrations } from "../../src/project/migrations.js";
import { init_project, type Project } from "../../src/project/project-store.js";
import { type CliResult, run_air, temp_workspace } from "../fixtures/cli.js";
import { older_session, previous_version, state_of } from "../fixtures/older-schema.js";
import { air_env, require_build } from "../e2e/helpers.js";

type Workspace = ReturnType<typeof temp_workspace>;
let work: Workspace | undefined;
afterEach(() => {
  work?.cleanup();
  work = undefined;
});
beforeAll(() => require_build());

const OLD = previous_version("session");
const NEW = target_schema_version("session");

/** A project whose one session an older air wrote. */
function older_project(): { project: Project; session_id: SessionId; file: string; env: NodeJS.ProcessEnv } {
  work = temp_workspace("air-migrate-");
  const { project } = init_project(path.join(work.root, "project"), { name: "migrating" });
  const session_id = older_session(project, "written by an older air");
  // A provider that is never reached: the open refuses before a request.
  const env = air_env(path.join(work.root, "air-home"), { ANTHROPIC_API_KEY: "sk-never-used", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" });
  return { project, session_id, file: session_db_path(project.layout, session_id), env };
}

function air(project: Project, env: NodeJS.ProcessEnv, args: string[]): CliResult {
  return run_air(args, { cwd: project.layout.root, env });
}

const backups = (project: Project) => path.join(project.layout.backups, "migrations");

describe("a command meeting an older session database, with no terminal", () => {
  it("shows the plan and refuses with `air migrate --yes`, leaving the database as it was", () => {
    const { project, session_id, file, env } = older_project();
    const before = state_of(file);
    const result = air(project, env, ["tasks", "--session", session_id]);
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toContain(`.air/local/sessions/${session_id}/session.db (session): schema ${OLD} → ${NEW}`);
    expect(result.stderr).toContain("0001_diagnostics_family_signature: adds column family_signature to diagnostics");
    expect(result.stderr).toMatch(/no terminal to ask on; nothing was changed\n {2}→ Run `air migrate --yes`/);
    expect(state_of(file)).toEqual(before);
    expect(fs.existsSync(backups(project))).toBe(false);
  });

  it("asks in bypass mode too: `air -r ID -p … --permission-mode bypass` is refused the same way", () => {
    const { project, session_id, file, env } = older_project();
    const before = state_of(file);
    const result = air(project, env, ["-r", session_id, "-p", "Go on.", "--permission-mode", "bypass"]);
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toContain(`schema ${OLD} → ${NEW}`);
    expect(result.stderr).toContain("Run `air migrate --yes`");
    expect(state_of(file)).toEqual(before);
  });
});

describe("air migrate", () => {
  it("--dry-run prints the plan and changes nothing", () => {
    const { project, session_id, file, env } = older_project();
    const before = state_of(file);
    const result = air(project, env, ["migrate", "--dry-run"]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(`1 database(s) of this project were written by an older air and need a migration:`);
    expect(result.stdout).toContain(`.air/local/sessions/${session_id}/session.db (session): schema ${OLD} → ${NEW}`);
    expect(result.stdout).toMatch(/Backup first: each database is copied \(VACUUM INTO, a consistent copy\) to \.air\/local\/backups\/migrations\/\S+\//);
    expect(result.stdout).toContain("Nothing was changed (--dry-run).");
    expect(state_of(file)).toEqual(before);
  });

  it("without --yes and without a terminal, refuses and changes nothing", () => {
    const { project, file, env } = older_project();
    const before = state_of(file);
    const result = air(project, env, ["migrate"]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("Run `air migrate --yes`");
    expect(state_of(file)).toEqual(before);
  });

  it("--yes backs the database up as it was, migrates it, and the command that was refused then works", () => {
    const { project, session_id, file, env } = older_project();
    const before = state_of(file);
    const result = air(project, env, ["migrate", "--yes"]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Migrated .air/local/sessions/${session_id}/session.db: schema ${OLD} → ${NEW}`);
    const [stamp] = fs.readdirSync(backups(project));
    expect(result.stdout).toContain(`Backup of the databases as they were: .air/local/backups/migrations/${stamp}/`);
    expect(state_of(path.join(backups(project), stamp!, "local", "sessions", session_id, "session.db"))).toEqual(before);
    expect(state_of(file)).toMatchObject({ version: String(NEW), rows: before.rows });

    const tasks = air(project, env, ["tasks", "--session", session_id]);
    expect(tasks.status, tasks.stderr).toBe(0);
    expect(air(project, env, ["migrate"]).stdout).toBe("Every database of this project is at this air's schema: nothing to migrate.\n");
  });

  it("--yes on a database whose migration fails rolls it back, says so and where its copy is", () => {
    const { project, session_id, file, env } = older_project();
    // A column added by hand before the migration that adds it: the real migration fails on the file's content.
    const connection = Connection.open(file);
    connection.client.exec("ALTER TABLE diagnostics ADD family_signature text");
    connection.close();
    const before = state_of(file);
    const result = air(project, env, ["migrate", "--yes"]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      `migrating .air/local/sessions/${session_id}/session.db from schema ${OLD} to ${NEW} failed: duplicate column name: family_signature; it was rolled back and is as it was`,
    );
    const [stamp] = fs.readdirSync(backups(project));
    expect(result.stderr).toContain(`its copy from before is .air/local/backups/migrations/${stamp}/local/sessions/${session_id}/session.db`);
    expect(state_of(file)).toEqual(before);
  });

  it("refuses a database written by a newer air, naming its schema version and this air's", () => {
    const { project, session_id, file, env } = older_project();
    const connection = Connection.open(file);
    connection.client.prepare("UPDATE schema_meta SET value = ? WHERE key = 'schema_version'").run(String(NEW + 2));
    connection.close();
    for (const args of [
      ["migrate", "--yes"],
      ["tasks", "--session", session_id],
    ]) {
      const result = air(project, env, args);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`has schema version ${NEW + 2}`);
      expect(result.stderr).toContain(`newer than version ${NEW} that this air`);
      expect(result.stderr).toContain(`Upgrade air to a version that writes schema ${NEW + 2}`);
    }
  });
});

describe("confirm_and_migrate", () => {
  it("asks before migrating; a no changes nothing, a yes backs up and migrates", async () => {
    const { project, file } = older_project();
    const before = state_of(file);
    const questions: string[] = [];
    const plan = plan_project_migrations(project.layout);
    const declined: unknown = await confirm_and_migrate(project.layout, plan, {
      yes: false,
      ask: async (question) => {
        questions.push(question);
        return false;
      },
    }).catch((error: unknown) => error);
    expect(is_air_failure(declined) && declined.message).toBe("the migration was declined; nothing was changed");
    expect(state_of(file)).toEqual(before);
    expect(fs.existsSync(backups(project))).toBe(false);

    const run = await confirm_and_migrate(project.layout, plan, {
      yes: false,
      ask: async (question) => {
        questions.push(question);
        return true;
      },
    });
    expect(questions).toEqual(["Back up and migrate 1 database(s)?", "Back up and migrate 1 database(s)?"]);
    expect(run.migrated.map((database) => database.path)).toEqual([file]);
    expect(state_of(file).version).toBe(String(NEW));
  });
});

/**
 * D-055: a database older than this build is migrated only after its plan was shown and a person said yes
 * (or `--yes` was given to `air migrate`). No permission mode answers this question — `bypass` included —
 * because a migration rewrites air's own records, not the project's files that permission modes govern.
 */
import path from "node:path";
import * as clack from "@clack/prompts";
import { air_failure } from "../contracts/errors.js";
import { DATABASE_KINDS } from "../db/migrate.js";
import { project_layout, type ProjectLayout } from "../project/layout.js";
import { backup_path_of, type MigrationRun, plan_project_migrations, type ProjectMigrationPlan, run_project_migrations } from "../project/migrations.js";
import type { Io } from "./output.js";
import { is_interactive } from "./terminal.js";

/** Who says yes: `--yes`, or a person at the terminal (`ask`); without either the migration is refused. */
export type MigrationAsker = { readonly yes: boolean; readonly ask?: (question: string) => Promise<boolean> };

/** A yes/no on the terminal (Ctrl+C is a no); none without one. */
export function terminal_asker(yes: boolean): MigrationAsker {
  if (!is_interactive()) return { yes };
  return {
    yes,
    ask: async (question) => (await clack.confirm({ message: question, initialValue: false })) === true,
  };
}

function shown(layout: ProjectLayout, file: string): string {
  return path.relative(layout.root, file) || file;
}

export function render_migration_plan(layout: ProjectLayout, plan: ProjectMigrationPlan): string {
  const lines = [`${plan.databases.length} database(s) of this project were written by an older air and need a migration:`];
  for (const database of plan.databases) {
    lines.push(`  ${shown(layout, database.path)} (${DATABASE_KINDS[database.kind]}): schema ${database.from} → ${database.to}`);
    for (const step of database.steps) {
      lines.push(`    ${step.name}: ${step.changes.join("; ")}`);
      for (const risk of step.risks) lines.push(`      risk: ${risk}`);
    }
  }
  lines.push(
    `Backup first: each database is copied (VACUUM INTO, a consistent copy) to ${shown(layout, plan.backup_dir)}/, keeping its path under .air.`,
    "Each database migrates in one transaction: if a statement fails it is rolled back and left as it was, and the rest are not tried.",
  );
  return `${lines.join("\n")}\n`;
}

export function render_migration_run(layout: ProjectLayout, run: MigrationRun): string {
  const lines = run.migrated.map((database) => `Migrated ${shown(layout, database.path)}: schema ${database.from} → ${database.to}`);
  lines.push(`Backup of the databases as they were: ${shown(layout, run.backup_dir)}/`);
  return `${lines.join("\n")}\n`;
}

function failed(layout: ProjectLayout, run: MigrationRun, { database, error }: NonNullable<MigrationRun["failed"]>) {
  const file = shown(layout, database.path);
  const copy = shown(layout, backup_path_of(layout, run.backup_dir, database.path));
  return air_failure({
    kind: "project_error",
    message: `migrating ${file} from schema ${database.from} to ${database.to} failed: ${error.message}; it was rolled back and is as it was`,
    retryability: "retryable_after_change",
    user_action:
      `Nothing of ${file} changed; its copy from before is ${copy}. ` +
      (run.migrated.length > 0 ? `Already migrated (and backed up there too): ${run.migrated.map((one) => shown(layout, one.path)).join(", ")}. ` : "") +
      (run.not_tried.length > 0 ? `Not tried: ${run.not_tried.map((one) => shown(layout, one.path)).join(", ")}. ` : "") +
      "Report the failure (air doctor --bundle), or move the database aside to start it anew.",
    metadata: { path: database.path, backup_dir: run.backup_dir, cause: error.message },
  });
}

/** Asks (or takes `--yes`), backs up and migrates; a no, no one to ask, or a failed migration is an AirError. */
export async function confirm_and_migrate(layout: ProjectLayout, plan: ProjectMigrationPlan, asker: MigrationAsker): Promise<MigrationRun> {
  if (!asker.yes) {
    if (asker.ask === undefined) {
      throw air_failure({
        kind: "user_error",
        message: `${plan.databases.length} database(s) need a migration and there is no terminal to ask on; nothing was changed`,
        retryability: "retryable_after_change",
        user_action: "Run `air migrate --yes` in the project to back them up and migrate them (`air migrate --dry-run` shows the plan only).",
      });
    }
    if (!(await asker.ask(`Back up and migrate ${plan.databases.length} database(s)?`))) {
      throw air_failure({
        kind: "user_error",
        message: "the migration was declined; nothing was changed",
        retryability: "retryable_after_change",
        user_action: "This air cannot open a database older than its schema: run `air migrate` when ready, or use the air that wrote it.",
      });
    }
  }
  const run = run_project_migrations(layout, plan);
  if (run.failed !== undefined) throw failed(layout, run, run.failed);
  return run;
}

/** The project a database file belongs to: the folder holding the `.air` above it. */
function layout_of(file: string): ProjectLayout {
  let folder = path.dirname(path.resolve(file));
  while (path.basename(folder) !== ".air" && path.dirname(folder) !== folder) folder = path.dirname(folder);
  return project_layout(path.dirname(folder));
}

/**
 * A command met `file`, older than this build: the plan of the project's own databases and that one goes to
 * stderr (stdout may be a machine's), then the question on the terminal; no terminal refuses, naming
 * `air migrate --yes`.
 */
export async function migrate_on_open(io: Io, file: string): Promise<void> {
  const layout = layout_of(file);
  const plan = plan_project_migrations(layout, { also: file });
  io.err(render_migration_plan(layout, plan));
  io.err(render_migration_run(layout, await confirm_and_migrate(layout, plan, terminal_asker(false))));
}

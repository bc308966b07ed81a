import { air_failure } from "../../contracts/errors.js";
import { project_layout } from "../../project/layout.js";
import { plan_project_migrations } from "../../project/migrations.js";
import { locate_project_root } from "../../project/project-store.js";
import { confirm_and_migrate, render_migration_plan, render_migration_run, terminal_asker } from "../migration-gate.js";
import type { Io } from "../output.js";

export type MigrateOptions = { readonly yes: boolean; readonly dry_run: boolean };

/**
 * `air migrate [--yes] [--dry-run]` (D-055): the plan for every database of the project older than this air
 * (its own and every session's), then — on a yes at the terminal, or `--yes` — a backup and the migration.
 */
export async function run_migrate(io: Io, options: MigrateOptions): Promise<number> {
  const root = locate_project_root(io.cwd);
  if (root === undefined) {
    throw air_failure({
      kind: "user_error",
      message: `no air project at or above ${io.cwd}`,
      retryability: "not_retryable",
      user_action: "Run `air migrate` in the folder of the project whose databases to migrate.",
    });
  }
  const layout = project_layout(root);
  const plan = plan_project_migrations(layout);
  if (plan.databases.length === 0) {
    io.out("Every database of this project is at this air's schema: nothing to migrate.\n");
    return 0;
  }
  io.out(render_migration_plan(layout, plan));
  if (options.dry_run) {
    io.out("Nothing was changed (--dry-run).\n");
    return 0;
  }
  io.out(render_migration_run(layout, await confirm_and_migrate(layout, plan, terminal_asker(options.yes))));
  return 0;
}

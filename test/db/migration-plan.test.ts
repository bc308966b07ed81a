/**
 * The migration plan's words for drizzle-kit's statements: each change, and a risk note for what can delete
 * or reject rows (a drop, a table rebuild, a unique index). Statements are drizzle-kit's own output shapes.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { migrations_of, target_schema_version, type Migration } from "../../src/db/migrate.js";
import { describe_migration, plan_database } from "../../src/db/migration-plan.js";
import { older_database, previous_version } from "../fixtures/older-schema.js";
import { TempDirs } from "../fixtures/processes.js";

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

function migration(name: string, sql: string[]): Migration {
  return { name, sql, bps: true, folderMillis: 1, hash: name };
}

describe("describe_migration", () => {
  it("tells each of this build's migrations in words, with no statement left as raw SQL", () => {
    for (const kind of ["session", "debug_records", "learned_memory"] as const) {
      for (const step of migrations_of(kind).map(describe_migration)) {
        expect(step.changes.length).toBeGreaterThan(0);
        expect(step.changes.filter((change) => change.startsWith("runs "))).toEqual([]);
      }
    }
  });

  it("tells drizzle-kit's rebuild of a table as one rewrite, with its risk", () => {
    const step = describe_migration(
      migration("0002_status_check", [
        "PRAGMA foreign_keys=OFF;",
        "CREATE TABLE `__new_tasks` (\n\t`id` text PRIMARY KEY NOT NULL,\n\t`status` text NOT NULL\n);\n",
        'INSERT INTO `__new_tasks`("id", "status") SELECT "id", "status" FROM `tasks`;',
        "DROP TABLE `tasks`;",
        "ALTER TABLE `__new_tasks` RENAME TO `tasks`;",
        "PRAGMA foreign_keys=ON;",
        "CREATE INDEX `tasks_status_idx` ON `tasks` (`status`);",
      ]),
    );
    expect(step).toEqual({
      name: "0002_status_check",
      changes: ["rewrites table tasks (a new table of the new shape, its rows copied over, the old one dropped)", "creates index tasks_status_idx on tasks"],
      risks: ["rewriting tasks copies every row: a row the new shape rejects (a NOT NULL or CHECK it breaks) fails the migration, which then rolls back"],
    });
  });

  it("names what a drop deletes and what a unique index may refuse", () => {
    const step = describe_migration(
      migration("0003_cleanup", [
        "DROP TABLE `old_notes`;",
        "ALTER TABLE `events` DROP COLUMN `legacy`;",
        "CREATE UNIQUE INDEX `events_key` ON `events` (`key`);",
        "ALTER TABLE `events` RENAME COLUMN `kind` TO `type`;",
        "DELETE FROM `caches`;",
      ]),
    );
    expect(step.changes).toEqual([
      "drops table old_notes",
      "drops column legacy of events",
      "creates unique index events_key on events",
      "renames events.kind to type",
      "changes rows of caches",
    ]);
    expect(step.risks).toEqual([
      "dropping old_notes deletes its rows",
      "dropping events.legacy deletes its values",
      "a unique index fails the migration (and rolls it back) if events holds duplicates",
      "rewrites or deletes rows of caches",
    ]);
  });
});

describe("plan_database", () => {
  it("has nothing to plan for a missing file, an empty one, or one at this build's version", () => {
    const dir = dirs.make("air-plan-");
    expect(plan_database(path.join(dir, "missing.db"), "session")).toBeUndefined();
    const empty = path.join(dir, "empty.db");
    fs.writeFileSync(empty, "");
    expect(plan_database(empty, "session")).toBeUndefined();
    const current = path.join(dir, "current.db");
    older_database(current, "session", target_schema_version("session"));
    expect(plan_database(current, "session")).toBeUndefined();
  });

  it("plans an older file from its version to this build's, one step per pending migration", () => {
    const file = path.join(dirs.make("air-plan-"), "old.db");
    older_database(file, "learned_memory", previous_version("learned_memory"));
    const plan = plan_database(file, "learned_memory");
    const to = target_schema_version("learned_memory");
    expect(plan).toMatchObject({ path: file, kind: "learned_memory", from: to - 1, to });
    expect(plan?.steps.map((step) => step.name)).toEqual(
      migrations_of("learned_memory")
        .slice(to - 1)
        .map((one) => one.name),
    );
  });
});

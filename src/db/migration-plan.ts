import fs from "node:fs";
import { Connection } from "./connection.js";
import { assert_readable, type DatabaseKind, type Migration, migrations_of, schema_version_of } from "./migrate.js";

/** What one migration does, in words: each change, and a risk note for each change that can lose or reject rows. */
export type MigrationStep = { readonly name: string; readonly changes: readonly string[]; readonly risks: readonly string[] };

/** One database file this build must migrate: from the version it has to the one this build writes. */
export type DatabasePlan = {
  readonly path: string;
  readonly kind: DatabaseKind;
  readonly from: number;
  readonly to: number;
  readonly steps: readonly MigrationStep[];
};

type Said = { change?: string; risk?: string };

const NAME = '[`"]?([\\w]+)[`"]?';
const REBUILT = "__new_";

/**
 * drizzle-kit's statements in words. A table SQLite cannot alter in place is rebuilt (CREATE `__new_x`, copy,
 * DROP `x`, rename): that is one change, "rewrites x", whose copy and drop are not told apart.
 */
function said(statement: string, rebuilt: ReadonlySet<string>): Said {
  const sql = statement.replace(/\s+/g, " ").trim();
  /** The groups of `pattern` matched at the start of the statement ("" for one that did not take part). */
  const match = (pattern: string): [string, string, string] | undefined => {
    const found = new RegExp(`^${pattern}`, "i").exec(sql);
    return found === null ? undefined : [found[1] ?? "", found[2] ?? "", found[3] ?? ""];
  };
  let found = match(`CREATE TABLE (?:IF NOT EXISTS )?${NAME}`);
  if (found) {
    const [table] = found;
    if (!table.startsWith(REBUILT)) return { change: `creates table ${table}` };
    const original = table.slice(REBUILT.length);
    return {
      change: `rewrites table ${original} (a new table of the new shape, its rows copied over, the old one dropped)`,
      risk: `rewriting ${original} copies every row: a row the new shape rejects (a NOT NULL or CHECK it breaks) fails the migration, which then rolls back`,
    };
  }
  if (match(`INSERT INTO [\`"]?${REBUILT}`) || match(`ALTER TABLE [\`"]?${REBUILT}\\w+[\`"]? RENAME TO`) || /^PRAGMA /i.test(sql)) return {};
  found = match(`DROP TABLE (?:IF EXISTS )?${NAME}`);
  if (found) return rebuilt.has(found[0]) ? {} : { change: `drops table ${found[0]}`, risk: `dropping ${found[0]} deletes its rows` };
  found = match(`CREATE (UNIQUE )?INDEX (?:IF NOT EXISTS )?${NAME} ON ${NAME}`);
  if (found) {
    const [unique, index, table] = found;
    return {
      change: `creates ${unique === "" ? "index" : "unique index"} ${index} on ${table}`,
      ...(unique === "" ? {} : { risk: `a unique index fails the migration (and rolls it back) if ${table} holds duplicates` }),
    };
  }
  found = match(`DROP INDEX (?:IF EXISTS )?${NAME}`);
  if (found) return { change: `drops index ${found[0]}` };
  found = match(`ALTER TABLE ${NAME} ADD (?:COLUMN )?${NAME}(.*)$`);
  if (found) return { change: `adds column ${found[1]} to ${found[0]}${/NOT NULL/i.test(found[2]) ? " (NOT NULL, with a default)" : ""}` };
  found = match(`ALTER TABLE ${NAME} DROP (?:COLUMN )?${NAME}`);
  if (found) return { change: `drops column ${found[1]} of ${found[0]}`, risk: `dropping ${found[0]}.${found[1]} deletes its values` };
  found = match(`ALTER TABLE ${NAME} RENAME (?:COLUMN )?${NAME} TO ${NAME}`);
  if (found) return { change: `renames ${found[0]}.${found[1]} to ${found[2]}` };
  found = match(`ALTER TABLE ${NAME} RENAME TO ${NAME}`);
  if (found) return { change: `renames table ${found[0]} to ${found[1]}` };
  found = match(`(?:DELETE FROM|UPDATE) ${NAME}`);
  if (found) return { change: `changes rows of ${found[0]}`, risk: `rewrites or deletes rows of ${found[0]}` };
  return { change: `runs ${sql.length > 60 ? `${sql.slice(0, 60)}…` : sql}` };
}

export function describe_migration(migration: Migration): MigrationStep {
  const rebuilt = new Set<string>();
  for (const statement of migration.sql) {
    const table = new RegExp(`CREATE TABLE (?:IF NOT EXISTS )?[\`"]?${REBUILT}(\\w+)`, "i").exec(statement)?.[1];
    if (table !== undefined) rebuilt.add(table);
  }
  const all = migration.sql.filter((statement) => statement.trim() !== "").map((statement) => said(statement, rebuilt));
  return {
    name: migration.name,
    changes: all.flatMap((one) => (one.change === undefined ? [] : [one.change])),
    risks: all.flatMap((one) => (one.risk === undefined ? [] : [one.risk])),
  };
}

/**
 * The plan for one file: undefined when there is nothing to migrate (no file yet, an empty one — opening it
 * creates the schema — or one at this build's version). A file newer than this build, or one air did not
 * write, is refused with the versions named (`assert_readable`'s failure).
 */
export function plan_database(file: string, kind: DatabaseKind, migrations: readonly Migration[] = migrations_of(kind)): DatabasePlan | undefined {
  if (!fs.existsSync(file)) return undefined;
  const connection = Connection.open(file, { must_exist: true });
  try {
    const found = schema_version_of(connection);
    if (found === migrations.length) return undefined;
    if (found === undefined || found > migrations.length) {
      const empty = connection.client.prepare("SELECT 1 FROM sqlite_master LIMIT 1").raw().get() === undefined;
      if (empty) return undefined;
      assert_readable(connection, kind);
    }
    const from = found ?? 0;
    return { path: file, kind, from, to: migrations.length, steps: migrations.slice(from).map(describe_migration) };
  } finally {
    connection.close();
  }
}

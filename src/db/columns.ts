import { check, text } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";

/**
 * A closed-enum TEXT column and the CHECK constraint that makes SQLite refuse any other value, so an
 * enum is validated on every write path — including ones that bypass the event projection.
 */
export function enum_column<const T extends readonly [string, ...string[]]>(name: string, options: T) {
  return text(name, { enum: options as unknown as [T[number], ...T[number][]] });
}

export function enum_check(table: string, column: string, options: readonly string[], nullable = false) {
  const listed = options.map((option) => `'${option.replaceAll("'", "''")}'`).join(", ");
  const condition = `"${column}" in (${listed})`;
  return check(`${table}_${column}_enum`, sql.raw(nullable ? `"${column}" is null or ${condition}` : condition));
}

/** Booleans stored as 0/1 with a CHECK, since SQLite has no boolean type. */
export function flag_check(table: string, column: string) {
  return check(`${table}_${column}_flag`, sql.raw(`"${column}" in (0, 1)`));
}

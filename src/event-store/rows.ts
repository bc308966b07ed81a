import { and, eq, getTableName, isNull, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Connection } from "../db/connection.js";

/**
 * Row writes for projections, as drizzle prepared statements cached per connection and per column set:
 * building a drizzle query costs ~40 µs, as much as the whole raw write (research/libsql-drizzle.md §5).
 */
type Insert<T extends SQLiteTable> = T["$inferInsert"];
type Select<T extends SQLiteTable> = T["$inferSelect"];
type Prepared = { run(values: Record<string, unknown>): { changes: number; lastInsertRowid: number | bigint } };
type PreparedGet = { get(values: Record<string, unknown>): unknown };

function defined_keys(values: Record<string, unknown>): string[] {
  return Object.keys(values).filter((key) => values[key] !== undefined);
}

function placeholders(keys: string[], prefix: string): Record<string, Placeholder> {
  return Object.fromEntries(keys.map((key) => [key, sql.placeholder(`${prefix}${key}`)]));
}

function bound(values: Record<string, unknown>, keys: string[], prefix: string): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [`${prefix}${key}`, values[key]]));
}

function column(table: SQLiteTable, key: string): SQLiteColumn {
  const found = (table as unknown as Record<string, SQLiteColumn | undefined>)[key];
  if (found === undefined) throw new Error(`table ${getTableName(table)} has no column ${key}`);
  return found;
}

/** Equality on each key; a null value means `IS NULL` (and is not bound), since `= NULL` is never true. */
function matching(table: SQLiteTable, where: Record<string, unknown>, keys: string[]): SQL | undefined {
  return and(...keys.map((key) => (where[key] === null ? isNull(column(table, key)) : eq(column(table, key), sql.placeholder(`w_${key}`)))));
}

function where_signature(where: Record<string, unknown>, keys: string[]): string {
  return keys.map((key) => (where[key] === null ? `${key} is null` : key)).join(",");
}

/** Inserts one row and returns its rowid (an `events` row's `seq`). */
export function insert_row<T extends SQLiteTable>(connection: Connection, table: T, row: Insert<T>): number {
  const keys = defined_keys(row as Record<string, unknown>);
  const prepared = connection.statement(`insert:${getTableName(table)}:${keys.join(",")}`, (db) =>
    db
      .insert(table)
      .values(placeholders(keys, "v_") as never)
      .prepare(),
  ) as unknown as Prepared;
  return Number(prepared.run(bound(row as Record<string, unknown>, keys, "v_")).lastInsertRowid);
}

/** Updates the rows matching `where` (equality on each key) and returns how many changed. */
export function update_rows<T extends SQLiteTable>(connection: Connection, table: T, where: Partial<Select<T>>, set: Partial<Insert<T>>): number {
  const set_keys = defined_keys(set as Record<string, unknown>);
  const where_keys = defined_keys(where as Record<string, unknown>);
  const key = `update:${getTableName(table)}:${set_keys.join(",")}:${where_signature(where as Record<string, unknown>, where_keys)}`;
  const prepared = connection.statement(key, (db) =>
    db
      .update(table)
      .set(placeholders(set_keys, "v_") as never)
      .where(matching(table, where as Record<string, unknown>, where_keys))
      .prepare(),
  ) as unknown as Prepared;
  const values = { ...bound(set as Record<string, unknown>, set_keys, "v_"), ...bound(where as Record<string, unknown>, where_keys, "w_") };
  return prepared.run(values).changes;
}

export function delete_rows<T extends SQLiteTable>(connection: Connection, table: T, where: Partial<Select<T>>): number {
  const where_keys = defined_keys(where as Record<string, unknown>);
  const signature = where_signature(where as Record<string, unknown>, where_keys);
  const prepared = connection.statement(`delete:${getTableName(table)}:${signature}`, (db) =>
    db
      .delete(table)
      .where(matching(table, where as Record<string, unknown>, where_keys))
      .prepare(),
  ) as unknown as Prepared;
  return prepared.run(bound(where as Record<string, unknown>, where_keys, "w_")).changes;
}

/** One column of the row with this primary key, or undefined when there is no such row. */
export function read_column<T extends SQLiteTable, K extends keyof Select<T> & string>(
  connection: Connection,
  table: T,
  id: string,
  name: K,
): Select<T>[K] | undefined {
  const prepared = connection.statement(`read:${getTableName(table)}:${name}`, (db) =>
    db
      .select({ value: column(table, name) })
      .from(table as SQLiteTable)
      .where(eq(column(table, "id"), sql.placeholder("id")))
      .prepare(),
  ) as unknown as PreparedGet;
  const row = prepared.get({ id }) as { value: Select<T>[K] } | undefined;
  return row?.value;
}

export function json(value: unknown): string | undefined {
  return value === undefined ? undefined : JSON.stringify(value);
}

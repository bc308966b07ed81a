/**
 * The value under `key` when `value` is an object, else undefined: for reading an event payload by a name
 * known only at run time (a coalescing rule's key, a bus filter's column) or a part of one that may be absent.
 */
export function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

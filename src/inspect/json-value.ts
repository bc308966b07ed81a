/**
 * What an actor holds (snapshots, events, inputs, machine configs), as a value `JSON.stringify` can write
 * and the Stately Inspector can read. Functions become `{ type: name }` and actor refs their own
 * `toJSON()` (`{ xstate$$type, id }`), as `@statelyai/inspect` does. Actor inputs carry services (a
 * session, a database connection), so class instances are named rather than walked, and the depth and
 * the number of objects visited are bounded: one odd value must not make every snapshot megabytes long.
 */

/** The depth `@statelyai/inspect` serialises to by default. */
export const MAX_DEPTH = 10;
/** Objects visited per value; beyond it the rest is marked `[Truncated]`. */
export const MAX_OBJECTS = 5_000;

function is_plain(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

function has_to_json(value: object): value is { toJSON(): unknown } {
  return typeof (value as { toJSON?: unknown }).toJSON === "function";
}

export function to_json_value(value: unknown): unknown {
  let budget = MAX_OBJECTS;
  const ancestors = new Set<object>();

  const entries = (object: object, depth: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(object)) {
      const converted = walk(item, depth + 1);
      if (converted !== undefined) out[key] = converted;
    }
    return out;
  };

  const object_value = (object: object, depth: number): unknown => {
    if (has_to_json(object)) return walk(object.toJSON(), depth);
    if (Array.isArray(object)) return object.map((item) => walk(item, depth + 1) ?? null);
    if (object instanceof Error) return { name: object.name, message: object.message, ...entries(object, depth) };
    if (object instanceof Map) return entries(Object.fromEntries([...object].map(([key, item]) => [String(key), item])), depth);
    if (object instanceof Set) return [...object].map((item) => walk(item, depth + 1) ?? null);
    if (!is_plain(object)) return `[${object.constructor?.name ?? "object"}]`;
    return entries(object, depth);
  };

  const walk = (item: unknown, depth: number): unknown => {
    switch (typeof item) {
      case "string":
      case "boolean":
        return item;
      case "number":
        return Number.isFinite(item) ? item : null;
      case "bigint":
        return item.toString();
      case "function":
        return { type: item.name };
      case "undefined":
      case "symbol":
        return undefined;
    }
    if (item === null) return null;
    const object = item as object;
    if (ancestors.has(object)) return "[Circular]";
    if (depth >= MAX_DEPTH) return Array.isArray(object) ? "[Array]" : "[Object]";
    if (--budget < 0) return "[Truncated]";
    ancestors.add(object);
    try {
      return object_value(object, depth);
    } catch {
      // A getter or toJSON that throws: the value is shown as unreadable, the snapshot still goes out.
      return "[Unserializable]";
    } finally {
      ancestors.delete(object);
    }
  };

  return walk(value, 0);
}

import { createActor } from "xstate";
import { describe, expect, it } from "vitest";
import { air_failure } from "../../src/contracts/errors.js";
import { MAX_DEPTH, MAX_OBJECTS, to_json_value } from "../../src/inspect/json-value.js";
import { task_machine } from "../../src/machines/task.js";

class Connection {
  readonly handle = { native: true };
}

describe("to_json_value", () => {
  it("turns functions into their names and actor refs into references, like @statelyai/inspect", () => {
    const actor = createActor(task_machine);
    function call_tool() {}
    expect(to_json_value({ call_tool, child: actor })).toEqual({ call_tool: { type: "call_tool" }, child: { xstate$$type: 1, id: actor.id } });
  });

  it("names class instances instead of walking them: a session's database handle is not serialised", () => {
    expect(to_json_value({ services: { connection: new Connection(), when: new Date(0) } })).toEqual({
      services: { connection: "[Connection]", when: "1970-01-01T00:00:00.000Z" },
    });
  });

  it("survives cycles, and shows a shared object twice when it is not a cycle", () => {
    const shared = { n: 1 };
    const looped: Record<string, unknown> = { name: "loop", shared, again: shared };
    looped.self = looped;
    expect(to_json_value(looped)).toEqual({ name: "loop", shared: { n: 1 }, again: { n: 1 }, self: "[Circular]" });
  });

  it("bounds depth and size", () => {
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let level = 0; level < MAX_DEPTH + 5; level++) deep = (deep.next = {}) as Record<string, unknown>;
    let cursor = to_json_value(root) as Record<string, unknown>;
    let depth = 0;
    while (typeof cursor.next === "object") {
      cursor = cursor.next as Record<string, unknown>;
      depth++;
    }
    expect(depth).toBe(MAX_DEPTH - 1);
    expect(cursor.next).toBe("[Object]");

    const wide = Array.from({ length: MAX_OBJECTS + 10 }, (_, index) => ({ index }));
    const converted = to_json_value(wide) as unknown[];
    expect(converted.at(-1)).toBe("[Truncated]");
    expect(converted[0]).toEqual({ index: 0 });
  });

  it("keeps what an error says, AirFailures included", () => {
    const failure = air_failure({ kind: "tool_error", message: "fs.edit found no match", retryability: "retryable_after_change" });
    expect(to_json_value({ error: failure })).toMatchObject({
      error: { name: "AirFailure", message: "fs.edit found no match", error: { kind: "tool_error" } },
    });
  });

  it("writes what JSON cannot hold as JSON would, or as text", () => {
    expect(to_json_value({ big: 10n, nan: Number.NaN, gone: undefined, sym: Symbol("s"), list: [undefined, 1] })).toEqual({
      big: "10",
      nan: null,
      list: [null, 1],
    });
    expect(to_json_value({ map: new Map([["a", 1]]), set: new Set([1, 2]) })).toEqual({ map: { a: 1 }, set: [1, 2] });
  });
});

/**
 * ToolRegistry.call (seeds 000 §9.1, DESIGN §6): the order unknown tool → input schema → permission →
 * tool.started → execute → output schema → tool.completed | failed | cancelled, and `schemas()` as JSON
 * Schema generated from the one valibot input schema. Test tools are real tool definitions registered
 * next to the built-ins, not mocks of ours.
 */
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { air_failure, is_air_failure, make_air_error } from "../../src/contracts/errors.js";
import { new_id } from "../../src/contracts/ids.js";
import { effects_of, ToolEffects, ToolOutcome, ToolSchema } from "../../src/contracts/tool.js";
import { BUILTIN_TOOLS, create_tool_registry } from "../../src/tools/builtin.js";
import { define_tool, ToolFailure } from "../../src/tools/define.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { error_of, output_of, tool_harness, type ToolHarness } from "./helpers.js";

let h: ToolHarness;
beforeEach(() => {
  h = tool_harness();
});
afterEach(() => h.cleanup());

const echo = define_tool({
  name: "test.echo",
  version: 2,
  description: "Echoes its text, or misbehaves on request.",
  category: "internal",
  input: v.strictObject({
    text: v.string(),
    mode: v.optional(v.picklist(["ok", "bad_output", "throw", "air_failure", "wait", "stream", "stream_then_wait"]), "ok"),
  }),
  output: v.strictObject({ text: v.string() }),
  permissions: {},
  async execute(input, execution) {
    switch (input.mode) {
      case "bad_output":
        return { text: 42 as unknown as string };
      case "throw":
        throw new Error("plain failure");
      case "air_failure":
        throw air_failure({ kind: "build_error", message: "the build broke", retryability: "retryable_after_change" });
      case "wait":
        await new Promise<void>((resolve) => execution.signal.addEventListener("abort", () => resolve(), { once: true }));
        return { text: "too late" };
      case "stream_then_wait":
        execution.stream({ n: 1 });
        await new Promise<void>((resolve) => execution.signal.addEventListener("abort", () => resolve(), { once: true }));
        return { text: "too late" };
      case "stream":
        execution.stream({ n: 1 });
        execution.stream({ n: 2 });
        return { text: input.text };
      default:
        return { text: input.text };
    }
  },
});

const fetcher = define_tool({
  name: "test.fetch",
  version: 1,
  description: "Declares network access.",
  category: "network",
  input: v.strictObject({ url: v.string() }),
  output: v.strictObject({ ok: v.boolean() }),
  permissions: { network: true },
  async execute() {
    return { ok: true };
  },
});

describe("schemas()", () => {
  it("exports a JSON Schema for every tool, generated from its valibot input schema", () => {
    const schemas = h.registry.schemas();
    expect(schemas.map((schema) => schema.name)).toEqual([
      "fs.read",
      "fs.list",
      "fs.glob",
      "fs.grep",
      "fs.write",
      "fs.edit",
      "fs.patch",
      "shell.run",
      "git.status",
      "git.diff",
      "git.log",
      "git.show",
      "git.commit",
      "project.scan",
      "artifact.read",
    ]);
    for (const schema of schemas) {
      expect(() => v.parse(ToolSchema, schema)).not.toThrow();
      expect(schema.description.length).toBeGreaterThan(20);
      expect(schema.input_schema).toMatchObject({ type: "object", additionalProperties: false });
      expect(schema.input_schema).not.toHaveProperty("$schema");
      expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    }
    const by_name = Object.fromEntries(schemas.map((schema) => [schema.name, schema.input_schema]));
    expect(by_name["fs.edit"]!.required).toEqual(["path", "old_string", "new_string"]);
    expect(by_name["fs.read"]!.properties).toMatchObject({ offset: { type: "integer", minimum: 1 }, limit: { type: "integer" } });
    expect(by_name["shell.run"]!.required).toEqual(["command"]);
    expect(by_name["shell.run"]!.properties).toMatchObject({ timeout_ms: { type: "integer", maximum: 1_800_000 } });
  });

  it("a tool is registered once", () => {
    const registry = create_tool_registry();
    let thrown: unknown;
    try {
      registry.register(BUILTIN_TOOLS[0]!);
    } catch (error) {
      thrown = error;
    }
    expect(is_air_failure(thrown)).toBe(true);
    expect((thrown as Error).message).toMatch(/already registered/);
  });
});

describe("refusals before any tool run", () => {
  it("an unknown tool is a tool_error naming the tools there are; nothing is recorded", async () => {
    const before = h.events().length;
    const error = error_of(await h.call("fs.delete_everything", { path: "." }));
    expect(error).toMatchObject({ kind: "tool_error", retryability: "not_retryable" });
    expect(error.message).toMatch(/unknown tool "fs.delete_everything"/);
    expect(error.user_action).toContain("fs.read");
    expect(h.events()).toHaveLength(before);
  });

  it("a malformed call is a tool_error", async () => {
    const outcome = await h.registry.call({ tool_name: "Not A Name", input: {} }, { session: h.temp.session });
    expect(error_of(outcome).message).toMatch(/malformed tool call/);
  });

  it("an input failing its schema: tool_error with the issues, no permission decision, no tool.started", async () => {
    for (const [tool_name, input] of [
      ["fs.read", { path: 42 }],
      ["fs.read", { path: "a.txt", offset: 0 }],
      ["fs.edit", { path: "a.txt", old_string: "x" }],
      ["fs.write", { path: "a.txt", content: "x", mode: "0777" }],
      ["shell.run", { command: "" }],
      ["shell.run", { command: "ls", timeout_ms: 10_000_000 }],
      ["fs.read", { path: "a\0b" }],
    ] as const) {
      const outcome = await h.call(tool_name, input as Record<string, unknown>);
      const error = error_of(outcome);
      expect(error.kind, JSON.stringify(input)).toBe("tool_error");
      expect(error.retryability).toBe("not_retryable");
      expect(error.message).toMatch(new RegExp(`input of ${tool_name.replace(".", "\\.")} fails its schema`));
      expect(error.user_action).toBeTruthy();
      expect(outcome.tool_run_id).toBeUndefined();
    }
    expect(h.events("tool.started", "permission.decision.recorded")).toEqual([]);
    expect(h.tool_runs()).toEqual([]);
  });

  it("a cancelled signal before the call records nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = error_of(await h.call("fs.list", {}, { signal: controller.signal }));
    expect(error.metadata).toMatchObject({ cancelled: true });
    expect(h.events("tool.started", "permission.decision.recorded")).toEqual([]);
  });
});

describe("the run", () => {
  let registry: ToolRegistry;
  beforeEach(() => {
    registry = h.registry;
    registry.register(echo);
    registry.register(fetcher);
  });
  const call = (input: Record<string, unknown>, signal?: AbortSignal, on_stream?: (chunk: unknown) => void) =>
    registry.call({ tool_name: "test.echo", input }, { session: h.temp.session, signal }, on_stream);

  it("success: decision → tool.started (with origin ids) → tool.completed; the outcome fits ToolOutcome", async () => {
    const task_id = new_id("task");
    const agent_id = new_id("agent");
    const origin_message_id = new_id("message");
    const outcome = await registry.call({ tool_name: "test.echo", input: { text: "hi" } }, { session: h.temp.session, task_id, agent_id, origin_message_id });
    expect(() => v.parse(ToolOutcome, outcome)).not.toThrow();
    expect(output_of(outcome)).toEqual({ text: "hi" });
    expect(
      h
        .events()
        .slice(1)
        .map((event) => event.type),
    ).toEqual(["permission.decision.recorded", "tool.started", "tool.completed"]);
    expect(h.events("tool.started")[0]!.payload).toMatchObject({
      tool_run_id: outcome.tool_run_id,
      tool_name: "test.echo",
      tool_version: 2,
      input: { text: "hi", mode: "ok" },
      task_id,
      agent_id,
      origin_message_id,
    });
    expect(h.events("permission.decision.recorded")[0]!.payload).toMatchObject({ tool_run_id: outcome.tool_run_id, task_id, agent_id, action: "allow" });
    const row = h.temp.session.connection.client.prepare("SELECT source_kind, source_id, route_text FROM events WHERE type = 'tool.started'").get();
    expect(row).toMatchObject({ source_kind: "tool", source_id: "test.echo", route_text: "runtime/tools/test.echo" });
    expect(h.tool_runs()[0]).toMatchObject({ status: "ok", output_json: { text: "hi" }, task_id, agent_id });
  });

  it("an output failing its schema is tool.failed", async () => {
    const error = error_of(await call({ text: "x", mode: "bad_output" }));
    expect(error).toMatchObject({ kind: "tool_error" });
    expect(error.message).toMatch(/output of test.echo fails its schema/);
    expect(h.tool_runs()[0]).toMatchObject({ status: "error" });
  });

  it("a thrown Error becomes tool_error; a thrown AirFailure keeps its kind; both are tool.failed, and call() does not throw", async () => {
    expect(error_of(await call({ text: "x", mode: "throw" }))).toMatchObject({ kind: "tool_error", message: "plain failure" });
    expect(error_of(await call({ text: "x", mode: "air_failure" }))).toMatchObject({ kind: "build_error", retryability: "retryable_after_change" });
    expect(h.events("tool.failed")).toHaveLength(2);
    expect(h.tool_runs().map((run) => run.status)).toEqual(["error", "error"]);
  });

  it("cancellation during execute is tool.cancelled", async () => {
    const controller = new AbortController();
    const pending = call({ text: "x", mode: "wait" }, controller.signal);
    setTimeout(() => controller.abort(new Error("stop now")), 20);
    const outcome = await pending;
    expect(error_of(outcome).metadata).toMatchObject({ cancelled: true });
    expect(h.events("tool.cancelled")[0]!.payload).toEqual({ tool_run_id: outcome.tool_run_id, reason: "stop now" });
    expect(h.tool_runs()[0]).toMatchObject({ status: "cancelled" });
  });

  it("stream chunks reach on_stream; a throwing listener does not break the run", async () => {
    const chunks: unknown[] = [];
    output_of(await call({ text: "x", mode: "stream" }, undefined, (chunk) => chunks.push(chunk)));
    expect(chunks).toEqual([{ n: 1 }, { n: 2 }]);
    output_of(
      await call({ text: "x", mode: "stream" }, undefined, () => {
        throw new Error("listener bug");
      }),
    );
  });

  it("call_streaming yields every chunk as progress, then exactly one result", async () => {
    const items = [];
    for await (const item of registry.call_streaming({ tool_name: "test.echo", input: { text: "x", mode: "stream" } }, { session: h.temp.session }))
      items.push(item);
    expect(items.map((item) => item.type)).toEqual(["progress", "progress", "result"]);
    expect(items.slice(0, 2)).toEqual([
      { type: "progress", chunk: { n: 1 } },
      { type: "progress", chunk: { n: 2 } },
    ]);
    const last = items.at(-1)!;
    expect(last.type === "result" && output_of(last.outcome)).toEqual({ text: "x" });
  });

  it("call_streaming ends with one result for a refused call too, and a consumer that stops early cancels the run", async () => {
    const refused = [];
    for await (const item of registry.call_streaming({ tool_name: "test.fetch", input: { url: "https://example.com" } }, { session: h.temp.session }))
      refused.push(item);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.type === "result" && refused[0]!.outcome.ok).toBe(false);
    for await (const item of registry.call_streaming({ tool_name: "test.echo", input: { text: "x", mode: "stream_then_wait" } }, { session: h.temp.session })) {
      expect(item).toEqual({ type: "progress", chunk: { n: 1 } });
      break;
    }
    expect(h.tool_runs().at(-1)).toMatchObject({ status: "cancelled" });
  });

  it("a tool declaring network access is asked about, and the default policy denies it", async () => {
    const outcome = await registry.call({ tool_name: "test.fetch", input: { url: "https://example.com" } }, { session: h.temp.session });
    const error = error_of(outcome);
    expect(error.kind).toBe("permission_error");
    expect(error.metadata).toMatchObject({ action: "deny", layer: "user_prompt" });
    expect(h.events("permission.prompt.requested")[0]!.payload).toMatchObject({ tool_name: "test.fetch" });
    expect(h.events("tool.started")).toEqual([]);
  });
});

/** Claims to have changed `file` (nothing is written: the registry's handling of effects is under test). */
const toucher = define_tool({
  name: "test.touch",
  version: 1,
  description: "Reports a changed file, then succeeds, fails or waits for the cancel.",
  category: "filesystem",
  input: v.strictObject({ file: v.string(), mode: v.picklist(["ok", "fail", "wait"]) }),
  output: v.strictObject({ note: v.string(), effects: ToolEffects }),
  permissions: {},
  async execute(input, execution) {
    const effects = { changed_files: [input.file] };
    if (input.mode === "fail") throw new ToolFailure(make_air_error({ kind: "tool_error", message: "half done" }), effects);
    if (input.mode === "wait") await new Promise<void>((resolve) => execution.signal.addEventListener("abort", () => resolve(), { once: true }));
    return { note: `touched ${input.file}`, effects };
  },
});

describe("effects", () => {
  const call = (input: Record<string, unknown>, signal?: AbortSignal) =>
    h.registry.call({ tool_name: "test.touch", input }, { session: h.temp.session, signal });
  beforeEach(() => h.registry.register(toucher));

  it("lifts the declared effects out of the output into the outcome; the recorded output keeps them", async () => {
    const outcome = await call({ file: "a.txt", mode: "ok" });
    expect(() => v.parse(ToolOutcome, outcome)).not.toThrow();
    expect(output_of(outcome)).toEqual({ note: "touched a.txt" });
    expect(outcome.effects).toEqual({ changed_files: ["a.txt"], diff_artifact_ids: [], command_runs: [], commits: [] });
    expect(h.tool_runs()[0]).toMatchObject({ status: "ok", output_json: { note: "touched a.txt", effects: { changed_files: ["a.txt"] } } });
  });

  it("a tool that declares none has none", async () => {
    h.registry.register(echo);
    const outcome = await h.registry.call({ tool_name: "test.echo", input: { text: "hi" } }, { session: h.temp.session });
    expect(outcome.effects).toBeUndefined();
    expect(effects_of(outcome)).toEqual({ changed_files: [], diff_artifact_ids: [], command_runs: [], commits: [] });
  });

  it("a ToolFailure's effects reach the failed outcome, and so do those of a run cancelled after it acted", async () => {
    const failed = await call({ file: "b.txt", mode: "fail" });
    expect(error_of(failed).message).toBe("half done");
    expect(effects_of(failed).changed_files).toEqual(["b.txt"]);

    const controller = new AbortController();
    const pending = call({ file: "c.txt", mode: "wait" }, controller.signal);
    setTimeout(() => controller.abort("stop"), 20);
    const cancelled = await pending;
    expect(error_of(cancelled).metadata).toMatchObject({ cancelled: true });
    expect(effects_of(cancelled).changed_files).toEqual(["c.txt"]);
    expect(h.tool_runs().map((run) => run.status)).toEqual(["error", "cancelled"]);
  });
});

describe("no run is left running", () => {
  it("after any mix of outcomes every tool_runs row has ended", async () => {
    await h.call("fs.read", { path: "missing.txt" });
    await h.call("fs.write", { path: "a.txt", content: "a" });
    await h.call("fs.edit", { path: "a.txt", old_string: "zzz", new_string: "b" });
    await h.call("shell.run", { command: "exit 1" });
    await h.call("fs.write", { path: "../x", content: "x" });
    expect(h.tool_runs().map((run) => run.status)).toEqual(["error", "ok", "error", "ok"]);
  });
});

describe("a registry of its own", () => {
  it("defaults: default mode, no rules", () => {
    const registry = new ToolRegistry();
    expect(registry.permissions.mode).toBe("default");
    expect(registry.permissions.policy.rules).toEqual([]);
    expect(registry.schemas()).toEqual([]);
  });
});

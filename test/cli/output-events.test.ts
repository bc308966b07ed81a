/**
 * `air run -p --output-format events`: air's own event stream, as `stream-json` printed it before it took
 * Claude Code's shapes — every line an event that air's registry accepts, then the json result document.
 */
import path from "node:path";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunResultJson } from "../../src/cli/run-result.js";
import { parse_event, type RuntimeEvent } from "../../src/contracts/events/registry.js";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import { air, air_env, copy_fixture_project, require_build, temp_dir } from "../e2e/helpers.js";

const KEY = "sk-events-test";
let server: ScriptedServer;
let work: { dir: string; cleanup: () => void };
let lines: unknown[];
let code: number | null;

beforeAll(async () => {
  require_build();
  work = temp_dir("air-events-");
  server = await start_scripted_server({
    script: { turns: { main: [{ reply: { content: [{ type: "tool_use", name: "classify_request", input: { intent: "chat", answer: "Forty-two." } }] } }] } },
    api_key: KEY,
  });
  const project = copy_fixture_project("worker", work.dir);
  const env = air_env(path.join(work.dir, "air-home"), { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url });
  const run = await air(["run", "-p", "What is the answer?", "--output-format", "events"], { cwd: project, env });
  code = run.result.code;
  lines = run.stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as unknown);
}, 120_000);

afterAll(async () => {
  await server?.close();
  work?.cleanup();
});

describe("air run -p --output-format events", () => {
  it("prints each event air recorded or streamed as an event line, then the result document", () => {
    expect(code).toBe(0);
    const events: RuntimeEvent[] = lines.slice(0, -1).map((line) => {
      expect(line).toMatchObject({ type: "event" });
      return parse_event((line as { event: unknown }).event);
    });
    const types = events.map((event) => event.type);
    expect(types.indexOf("user.message.created")).toBeLessThan(types.indexOf("assistant.message.created"));
    expect(events.find((event) => event.type === "assistant.message.created")?.payload).toMatchObject({ content: "Forty-two." });
    const result = v.parse(RunResultJson, lines.at(-1));
    expect(result).toMatchObject({ type: "result", code: 0, summary: "Forty-two.", outcome: { kind: "answered" } });
    expect(new Set(events.map((event) => event.session_id))).toEqual(new Set([result.session_id]));
  });
});

describe("air run -p --output-format with a format air does not know", () => {
  it("is a user error listing the four formats", async () => {
    const run = await air(["run", "-p", "x", "--output-format", "ndjson"], { cwd: work.dir, env: air_env(path.join(work.dir, "air-home")) });
    expect(run.result.code).toBe(1);
    expect(run.stderr).toContain('unknown output format "ndjson"');
    expect(run.stderr).toContain("Use one of: text, json, stream-json, events.");
  });
});

/**
 * The model boundary, through the built CLI against a scripted model server in this process:
 * - "The scripted server's recorded requests show no API key reached the worker process (check its
 *   environment) and the tool schemas the model saw match the registry."
 * - "Model errors (429, 529, a broken SSE stream, a tool_use with input that fails the schema) become
 *   AirErrors with retryability set; retryable ones are retried with backoff; none crashes the runtime."
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { referential_check } from "../../src/event-store/referential-check.js";
import { wire_tool_name } from "../../src/providers/tool-names.js";
import { start_scripted_server, type RecordedRequest, type ScriptedServer } from "../../src/providers/scripted/server.js";
import type { ScriptInput, TurnInput } from "../../src/providers/scripted/script.js";
import { create_tool_registry } from "../../src/tools/builtin.js";
import {
  air,
  air_env,
  AirProcess,
  copy_fixture_project,
  fixture_requirement,
  only_session,
  open_readonly,
  peek,
  process_environment,
  query,
  rows,
  require_build,
  session_files,
  session_ids,
  temp_dir,
  wait_until,
  CLASSIFY_GREETING,
} from "./helpers.js";

const CLASSIFY = CLASSIFY_GREETING;
const WRITE_GREETING: TurnInput = { reply: { content: [{ type: "tool_use", name: "fs.write", input: { path: "greeting.txt", content: "hello from air" } }] } };
const DONE: TurnInput = { reply: { content: [{ type: "text", text: "Wrote greeting.txt." }] } };

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** A copy of the worker fixture's project, a server playing `script`, and the env of an `air` pointed at it. */
async function setup(script: ScriptInput, key: string, extra_env: Record<string, string> = {}) {
  require_build();
  const work = temp_dir("air-e2e-model-");
  cleanups.push(work.cleanup);
  const server: ScriptedServer = await start_scripted_server({ script, api_key: key });
  cleanups.push(() => server.close());
  const project = copy_fixture_project("worker", work.dir);
  const env = air_env(path.join(work.dir, "air-home"), { ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: server.url, ...extra_env });
  return { server, project, env };
}

function tools_of(request: RecordedRequest): { name: string; description: string; input_schema: unknown }[] {
  return (request.body as { tools?: { name: string; description: string; input_schema: unknown }[] }).tools ?? [];
}

/** The last user message's tool_result blocks of a recorded request. */
function last_tool_results(request: RecordedRequest): { is_error?: boolean; content: unknown }[] {
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  const last = messages.findLast((message) => message.role === "user");
  if (last === undefined || !Array.isArray(last.content)) return [];
  return (last.content as { type: string; is_error?: boolean; content: unknown }[]).filter((block) => block.type === "tool_result");
}

describe("what the model and the worker get", () => {
  it("the executor is offered exactly the registry's model-visible tools; no key reaches the worker, only the parent sends it", async () => {
    const key = `sk-ant-e2e-${crypto.randomUUID()}`;
    const other_secret = `tok-${crypto.randomUUID()}`;
    const script: ScriptInput = {
      turns: {
        main: [CLASSIFY],
        executor: [
          // The command keeps the worker busy long enough to look at its environment from outside.
          {
            expect: { tools: ["fs.read", "fs.write", "shell.run"] },
            reply: { content: [{ type: "tool_use", name: "shell.run", input: { command: "sleep 1; sh show-env.sh" } }] },
          },
          { expect: { tool_result_contains: "PATH=" }, ...WRITE_GREETING },
          DONE,
        ],
      },
    };
    const { server, project, env } = await setup(script, key, { AIR_E2E_SERVICE_TOKEN: other_secret });
    // `env` alone asks (an environment dump); a project script that runs it is announced and runs
    fs.writeFileSync(path.join(project, "show-env.sh"), "env\n");
    const run = new AirProcess(["run", "-p", fixture_requirement("worker"), "--permission-mode", "accept-edits"], { cwd: project, env });
    cleanups.push(() => run.kill());

    // While the worker runs (the command keeps it busy for a second at least), read the environments of
    // the runtime and of its worker from /proc.
    const has_proc = fs.existsSync("/proc/self/environ");
    let exited = false;
    void run.exit.then(() => (exited = true));
    const seen = !has_proc
      ? undefined
      : await wait_until("the worker to be running", () => {
          if (exited) throw new Error(`air run exited before its worker was seen\n${run.transcript}`);
          const id = session_ids(project)[0];
          if (id === undefined) return undefined;
          const [agent] =
            peek(session_files(project, id).db, (client) =>
              rows(client, "SELECT pid FROM agents WHERE status IN ('starting', 'running') AND pid IS NOT NULL"),
            ) ?? [];
          if (agent === undefined) return undefined;
          const worker = process_environment(Number(agent.pid));
          const runtime = process_environment(run.pid);
          return worker !== undefined && runtime !== undefined ? { worker, runtime } : undefined;
        });
    expect(await run.exit, run.transcript).toEqual({ code: 0, signal: null });

    if (seen === undefined) {
      console.warn("[e2e] no /proc on this system: the worker's environment was not inspected directly");
    } else {
      // The check means something: the runtime has the key and the other secret…
      expect(seen.runtime.ANTHROPIC_API_KEY).toBe(key);
      expect(seen.runtime.AIR_E2E_SERVICE_TOKEN).toBe(other_secret);
      // …and its worker has neither, nor any provider setting, under any name.
      expect(Object.keys(seen.worker).length).toBeGreaterThan(0);
      expect(seen.worker.PATH).toBe(seen.runtime.PATH);
      expect(Object.keys(seen.worker).filter((name) => /^ANTHROPIC_/i.test(name))).toEqual([]);
      expect(Object.entries(seen.worker).filter(([, value]) => value.includes(key) || value.includes(other_secret))).toEqual([]);
    }

    const requests = server.requests();
    // Every request carried the parent's key (the server refuses any other with a 401) and none was refused.
    expect(requests.length).toBe(4);
    for (const request of requests) {
      expect(request.headers["x-api-key"]).toBe(key);
      expect(request.outcome.kind).toBe("reply");
      // Nor did the key travel in a body (the `env` output went back to the model as a tool result).
      expect(JSON.stringify(request.body)).not.toContain(key);
      expect(JSON.stringify(request.body)).not.toContain(other_secret);
    }
    expect(requests.map((request) => request.requester)).toEqual(["main", "executor", "executor", "executor"]);

    // The model saw the registry's tools: same names (dots on the wire as dashes), descriptions and schemas.
    const registry = create_tool_registry();
    const internal = new Set(
      registry
        .list()
        .filter((tool) => tool.category === "internal")
        .map((tool) => tool.name),
    );
    const expected = registry
      .schemas()
      .filter((schema) => !internal.has(schema.name))
      .map((schema) => ({ name: wire_tool_name(schema.name), description: schema.description, input_schema: schema.input_schema }));
    expect(expected.map((tool) => tool.name)).toEqual([
      "fs-read",
      "fs-list",
      "fs-glob",
      "fs-grep",
      "fs-write",
      "fs-edit",
      "fs-patch",
      "shell-run",
      "git-status",
      "git-diff",
      "git-log",
      "git-show",
      "git-commit",
      "project-scan",
      "artifact-read",
    ]);
    for (const request of requests.filter((r) => r.requester === "executor")) expect(tools_of(request)).toEqual(expected);
    // The Main Agent classifies with its one tool; model.complete is offered to nobody.
    expect(tools_of(requests[0]!).map((tool) => tool.name)).toEqual(["classify_request"]);
    for (const request of requests) expect(tools_of(request).map((tool) => tool.name)).not.toContain("model-complete");

    // The shell's environment was scrubbed too: the `env` output kept as an artifact holds no secret.
    const id = only_session(project);
    const { db, artifacts } = session_files(project, id);
    const reader = open_readonly(db);
    cleanups.push(() => reader.close());
    const [env_run] = query(
      reader,
      "SELECT c.exit_code, a.path FROM command_runs c JOIN artifacts a ON a.id = c.stdout_artifact_id WHERE c.command = 'sleep 1; sh show-env.sh'",
    );
    expect(env_run?.exit_code).toBe(0);
    const env_output = fs.readFileSync(path.join(artifacts, String(env_run!.path)), "utf8");
    expect(env_output).toContain("PATH=");
    expect(env_output).not.toContain(key);
    expect(env_output).not.toContain(other_secret);
    expect(env_output).not.toMatch(/^ANTHROPIC_/m);
    expect(fs.readFileSync(path.join(project, "greeting.txt"), "utf8")).toBe("hello from air");
  });
});

describe("model errors do not crash the runtime", () => {
  it("retries 429, 529 and a broken stream with backoff, hands a schema-failing tool_use back as an error, and completes", async () => {
    const key = "sk-e2e-errors";
    const script: ScriptInput = {
      turns: {
        main: [{ error: { status: 429, retry_after_s: 0.2 } }, { error: { status: 529, retry_after_s: 0.2 } }, { broken_stream: true }, CLASSIFY],
        executor: [
          { reply: { content: [{ type: "tool_use", name: "fs.read", input: {} }] } },
          { expect: { tool_result_contains: "fails its schema" }, ...WRITE_GREETING },
          DONE,
        ],
      },
    };
    const { server, project, env } = await setup(script, key);
    const run = await air(["run", "-p", fixture_requirement("worker"), "--output-format", "json", "--permission-mode", "accept-edits"], { cwd: project, env });
    expect(run.result, run.transcript).toEqual({ code: 0, signal: null });
    expect(JSON.parse(run.stdout)).toMatchObject({ type: "result", code: 0, outcome: { kind: "executed", run: { status: "completed" } } });
    expect(fs.readFileSync(path.join(project, "greeting.txt"), "utf8")).toBe("hello from air");

    const requests = server.requests();
    expect(requests.map((request) => [request.requester, request.turn_index, request.outcome.kind])).toEqual([
      ["main", 0, "error"],
      ["main", 1, "error"],
      ["main", 2, "broken_stream"],
      ["main", 3, "reply"],
      ["executor", 0, "reply"],
      ["executor", 1, "reply"],
      ["executor", 2, "reply"],
    ]);
    expect(requests.slice(0, 2).map((request) => request.outcome)).toEqual([
      { kind: "error", status: 429, type: "rate_limit_error", in_stream: false },
      { kind: "error", status: 529, type: "overloaded_error", in_stream: false },
    ]);
    // A retry is the same request again.
    for (const retry of requests.slice(1, 4)) expect(retry.body).toEqual(requests[0]!.body);

    // The bad call went back to the model as an error tool_result carrying the registry's AirError.
    const [bad] = last_tool_results(requests[5]!);
    expect(bad?.is_error).toBe(true);
    expect(String(bad?.content)).toMatch(/^error \(tool_error\): input of fs\.read fails its schema/);

    const { db } = session_files(project, only_session(project));
    const reader = open_readonly(db);
    cleanups.push(() => reader.close());
    // One model.complete tool run for the classification, ok after the retries; the waits add up to the
    // two retry-afters (200 ms each) plus the exponential backoff before attempt 4 (at least 2 s).
    const [classification] = query(reader, "SELECT status, duration_ms FROM tool_runs WHERE tool_name = 'model.complete' AND agent_id IS NULL");
    expect(classification?.status).toBe("ok");
    expect(Number(classification?.duration_ms)).toBeGreaterThanOrEqual(2_400);
    // A schema failure is refused before tool.started (seeds 000 §9.1), so it leaves no tool run; the
    // AirError is durable in the conversation the next model.complete run sent.
    expect(query(reader, "SELECT id FROM tool_runs WHERE tool_name = 'fs.read'")).toEqual([]);
    const executor_calls = query(reader, "SELECT input_json FROM tool_runs WHERE tool_name = 'model.complete' AND agent_id IS NOT NULL ORDER BY started_at");
    expect(executor_calls).toHaveLength(3);
    const second = executor_calls[1]!.input_json as { messages: { role: string; content: unknown }[] };
    const results = (second.messages.at(-1)!.content as { type: string; is_error?: boolean; content: string }[]).filter(
      (block) => block.type === "tool_result",
    );
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ is_error: true });
    expect(results[0]!.content).toContain("error (tool_error): input of fs.read fails its schema");
    expect(query(reader, "SELECT status FROM tool_runs WHERE status <> 'ok'")).toEqual([]);
    expect(query(reader, "SELECT status FROM tasks")).toEqual([{ status: "completed" }]);
    expect(referential_check(reader)).toEqual({ ok: true, orphans: [] });
  });

  it("a model that keeps answering 400 ends the run with exit 1 and a clear provider_error, not a crash", async () => {
    const key = "sk-e2e-400";
    const refusal: TurnInput = { error: { status: 400, message: "messages: the request is malformed (scripted)" } };
    const { server, project, env } = await setup({ turns: { main: [refusal, refusal, refusal, refusal, refusal] } }, key);
    const run = await air(["run", "-p", fixture_requirement("worker"), "--output-format", "json", "--permission-mode", "accept-edits"], { cwd: project, env });
    expect(run.result, run.transcript).toEqual({ code: 1, signal: null });
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace: the runtime ended normally
    const result = JSON.parse(run.stdout) as {
      code: number;
      outcome: { kind: string; error: { kind: string; retryability: string; message: string; user_action?: string } };
      summary: string;
    };
    expect(result.code).toBe(1);
    expect(result.outcome.kind).toBe("failed");
    expect(result.outcome.error).toMatchObject({ kind: "provider_error", retryability: "not_retryable" });
    expect(result.outcome.error.message).toContain("400 invalid_request_error: messages: the request is malformed (scripted)");
    expect(result.outcome.error.user_action).toBeDefined();
    expect(result.summary).toContain("The request failed");
    // Not retryable: asked once.
    expect(server.requests().map((request) => [request.requester, request.outcome.kind])).toEqual([["main", "error"]]);

    const reader = open_readonly(session_files(project, only_session(project)).db);
    cleanups.push(() => reader.close());
    const runs = query(reader, "SELECT tool_name, status, error_json FROM tool_runs");
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ tool_name: "model.complete", status: "error", error_json: { kind: "provider_error", retryability: "not_retryable" } });
    expect(query(reader, "SELECT id FROM tasks")).toEqual([]);
    expect(referential_check(reader)).toEqual({ ok: true, orphans: [] });
  });
});

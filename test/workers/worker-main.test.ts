/**
 * The worker entry (src/workers/main.ts) seen from the parent's side of its pipes, without the bridge: what
 * it answers, and how it exits when the parent breaks the protocol.
 */
import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import path from "node:path";
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { new_id, type AgentId, type SessionId } from "../../src/contracts/ids.js";
import {
  make_ipc_message,
  MAX_LINE_BYTES,
  PROTOCOL_VERSION,
  WORKER_EXIT,
  type IpcKind,
  type IpcPayloadInputOf,
  type WorkerToParentMessage,
} from "../../src/contracts/ipc.js";
import { TaskSpec } from "../../src/contracts/task.js";
import { decode_line, encode_message } from "../../src/workers/protocol.js";
import { REPO_ROOT, TSX_LOADER } from "../fixtures/cli.js";
import { minimal_task_spec } from "../fixtures/events.js";

const WORKER_MAIN = path.join(REPO_ROOT, "src", "workers", "main.ts");

class WorkerUnderTest {
  readonly address = { session_id: new_id("session") as SessionId, agent_id: new_id("agent") as AgentId };
  readonly task = v.parse(TaskSpec, minimal_task_spec());
  readonly messages: WorkerToParentMessage[] = [];
  readonly raw: string[] = [];
  stderr = "";
  readonly exit: Promise<number | null>;
  readonly #process = spawn(process.execPath, ["--import", pathToFileURL(TSX_LOADER).href, WORKER_MAIN], { stdio: ["pipe", "pipe", "pipe"] });
  #waiters: Array<() => void> = [];

  constructor() {
    let partial = "";
    this.#process.stdout.setEncoding("utf8");
    this.#process.stdout.on("data", (chunk: string) => {
      const parts = (partial + chunk).split("\n");
      partial = parts.pop() ?? "";
      for (const line of parts) {
        this.raw.push(line);
        this.messages.push(decode_line(line, "worker_to_parent"));
      }
      for (const waiter of this.#waiters) waiter();
    });
    this.#process.stderr.setEncoding("utf8");
    this.#process.stderr.on("data", (chunk: string) => (this.stderr += chunk));
    this.#process.stdin.on("error", () => undefined);
    this.exit = new Promise((resolve) => this.#process.on("close", (code) => resolve(code)));
  }

  write(line: string): void {
    this.#process.stdin.write(line.endsWith("\n") ? line : `${line}\n`);
  }

  send<K extends IpcKind>(kind: K, payload: IpcPayloadInputOf<K>, correlation_id?: string): void {
    this.write(encode_message(make_ipc_message(kind, payload, this.address, correlation_id as never), "parent_to_worker"));
  }

  start(): void {
    this.send("control", {
      command: "agent.start",
      task: this.task,
      brief: { project_root: "/nonexistent", model_id: "scripted", max_turns: 3, tools: [], heartbeat_interval_ms: 60_000 },
    });
  }

  close_stdin(): void {
    this.#process.stdin.end();
  }

  /** The first message of `kind`, waiting for it if need be. */
  next<K extends WorkerToParentMessage["kind"]>(kind: K): Promise<Extract<WorkerToParentMessage, { kind: K }>> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.messages.find((message) => message.kind === kind);
        if (found !== undefined) {
          this.#waiters = this.#waiters.filter((waiter) => waiter !== check);
          resolve(found as Extract<WorkerToParentMessage, { kind: K }>);
        }
      };
      this.#waiters.push(check);
      check();
      void this.exit.then(() => setTimeout(() => reject(new Error(`exited before "${kind}"; stderr: ${this.stderr}`)), 50));
    });
  }

  kill(): void {
    if (this.#process.exitCode === null && this.#process.signalCode === null) this.#process.kill("SIGKILL");
  }
}

const running: WorkerUnderTest[] = [];
function worker(): WorkerUnderTest {
  const started = new WorkerUnderTest();
  running.push(started);
  return started;
}
afterEach(() => {
  for (const started of running.splice(0)) started.kill();
});

describe("the worker entry", () => {
  it("answers agent.start with worker.ready, then asks for model.complete as a tool.call", async () => {
    const w = worker();
    w.start();
    const ready = await w.next("worker.ready");
    expect(ready.payload).toEqual({ protocol_version: PROTOCOL_VERSION, worker_version: expect.any(String) });
    expect(ready).toMatchObject(w.address);
    const call = await w.next("tool.call");
    expect(call.payload.call.tool_name).toBe("model.complete");
    expect(call.correlation_id).toMatch(/^ipc_/);
    // Nothing but protocol lines on stdout.
    expect(w.raw.every((line) => line.startsWith("{"))).toBe(true);
  });

  it("finishes with worker.result and exit 0 once the model ends its turn", async () => {
    const w = worker();
    w.start();
    const call = await w.next("tool.call");
    w.send("tool.stream", { chunk: { kind: "text", index: 0, text: "Nothing " } }, call.correlation_id);
    w.send(
      "tool.result",
      {
        outcome: {
          ok: true,
          tool_run_id: new_id("tool_run"),
          output: {
            model_id: "scripted",
            content: [{ type: "text", text: "Nothing to do." }],
            stop_reason: "end_turn",
            usage: { input_tokens: 1, output_tokens: 1 },
          },
        },
      },
      call.correlation_id,
    );
    const result = await w.next("worker.result");
    expect(result.payload.result).toMatchObject({ status: "completed", task_id: w.task.id, agent_id: w.address.agent_id });
    expect(await w.exit).toBe(WORKER_EXIT.completed);
    expect(w.messages.some((message) => message.kind === "event")).toBe(true);
  });

  it("exits 4 after reporting a cancelled result when the parent cancels", async () => {
    const w = worker();
    w.start();
    await w.next("tool.call");
    w.send("control", { command: "cancel", reason: "stop" });
    const result = await w.next("worker.result");
    expect(result.payload.result.status).toBe("cancelled");
    expect(await w.exit).toBe(WORKER_EXIT.cancelled);
  });

  it("exits 2 on a first line that is not JSON, saying why on stderr (it has no address to answer to yet)", async () => {
    const w = worker();
    w.write("good morning");
    expect(await w.exit).toBe(WORKER_EXIT.protocol_error);
    expect(w.stderr).toContain("malformed_json");
    expect(w.raw).toEqual([]);
  });

  it("exits 2 when the first message is not agent.start", async () => {
    const w = worker();
    w.send("tool.stream", { chunk: "early" }, make_ipc_message("log", { level: "info", message: "x" }, w.address).id);
    expect(await w.exit).toBe(WORKER_EXIT.protocol_error);
    expect(w.stderr).toContain("expected the agent.start control");
  });

  it("exits 2 when stdin closes before agent.start", async () => {
    const w = worker();
    w.close_stdin();
    expect(await w.exit).toBe(WORKER_EXIT.protocol_error);
  });

  for (const [name, breach] of [
    ["garbage", (w: WorkerUnderTest) => w.write("{not json")],
    ["an over-long line", (w: WorkerUnderTest) => w.write("y".repeat(MAX_LINE_BYTES + 10))],
    [
      "a worker kind on the parent channel",
      (w: WorkerUnderTest) => w.write(JSON.stringify(make_ipc_message("log", { level: "info", message: "hi" }, w.address))),
    ],
    [
      "an answer to no call",
      (w: WorkerUnderTest) =>
        w.send(
          "tool.result",
          { outcome: { ok: true, tool_run_id: new_id("tool_run"), output: 1 } },
          make_ipc_message("log", { level: "info", message: "x" }, w.address).id,
        ),
    ],
    ["a second agent.start", (w: WorkerUnderTest) => w.start()],
  ] as const) {
    it(`sends protocol.error and exits 2 on ${name} after the handshake`, async () => {
      const w = worker();
      w.start();
      await w.next("tool.call");
      breach(w);
      const error = await w.next("protocol.error");
      expect(error.payload.message.length).toBeGreaterThan(0);
      expect(await w.exit).toBe(WORKER_EXIT.protocol_error);
    });
  }

  it("leaves as cancelled (4) when the parent's end of stdin closes mid-run", async () => {
    const w = worker();
    w.start();
    await w.next("tool.call");
    w.close_stdin();
    expect(await w.exit).toBe(WORKER_EXIT.cancelled);
  });
});

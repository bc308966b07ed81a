import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { AirFailure } from "../../src/contracts/errors.js";
import { new_id, type AgentId, type SessionId } from "../../src/contracts/ids.js";
import {
  direction_of,
  IpcMessage,
  make_ipc_message,
  MAX_LINE_BYTES,
  PARENT_TO_WORKER_KINDS,
  PROTOCOL_VERSION,
  WORKER_EXIT,
  type IpcProtocolErrorCode,
  WORKER_TO_PARENT_KINDS,
  worker_exit_name,
} from "../../src/contracts/ipc.js";
import { TaskSpec } from "../../src/contracts/task.js";
import { decode_line, encode_message, IpcProtocolError, LineSplitter } from "../../src/workers/protocol.js";
import { task_spec } from "../fixtures/events.js";
import { thrown_by } from "../fixtures/failures.js";

const address = { session_id: new_id("session") as SessionId, agent_id: new_id("agent") as AgentId };

const start_brief = { project_root: "/tmp/project", model_id: "scripted", max_turns: 4, tools: [] };

function start_message() {
  return make_ipc_message("control", { command: "agent.start", task: v.parse(TaskSpec, task_spec()), brief: start_brief }, address);
}

function line_of(message: unknown): string {
  return JSON.stringify(message);
}

function protocol_error(work: () => unknown): IpcProtocolError {
  const error = thrown_by(work, "a protocol error");
  expect(error).toBeInstanceOf(IpcProtocolError);
  return error as IpcProtocolError;
}

function expect_code(work: () => unknown, code: IpcProtocolErrorCode): IpcProtocolError {
  const error = protocol_error(work);
  expect(error.code).toBe(code);
  return error;
}

describe("IPC contract", () => {
  it("names exit codes 0–5 as the seeds do (D-039)", () => {
    expect(WORKER_EXIT).toEqual({
      completed: 0,
      uncaught_exception: 1,
      protocol_error: 2,
      permission_error: 3,
      cancelled: 4,
      hard_timeout: 5,
    });
    expect(worker_exit_name(2)).toBe("protocol_error");
    expect(worker_exit_name(5)).toBe("hard_timeout");
    expect(worker_exit_name(9)).toBeUndefined();
  });

  it("assigns every kind exactly one direction", () => {
    for (const kind of PARENT_TO_WORKER_KINDS) expect(direction_of(kind)).toBe("parent_to_worker");
    for (const kind of WORKER_TO_PARENT_KINDS) expect(direction_of(kind)).toBe("worker_to_parent");
    expect(IpcMessage.options.map((option) => option.entries.kind.literal).sort()).toEqual([...PARENT_TO_WORKER_KINDS, ...WORKER_TO_PARENT_KINDS].sort());
  });

  it("builds envelopes at the current protocol version with fresh ids", () => {
    const a = make_ipc_message("log", { level: "info", message: "hi" }, address);
    const b = make_ipc_message("log", { level: "info", message: "hi" }, address, a.id);
    expect(a).toMatchObject({ direction: "worker_to_parent", kind: "log", protocol_version: PROTOCOL_VERSION, ...address });
    expect(a.id).toMatch(/^ipc_[0-9A-Z]{26}$/);
    expect(b.id).not.toBe(a.id);
    expect(b.correlation_id).toBe(a.id);
    expect("correlation_id" in a).toBe(false);
  });
});

describe("encode / decode", () => {
  it("round-trips a message of every kind, one line each", () => {
    const outcome = { ok: true as const, tool_run_id: new_id("tool_run"), output: { text: "HI" } };
    const correlation = make_ipc_message("tool.call", { call: { tool_name: "text.upper", input: { text: "hi" } } }, address).id;
    const parent_side = [
      start_message(),
      make_ipc_message("control", { command: "cancel", reason: "user pressed ctrl-c" }, address),
      make_ipc_message("tool.result", { outcome }, address, correlation),
      make_ipc_message("tool.stream", { chunk: { kind: "text", index: 0, text: "he" } }, address, correlation),
    ];
    const worker_side = [
      make_ipc_message("worker.ready", { protocol_version: PROTOCOL_VERSION, worker_version: "0.1.0" }, address),
      make_ipc_message("event", { type: "anything.goes", payload: { the: "ingestor validates it" } }, address),
      make_ipc_message("log", { level: "warn", message: "careful", data: { n: 1 } }, address),
      make_ipc_message("tool.call", { call: { tool_name: "text.upper", input: { text: "hi" } } }, address, correlation),
      make_ipc_message("worker.checkpoint", { data: { turn: 3 } }, address),
      make_ipc_message("protocol.error", { message: "bad line" }, address),
    ];
    for (const message of parent_side) {
      const line = encode_message(message, "parent_to_worker");
      expect(line.endsWith("\n")).toBe(true);
      expect(line.slice(0, -1)).not.toContain("\n");
      expect(decode_line(line.slice(0, -1), "parent_to_worker")).toEqual(message);
    }
    for (const message of worker_side) {
      const line = encode_message(message, "worker_to_parent");
      expect(decode_line(line.slice(0, -1), "worker_to_parent")).toEqual(message);
    }
  });

  it("refuses a line that is not JSON", () => {
    const error = expect_code(() => decode_line("hello from a worker", "worker_to_parent"), "malformed_json");
    expect(error).toBeInstanceOf(AirFailure);
    expect(error.error.kind).toBe("agent_error");
    expect(error.error.metadata).toMatchObject({ protocol_error: "malformed_json" });
    expect(error.message).toContain("hello from a worker");
  });

  it("refuses a message that fails its schema, naming the kind", () => {
    const message = make_ipc_message("log", { level: "info", message: "hi" }, address);
    expect_code(() => decode_line(line_of({ ...message, payload: { level: "loud", message: "hi" } }), "worker_to_parent"), "invalid_message");
    expect_code(() => decode_line(line_of({ ...message, kind: "telepathy" }), "worker_to_parent"), "invalid_message");
    expect_code(() => decode_line(line_of({ ...message, agent_id: "not-an-agent" }), "worker_to_parent"), "invalid_message");
    expect_code(() => decode_line(line_of([1, 2, 3]), "worker_to_parent"), "invalid_message");
    const extra = expect_code(() => decode_line(line_of({ ...message, secret: "x" }), "worker_to_parent"), "invalid_message");
    expect(extra.message).toContain('"log"');
  });

  it("refuses a message on the wrong channel", () => {
    const call = make_ipc_message("tool.call", { call: { tool_name: "fs.read", input: {} } }, address);
    expect_code(() => decode_line(line_of(call), "parent_to_worker"), "wrong_direction");
    // A parent kind that claims to travel worker→parent.
    const forged = { ...start_message(), direction: "worker_to_parent" };
    expect_code(() => decode_line(line_of(forged), "worker_to_parent"), "wrong_direction");
    expect_code(() => decode_line(line_of(forged), "parent_to_worker"), "wrong_direction");
    expect_code(() => encode_message(call, "parent_to_worker"), "wrong_direction");
  });

  it("refuses another protocol version", () => {
    const message = { ...make_ipc_message("log", { level: "info", message: "hi" }, address), protocol_version: PROTOCOL_VERSION + 1 };
    const error = expect_code(() => decode_line(line_of(message), "worker_to_parent"), "version_mismatch");
    expect(error.error.metadata).toMatchObject({ received: PROTOCOL_VERSION + 1, expected: PROTOCOL_VERSION });
    expect(decode_line(line_of(message), "worker_to_parent", { protocol_version: PROTOCOL_VERSION + 1 })).toEqual(message);
  });

  it("refuses lines over the size limit, both ways, counting UTF-8 bytes", () => {
    const big = make_ipc_message("log", { level: "info", message: "x".repeat(MAX_LINE_BYTES) }, address);
    expect_code(() => encode_message(big, "worker_to_parent"), "line_too_long");
    expect_code(() => decode_line(line_of(big), "worker_to_parent"), "line_too_long");
    // 200 three-byte characters are 600 bytes, not 200.
    const small = make_ipc_message("log", { level: "info", message: "€".repeat(200) }, address);
    const bytes = Buffer.byteLength(line_of(small));
    expect(() => decode_line(line_of(small), "worker_to_parent", { max_line_bytes: bytes })).not.toThrow();
    expect_code(() => decode_line(line_of(small), "worker_to_parent", { max_line_bytes: bytes - 1 }), "line_too_long");
  });

  it("refuses to send an invalid message", () => {
    expect_code(() => encode_message({ kind: "log" }, "worker_to_parent"), "invalid_message");
  });
});

describe("LineSplitter", () => {
  function split(chunks: Array<string | Buffer>, limit = 64) {
    const lines: string[] = [];
    const overflows: number[] = [];
    const splitter = new LineSplitter({ line: (line) => lines.push(line), overflow: (bytes) => overflows.push(bytes) }, limit);
    for (const chunk of chunks) splitter.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    splitter.end();
    return { lines, overflows };
  }

  it("joins lines across chunks and splits several lines in one chunk", () => {
    expect(split(['{"a":', '1}\n{"b":2}\n{"c"', ":3}\n"]).lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it("keeps a multi-byte character split between chunks intact", () => {
    const bytes = Buffer.from("héllo €uro\n");
    expect(split([bytes.subarray(0, 2), bytes.subarray(2, 9), bytes.subarray(9)]).lines).toEqual(["héllo €uro"]);
  });

  it("drops CR of CRLF and blank lines, and delivers a last line without newline at the end", () => {
    expect(split(["one\r\n\n\ntwo"]).lines).toEqual(["one", "two"]);
  });

  it("reports an over-long line once, skips it to its newline, and goes on with the next", () => {
    const { lines, overflows } = split(["short\n", "y".repeat(40), "y".repeat(40), "y".repeat(40), "\nafter\n"], 64);
    expect(lines).toEqual(["short", "after"]);
    expect(overflows).toHaveLength(1);
    expect(overflows[0]).toBeGreaterThan(64);
  });

  it("accepts a line of exactly the limit", () => {
    expect(split(["z".repeat(64) + "\n"], 64)).toEqual({ lines: ["z".repeat(64)], overflows: [] });
  });
});

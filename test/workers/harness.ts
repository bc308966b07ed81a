/**
 * Real worker runs for tests: a temp session, the worker-run machine with its real I/O, real worker
 * processes (src/workers/main.ts through tsx, or a fixture worker), and a tool caller implemented here —
 * a scripted `model.complete`, a file-writing `fs.write`, a `text.upper`, and a `shell.run` that runs bash.
 */
import type { AgentType } from "../../src/contracts/worker-result.js";
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import * as v from "valibot";
import { createActor, toPromise, type SimulatedClock } from "xstate";
import type { WorkerEntry, WorkerLogEntry, WorkerServices, WorkerToolCaller } from "../../src/actors/worker-bridge/index.js";
import { worker_run_logic } from "../../src/actors/worker-run.js";
import { make_air_error } from "../../src/contracts/errors.js";
import { make_event, type RuntimeEvent } from "../../src/contracts/events/registry.js";
import { new_id, type AgentId } from "../../src/contracts/ids.js";
import type { AgentBrief } from "../../src/contracts/ipc.js";
import { ModelRequest, type ContentBlock, type ModelResponse } from "../../src/contracts/provider.js";
import { TaskSpec, type TaskSpecInput } from "../../src/contracts/task.js";
import type { ToolCall, ToolSchema } from "../../src/contracts/tool.js";
import type { WorkerRunDelays } from "../../src/machines/worker-run.js";
import type { WorkerRunOutcome } from "../../src/machines/worker-run-settlement.js";
import { REPO_ROOT, TSX_LOADER } from "../fixtures/cli.js";
import { minimal_task_spec } from "../fixtures/events.js";
import { find_row, find_rows, open_temp_session, type Row, type TempSession } from "../fixtures/session.js";

const exec = promisify(execFile);

// ---------------------------------------------------------------------------------------------------
// A scripted model
// ---------------------------------------------------------------------------------------------------

export type ModelTurn = (request: ModelRequest) => ModelResponse;

const USAGE = { input_tokens: 10, output_tokens: 5 };

export function says(text: string): ModelResponse {
  return { model_id: "scripted", content: [{ type: "text", text }], stop_reason: "end_turn", usage: USAGE };
}

export function calls(tool: string, input: Record<string, unknown>, text = `calling ${tool}`): ModelResponse {
  return {
    model_id: "scripted",
    content: [
      { type: "text", text },
      { type: "tool_use", id: `toolu_${Math.random().toString(36).slice(2, 10)}`, name: tool, input },
    ],
    stop_reason: "tool_use",
    usage: USAGE,
  };
}

/** The tool_result blocks the worker sent in the last user message of a request. */
export function tool_results_of(request: ModelRequest): ContentBlock[] {
  const last = request.messages.at(-1);
  return last === undefined || typeof last.content === "string" ? [] : last.content.filter((block) => block.type === "tool_result");
}

// ---------------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------------

const TOOL_SCHEMAS: ToolSchema[] = [
  {
    name: "text.upper",
    description: "Upper-cases a text.",
    input_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  {
    name: "fs.write",
    description: "Writes a file of the project.",
    input_schema: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path", "content"] },
  },
];

export type ToolLog = { call: ToolCall; model_requests: ModelRequest[] };

/**
 * A tool caller with real effects in `root`, reported as the registry reports them (`effects` beside the output).
 * `model.complete` answers from `script` turn by turn (the last turn repeats) and streams each text block back
 * as deltas first.
 */
export function test_tools(root: string, script: readonly ModelTurn[], log: ToolLog[] = [], model_delay_ms = 0): WorkerToolCaller {
  const requests: ModelRequest[] = [];
  return async (call, _context, on_stream) => {
    log.push({ call, model_requests: requests });
    const tool_run_id = new_id("tool_run");
    switch (call.tool_name) {
      case "model.complete": {
        const request = v.parse(ModelRequest, call.input);
        requests.push(request);
        const turn = script[Math.min(requests.length, script.length) - 1];
        if (turn === undefined) throw new Error("the model script is empty");
        if (model_delay_ms > 0) await new Promise((resolve) => setTimeout(resolve, model_delay_ms));
        const response = turn(request);
        response.content.forEach((block, index) => {
          if (block.type === "text" && typeof block.text === "string") on_stream({ kind: "text", index, text: block.text });
        });
        return { ok: true, tool_run_id, output: response };
      }
      case "text.upper":
        return { ok: true, tool_run_id, output: String(call.input.text).toUpperCase() };
      case "fs.write": {
        const relative = String(call.input.path);
        fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
        fs.writeFileSync(path.join(root, relative), String(call.input.content));
        const diff_artifact_id = new_id("artifact");
        return {
          ok: true,
          tool_run_id,
          output: { path: relative, bytes: String(call.input.content).length, diff_artifact_id },
          effects: { changed_files: [relative], diff_artifact_ids: [diff_artifact_id], command_runs: [], commits: [] },
        };
      }
      case "shell.run": {
        const started = Date.now();
        const command = String(call.input.command);
        const exit_code = await exec("bash", ["--noprofile", "--norc", "-c", command], { cwd: root }).then(
          () => 0,
          (error: { code?: number }) => (typeof error.code === "number" ? error.code : 1),
        );
        const command_run = { command_run_id: new_id("command_run"), command, exit_code, duration_ms: Date.now() - started };
        return {
          ok: true,
          tool_run_id,
          output: { exit_code, duration_ms: command_run.duration_ms },
          effects: { changed_files: [], diff_artifact_ids: [], command_runs: [command_run], commits: [] },
        };
      }
      // A tool that judges its own result, as `cpp.build` does: it fails when the file is missing.
      case "file.check": {
        const relative = String(call.input.path);
        if (fs.existsSync(path.join(root, relative))) return { ok: true, tool_run_id, output: { path: relative } };
        return { ok: false, tool_run_id, error: make_air_error({ kind: "tool_error", message: `${relative} does not exist` }) };
      }
      default:
        return { ok: false, tool_run_id, error: make_air_error({ kind: "tool_error", message: `no tool ${call.tool_name}` }) };
    }
  };
}

// ---------------------------------------------------------------------------------------------------
// Runs
// ---------------------------------------------------------------------------------------------------

const FIXTURE_WORKER = path.join(REPO_ROOT, "test", "fixtures", "workers", "misbehaving-worker.ts");

/** A fixture worker in `mode` instead of the real one. */
export function fixture_entry(mode: string): WorkerEntry {
  return { command: process.execPath, args: ["--import", pathToFileURL(TSX_LOADER).href, FIXTURE_WORKER, mode] };
}

export type WorkerRunActor = ReturnType<typeof createActor<ReturnType<typeof worker_run_logic>>>;

export type RunOptions = {
  task?: Partial<TaskSpecInput>;
  brief?: Partial<AgentBrief>;
  script?: readonly ModelTurn[];
  model_delay_ms?: number;
  services?: Partial<Omit<WorkerServices, "session">>;
  /** The run's grace periods and handshake timeout (default here: graces of 500 ms). */
  delays?: Partial<WorkerRunDelays>;
  /** The actor's clock (default: real time); a `SimulatedClock` lets a test decide when the run's delays pass. */
  clock?: SimulatedClock;
  /** The attempt's work survives its worker (`WorkerRunInput.resumable`). */
  resumable?: boolean;
  /** Called once the actor runs (e.g. to cancel it). */
  started?: (actor: WorkerRunActor) => void;
  /** The agent's id (default: a new one). */
  agent_id?: AgentId;
  /** The role to run when it is not the task type's (`WorkerRunInput.agent_type`). */
  agent_type?: AgentType;
};

/** A run under way: its actor, and what it has logged and been through so far. */
export type StartedRun = {
  readonly actor: WorkerRunActor;
  readonly agent_id: AgentId;
  readonly logs: readonly WorkerLogEntry[];
  readonly states: readonly string[];
  readonly report: Promise<RunReport>;
};

export type RunReport = {
  readonly output: WorkerRunOutcome;
  readonly agent_id: AgentId;
  readonly task: TaskSpec;
  readonly logs: WorkerLogEntry[];
  readonly tools: ToolLog[];
  readonly ephemeral: RuntimeEvent[];
  /** The agents row, `*_json` columns decoded. */
  readonly agent: Row;
  /** Durable events about the agent, in order. */
  readonly agent_events: Row[];
  readonly states: string[];
};

export class WorkerHarness {
  readonly temp: TempSession;
  readonly root: string;

  constructor() {
    this.temp = open_temp_session();
    this.root = this.temp.project.layout.root;
  }

  get session() {
    return this.temp.session;
  }

  /** Runs one worker to its end: task.created first (so the agent row's task exists), then the machine. */
  run(options: RunOptions = {}): Promise<RunReport> {
    return this.start(options).report;
  }

  /** Starts one worker run and hands back its actor at once; `report` settles when the run has ended. */
  start(options: RunOptions = {}): StartedRun {
    // Timeouts far beyond a run's length on a loaded machine, unless a test is about them.
    const constraints = { max_turns: 5, soft_timeout_ms: 60_000, hard_timeout_ms: 120_000, retry_budget: 1, model_policy: "agent_select" as const };
    const task = v.parse(TaskSpec, minimal_task_spec({ title: "worker test task", constraints, ...options.task }));
    this.session.ingestor.ingest(make_event("task.created", { task }, this.session.origin));
    const agent_id = options.agent_id ?? new_id("agent");
    const logs: WorkerLogEntry[] = [];
    const tools: ToolLog[] = [];
    const ephemeral: RuntimeEvent[] = [];
    const unsubscribe = this.session.bus.subscribe({ agent_id }, (event) => ephemeral.push(event));
    const brief: AgentBrief = {
      project_root: this.root,
      model_id: "scripted",
      max_turns: 8,
      tools: TOOL_SCHEMAS,
      heartbeat_interval_ms: 50,
      ...options.brief,
    };
    const services: WorkerServices = {
      session: this.session,
      call_tool: test_tools(this.root, options.script ?? [() => says("nothing to do")], tools, options.model_delay_ms),
      heartbeat_write_interval_ms: 0,
      on_log: (entry) => logs.push(entry),
      ...options.services,
    };
    // The fixture workers send no heartbeats: only the tests of the liveness watch give it a timeout to notice.
    const delays = { kill_grace_ms: 500, cancel_grace_ms: 500, heartbeat_timeout_ms: 600_000, ...options.delays };
    const actor = createActor(worker_run_logic(services), {
      input: {
        agent_id,
        task,
        brief,
        delays,
        ...(options.resumable === undefined ? {} : { resumable: options.resumable }),
        ...(options.agent_type === undefined ? {} : { agent_type: options.agent_type }),
      },
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
    const states: string[] = [];
    actor.subscribe((snapshot) => {
      const value = JSON.stringify(snapshot.value);
      if (states.at(-1) !== value) states.push(value);
    });
    actor.start();
    options.started?.(actor);
    const report = toPromise(actor).then((output): RunReport => {
      this.session.bus.drain();
      unsubscribe();
      return { output, agent_id, task, logs, tools, ephemeral, ...this.agent_rows(agent_id), states };
    });
    return { actor, agent_id, logs, states, report };
  }

  /** The agent's row and its durable lifecycle events, as the session DB holds them now. */
  agent_rows(agent_id: AgentId): { agent: Row; agent_events: Row[] } {
    const connection = this.session.connection;
    return {
      agent: find_row(connection, "agents", agent_id) ?? {},
      // The lifecycle: the agent's conversation messages carry its id too, and are not part of it.
      agent_events: find_rows(connection, "events", agent_id, "agent_id").filter((row) => String(row.type).startsWith("agent.")),
    };
  }

  cleanup(): void {
    this.temp.cleanup();
  }
}

export function event_types(rows: readonly Row[]): string[] {
  return rows.map((row) => String(row.type));
}

export function payload_of(row: Row | undefined): Record<string, unknown> {
  return (row?.payload_json ?? {}) as Record<string, unknown>;
}

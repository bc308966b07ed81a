/**
 * `--output-format stream-json`: a run's events told as Claude Code tells a `claude -p` run (the shapes are in
 * stream-json-messages.ts). The conversation is what the session records: the Main Agent's messages, and each
 * worker's messages to and from its model. A worker is shown as Claude Code shows a subagent: the Main Agent
 * hands it its task as a `Task` tool_use whose id is the agent's id, every message of the worker carries that
 * id as `parent_tool_use_id`, and the agent's end is that tool_use's tool_result (its summary, or its error).
 * The user's own prompt is not echoed, as Claude Code does not echo it.
 */
import { randomUUID } from "node:crypto";
import type { EventBus } from "../event-store/event-bus.js";
import type { RuntimeEvent } from "../contracts/events/registry.js";
import type { RequestOutcome } from "../machines/main-agent.js";
import {
  assistant_line,
  blocks_of,
  init_line,
  NO_USAGE,
  tool_result,
  user_line,
  type InitFacts,
  type ResultLine,
  type ResultSubtype,
  type StreamLine,
} from "./stream-json-messages.js";
import { ModelTally } from "./stream-json-tally.js";

/** How the request ended, as the run tells it. */
export type RunEnd = { readonly code: number; readonly outcome: RequestOutcome; readonly summary: string };

export type StreamJson = {
  /** Writes the `result` line. */
  finish(end: RunEnd): void;
  stop(): void;
};

/** What the Main Agent handed a worker: its task's title and brief, and the turns it may take. */
type Handed = { readonly title: string; readonly description: string; readonly max_turns: number };

const DENIED = new Set(["block", "deny", "refuse"]);

/** Ties a run's events to the stream's lines; `write` takes one line of NDJSON at a time. */
class StreamJsonFollower {
  readonly #tally: ModelTally;
  readonly #tasks = new Map<string, Handed>();
  /** Agents whose `Task` tool_use has been written, and whether its tool_result has. */
  readonly #agents = new Map<string, { task_id: string | undefined; ended: boolean }>();
  readonly #denials: ResultLine["permission_denials"] = [];
  #turns_ran_out = false;

  constructor(
    private readonly facts: InitFacts,
    private readonly started_at: number,
    private readonly write: (line: StreamLine) => void,
  ) {
    this.#tally = new ModelTally(facts.model);
    write(init_line(facts));
  }

  observe(event: RuntimeEvent): void {
    this.#tally.observe(event);
    switch (event.type) {
      case "task.created": {
        const { task } = event.payload;
        this.#tasks.set(task.id, { title: task.title, description: task.description, max_turns: task.constraints.max_turns });
        return;
      }
      case "agent.started":
        this.#parent_of(event.payload.agent_id, event.payload.task_id, event.payload.agent_type);
        return;
      case "assistant.message.created": {
        const { payload } = event;
        this.write(
          assistant_line(this.facts.session_id, this.#parent_of(payload.agent_id, payload.task_id), {
            message_id: payload.message_id,
            model: payload.model_id ?? this.facts.model,
            content: blocks_of(payload.content),
            stop_reason: payload.stop_reason ?? null,
            usage: { ...NO_USAGE, ...payload.usage },
          }),
        );
        return;
      }
      case "user.message.created":
        if (event.source.kind === "user") return;
        this.write(user_line(this.facts.session_id, this.#parent_of(event.payload.agent_id, event.payload.task_id), blocks_of(event.payload.content)));
        return;
      case "agent.completed": {
        const result = event.payload.worker_result;
        if (result?.status === "blocked" && this.#ran_out_of_turns(event.payload.agent_id)) this.#turns_ran_out = true;
        this.#end_agent(event.payload.agent_id, result?.summary ?? "The agent ended without a result.", result !== undefined && result.status !== "completed");
        return;
      }
      case "agent.failed":
        this.#end_agent(event.payload.agent_id, event.payload.error.message, true);
        return;
      case "agent.lost":
      case "agent.cancelled":
        this.#end_agent(event.payload.agent_id, event.payload.reason, true);
        return;
      case "permission.decision.recorded":
        if (DENIED.has(event.payload.action)) {
          this.#denials.push({ tool_name: event.payload.tool_name, tool_use_id: event.payload.tool_run_id ?? event.payload.decision_id, tool_input: {} });
        }
        return;
      default:
        return;
    }
  }

  finish(end: RunEnd): void {
    const subtype: ResultSubtype = end.code === 0 ? "success" : this.#turns_ran_out ? "error_max_turns" : "error_during_execution";
    const tally = this.#tally;
    this.write({
      type: "result",
      subtype,
      uuid: randomUUID(),
      session_id: this.facts.session_id,
      is_error: end.code !== 0,
      duration_ms: Math.round(performance.now() - this.started_at),
      duration_api_ms: Math.round(tally.api_ms),
      num_turns: tally.turns,
      result: end.summary,
      ...(end.code === 0 ? {} : { errors: [end.outcome.kind === "failed" ? end.outcome.error.message : end.summary] }),
      total_cost_usd: tally.cost_usd,
      usage: { ...tally.usage },
      modelUsage: tally.by_model,
      permission_denials: this.#denials,
    });
  }

  /** A turn budget spent: the agent took every turn its task allowed. */
  #ran_out_of_turns(agent_id: string): boolean {
    const task_id = this.#agents.get(agent_id)?.task_id;
    const handed = task_id === undefined ? undefined : this.#tasks.get(task_id);
    return handed !== undefined && this.#tally.turns_of(agent_id) >= handed.max_turns;
  }

  /**
   * The `parent_tool_use_id` of an agent's message: its agent's `Task` tool_use, written first when this is
   * the first the stream hears of the agent. The Main Agent's messages have none.
   */
  #parent_of(agent_id: string | undefined, task_id: string | undefined, agent_type?: string): string | null {
    if (agent_id === undefined) return null;
    if (this.#agents.has(agent_id)) return agent_id;
    this.#agents.set(agent_id, { task_id, ended: false });
    const handed = task_id === undefined ? undefined : this.#tasks.get(task_id);
    const input = {
      description: handed?.title ?? task_id ?? agent_id,
      prompt: handed?.description ?? "",
      subagent_type: agent_type ?? "executor",
    };
    this.write(
      assistant_line(this.facts.session_id, null, {
        message_id: `msg_${agent_id}`,
        model: this.facts.model,
        content: [{ type: "tool_use", id: agent_id, name: "Task", input }],
        stop_reason: "tool_use",
        usage: { ...NO_USAGE },
      }),
    );
    return agent_id;
  }

  #end_agent(agent_id: string, content: string, is_error: boolean): void {
    const agent = this.#agents.get(agent_id);
    if (agent === undefined || agent.ended) return;
    agent.ended = true;
    this.write(user_line(this.facts.session_id, null, [tool_result(agent_id, content, is_error)]));
  }
}

/**
 * Streams the run as Claude Code's stream-json: the `init` line at once, then a line per message.
 * `started_at` (`performance.now()`) is when the run began, for the result's `duration_ms`.
 */
export function follow_stream_json(bus: EventBus, facts: InitFacts, started_at: number, write: (text: string) => void): StreamJson {
  const follower = new StreamJsonFollower(facts, started_at, (line) => write(`${JSON.stringify(line)}\n`));
  const stop = bus.subscribe({}, (event) => follower.observe(event));
  return {
    finish: (end) => {
      stop();
      follower.finish(end);
    },
    stop,
  };
}

/**
 * Event scripts for projection tests: real events ingested into a real session (the write path, the bus),
 * built from the valid cases of test/fixtures/events.ts.
 */
import { definition_of, EVENT_TYPES, make_event, type DurableEventType } from "../../src/contracts/events/registry.js";
import { new_id } from "../../src/contracts/ids.js";
import type { Session } from "../../src/project/session-manager.js";
import { clock, ingest_steps, step, valid_payloads, type CaseContext, type Step } from "../fixtures/events.js";

const DURABLE_TYPES = EVENT_TYPES.filter((type): type is DurableEventType => definition_of(type).persistence === "durable");

export function case_context(session: Session): CaseContext {
  return { project_id: session.project.file.project_id, session_id: session.id };
}

/**
 * One valid event of every durable type with what it needs first — `session.created` left out (the session
 * exists) and the session's archiving and deletion last, since they end it.
 */
export function every_durable_event(ctx: CaseContext): Step[] {
  const ending: DurableEventType[] = ["session.archived", "session.deleted"];
  const steps: Step[] = [];
  for (const type of DURABLE_TYPES) {
    if (type === "session.created" || ending.includes(type)) continue;
    const made = valid_payloads[type](ctx);
    steps.push(...made.prerequisites, step(type, made.payload as never));
  }
  const deleted = valid_payloads["session.deleted"](ctx);
  return [...steps, ...deleted.prerequisites, step("session.deleted", deleted.payload)];
}

/**
 * A worker's turn and a Main Agent answer with token usage: a `model.complete` run whose output is a
 * model response, and a final assistant message of the Main Agent.
 */
export function usage_steps(): Step[] {
  const tool_run_id = new_id("tool_run");
  const message_id = new_id("message");
  return [
    step("tool.started", { tool_run_id, tool_name: "model.complete", tool_version: 1, input: { purpose: "task_execution", messages: [] } }),
    step("tool.completed", {
      tool_run_id,
      output: { model_id: "model-small", content: [{ type: "text", text: "done" }], stop_reason: "end_turn", usage: { input_tokens: 500, output_tokens: 40 } },
      duration_ms: 812.4,
    }),
    step("assistant.message.started", { message_id, model_id: "model-large" }),
    step("assistant.message.created", {
      message_id,
      content: [
        { type: "text", text: "The tests pass now." },
        { type: "tool_use", id: "toolu_1", name: "fs.read", input: { path: "src/a.ts" } },
      ],
      model_id: "model-large",
      stop_reason: "tool_use",
      usage: { input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 3000 },
    }),
  ];
}

export function ingest_all(session: Session, steps: readonly Step[]): void {
  ingest_steps(session.ingestor, steps, session.origin, clock());
}

/** Publishes one ephemeral event through the session's ingestor (validated, then to the bus). */
export function live<K extends Parameters<typeof make_event>[0]>(session: Session, type: K, payload: Parameters<typeof make_event<K>>[1]): void {
  session.ingestor.ingest(make_event(type, payload, session.origin));
}

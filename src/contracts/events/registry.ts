import * as v from "valibot";
import { air_failure } from "../errors.js";
import { new_id, now_iso, type ProjectId, type SessionId } from "../ids.js";
import { agent_events } from "./agent.js";
import { architecture_events } from "./architecture.js";
import { artifact_events } from "./artifact.js";
import { budget_events } from "./budget.js";
import { capability_events } from "./capability.js";
import { context_events } from "./context.js";
import type { EventDefinition } from "./define.js";
import { doctor_events } from "./doctor.js";
import { EventEnvelope, type EventSource } from "./envelope.js";
import { hud_events } from "./hud.js";
import { memory_events } from "./memory.js";
import { message_events } from "./message.js";
import { permission_events } from "./permission.js";
import { plan_events } from "./plan.js";
import { restore_events } from "./restore.js";
import { review_events } from "./review.js";
import { session_events } from "./session.js";
import { snapshot_events } from "./snapshot.js";
import { task_events } from "./task.js";
import { command_events, tool_events } from "./tool.js";
import { wave_events } from "./wave.js";
import { workspace_events } from "./workspace.js";

/**
 * Every event air knows, with its current version, persistence policy and payload schema
 * (seeds 000 §5.4, 003 §9.1, 001 D-040). A payload change is a new version (003 §9.1 rule 4).
 */
export const EVENT_REGISTRY = {
  ...session_events,
  ...message_events,
  ...agent_events,
  ...task_events,
  ...plan_events,
  ...tool_events,
  ...command_events,
  ...artifact_events,
  ...context_events,
  ...permission_events,
  ...doctor_events,
  ...architecture_events,
  ...workspace_events,
  ...memory_events,
  ...capability_events,
  ...hud_events,
  ...budget_events,
  ...wave_events,
  ...review_events,
  ...snapshot_events,
  ...restore_events,
} as const satisfies Record<string, EventDefinition>;

type Registry = typeof EVENT_REGISTRY;
export type EventType = keyof Registry;
export type DurableEventType = {
  [K in EventType]: Registry[K]["persistence"] extends "durable" ? K : never;
}[EventType];
export type EphemeralEventType = Exclude<EventType, DurableEventType>;
export type PayloadOf<T extends EventType> = v.InferOutput<Registry[T]["payload"]>;
export type PayloadInputOf<T extends EventType> = v.InferInput<Registry[T]["payload"]>;

type EnvelopeFields = Omit<EventEnvelope, "type" | "payload">;

/** A validated event: `payload` is typed by `type`. */
export type RuntimeEvent<T extends EventType = EventType> = {
  [K in T]: EnvelopeFields & { readonly type: K; readonly payload: PayloadOf<K> };
}[T];
export type DurableEvent = RuntimeEvent<DurableEventType>;

export const EVENT_TYPES = Object.keys(EVENT_REGISTRY) as EventType[];

export function is_event_type(type: string): type is EventType {
  return Object.hasOwn(EVENT_REGISTRY, type);
}

export function definition_of(type: EventType): EventDefinition {
  return EVENT_REGISTRY[type];
}

export function is_durable(event: RuntimeEvent): event is DurableEvent {
  return EVENT_REGISTRY[event.type].persistence === "durable";
}

const MALFORMED_ACTION = "This is a bug in the producer of the event; report it with the event's JSON.";

/** Validates an untrusted value as a `RuntimeEvent`: envelope, then registry type + version, then payload. */
export function parse_event(input: unknown): RuntimeEvent {
  const envelope = v.safeParse(EventEnvelope, input);
  if (!envelope.success) {
    throw air_failure({
      kind: "system_error",
      message: `malformed event envelope: ${v.summarize(envelope.issues)}`,
      retryability: "not_retryable",
      user_action: MALFORMED_ACTION,
    });
  }
  const { type, version } = envelope.output;
  if (!is_event_type(type)) {
    throw air_failure({
      kind: "system_error",
      message: `unknown event type "${type}"`,
      retryability: "not_retryable",
      user_action: MALFORMED_ACTION,
      metadata: { type },
    });
  }
  const definition: EventDefinition = EVENT_REGISTRY[type];
  if (definition.version !== version) {
    throw air_failure({
      kind: "system_error",
      message: `unsupported version ${version} of event type "${type}" (this air knows version ${definition.version})`,
      retryability: "not_retryable",
      user_action: "Upgrade air if the event came from a newer version; otherwise report the producer.",
      metadata: { type, version },
    });
  }
  const payload = v.safeParse(definition.payload, envelope.output.payload);
  if (!payload.success) {
    throw air_failure({
      kind: "system_error",
      message: `payload of "${type}" v${version} fails its schema: ${v.summarize(payload.issues)}`,
      retryability: "not_retryable",
      user_action: MALFORMED_ACTION,
      metadata: { type, version },
    });
  }
  return { ...envelope.output, type, payload: payload.output } as RuntimeEvent;
}

export type EventOrigin = {
  session_id: SessionId;
  project_id?: ProjectId;
  source: EventSource;
  route: string[];
};

/** Builds an envelope for a new event at the current version; validation still happens on ingest. */
export function make_event<T extends EventType>(type: T, payload: PayloadInputOf<T>, origin: EventOrigin) {
  return { ...stamp_event(type, payload, origin), type, payload };
}

/**
 * The envelope around a type and payload someone else named (a worker's report): the current version when
 * the type is known — an unknown type is left for `parse_event` to refuse.
 */
export function stamp_event(type: string, payload: unknown, origin: EventOrigin) {
  return {
    id: new_id("event"),
    type,
    version: is_event_type(type) ? EVENT_REGISTRY[type].version : 1,
    timestamp: now_iso(),
    ...origin,
    payload,
  };
}

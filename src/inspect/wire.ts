import { createInspector } from "@statelyai/inspect";
import type { AnyActorRef, AnyEventObject, InspectedActorEvent, InspectedEventEvent, InspectedSnapshotEvent } from "xstate";
import { default_redactor } from "../permissions/secret-redactor.js";
import { to_json_value } from "./json-value.js";

/**
 * The messages the Stately Inspector reads (what `@statelyai/inspect`'s converter sends): one
 * `@xstate.actor` per actor with its machine config as `definition`, then `@xstate.event` and
 * `@xstate.snapshot`. XState's `@xstate.microstep` and `@xstate.action` are not part of it (the package
 * drops them too). We convert ourselves because the package's converter runs a timer per event and reads
 * an actor's snapshot whenever that timer fires, and its string-id API drops `rootId`, `parentId` and
 * `definition`; the message shapes are the package's.
 */
type WireBase = {
  readonly sessionId: string;
  readonly rootId: string | undefined;
  readonly createdAt: string;
  /** The package's converter sends `null` here; we send what it sends. */
  readonly id: null;
  readonly _version: string;
};

export type WireActorEvent = WireBase & {
  readonly type: "@xstate.actor";
  readonly name: string;
  readonly definition: string | undefined;
  readonly parentId: string | undefined;
  readonly snapshot: unknown;
};

export type WireEventEvent = WireBase & {
  readonly type: "@xstate.event";
  readonly event: unknown;
  readonly sourceId?: string;
};

export type WireSnapshotEvent = WireBase & {
  readonly type: "@xstate.snapshot";
  readonly event: unknown;
  readonly snapshot: unknown;
};

export type WireEvent = WireActorEvent | WireEventEvent | WireSnapshotEvent;

/** The Inspector tells its messages from others by `_version`; the installed package's version is asked for once. */
let protocol_version: string | undefined;

function inspect_protocol_version(): string {
  if (protocol_version === undefined) {
    // `actor()` sends synchronously through the adapter, so this reads the version the package stamps.
    createInspector({ send: (event) => void (protocol_version = event._version) }).actor("version-probe");
  }
  return protocol_version ?? "unknown";
}

/** Snapshots, events and definitions go through air's secret redactor: they carry the user's text and tool output. */
function safe(value: unknown): unknown {
  return default_redactor().redact_value(to_json_value(value));
}

function base(session_id: string, root_id: string | undefined): WireBase {
  return { sessionId: session_id, rootId: root_id, createdAt: Date.now().toString(), id: null, _version: inspect_protocol_version() };
}

type ActorWithLogic = AnyActorRef & { logic?: { config?: unknown }; _parent?: AnyActorRef };

/** The actor's machine config, as the Inspector draws it; for logic that is not a machine, just its name. */
export function actor_definition(ref: AnyActorRef): { name: string; definition: string } {
  const config = (ref as ActorWithLogic).logic?.config;
  const machine_id = typeof config === "object" && config !== null ? (config as { id?: unknown }).id : undefined;
  const name = ref.id === ref.sessionId && typeof machine_id === "string" ? machine_id : ref.id;
  const definition = JSON.stringify(typeof config === "object" && config !== null ? safe(config) : { id: name });
  return { name, definition };
}

export function wire_actor(registration: InspectedActorEvent, described: { name: string; definition: string }, snapshot: unknown): WireActorEvent {
  const ref = registration.actorRef as ActorWithLogic;
  return {
    ...base(ref.sessionId, registration.rootId),
    type: "@xstate.actor",
    name: described.name,
    definition: described.definition,
    parentId: ref._parent?.sessionId,
    snapshot: safe(snapshot),
  };
}

export function wire_event(event: InspectedEventEvent): WireEventEvent {
  const source = event.sourceRef as AnyActorRef | undefined;
  return {
    ...base((event.actorRef as AnyActorRef).sessionId, event.rootId),
    type: "@xstate.event",
    event: safe(event.event),
    ...(source === undefined ? {} : { sourceId: source.sessionId }),
  };
}

export function wire_snapshot(event: InspectedSnapshotEvent): WireSnapshotEvent {
  return {
    ...base((event.actorRef as AnyActorRef).sessionId, event.rootId),
    type: "@xstate.snapshot",
    event: safe(event.event as AnyEventObject),
    snapshot: safe(event.snapshot),
  };
}

import type { AnyActorRef, InspectedActorEvent, InspectedSnapshotEvent, InspectionEvent, Observer } from "xstate";
import { actor_definition, wire_actor, wire_event, wire_snapshot, type WireEvent } from "./wire.js";

/** Where the live inspection stream goes: the relay, an NDJSON file, Stately's hosted inspector. */
export type InspectionSink = {
  /** One Stately inspection message and its JSON text (no newline). */
  write(line: string, event: WireEvent): void;
  /** False while nobody would see a message (a relay without clients): then none is rendered. Default true. */
  listening?(): boolean;
};

type Tracked = {
  readonly ref: AnyActorRef;
  readonly registration: InspectedActorEvent;
  described: { name: string; definition: string } | undefined;
  /** Sent to the sinks already: an actor is announced at its first event, once its snapshot exists. */
  announced: boolean;
  last: InspectedSnapshotEvent | undefined;
};

function parent_of(ref: AnyActorRef): AnyActorRef | undefined {
  return (ref as AnyActorRef & { _parent?: AnyActorRef })._parent;
}

/** Undefined while the actor is still being constructed (XState's development build throws then). */
function snapshot_of(ref: AnyActorRef): unknown {
  try {
    return ref.getSnapshot() as unknown;
  } catch {
    return undefined;
  }
}

/** Done, failed and stopped actors leave; an actor still inside its constructor has no snapshot yet and stays. */
function has_ended(ref: AnyActorRef): boolean {
  const status = (snapshot_of(ref) as { status?: string } | undefined)?.status;
  return status !== undefined && status !== "active";
}

/**
 * The live actor system as the Inspector should see it, whenever it connects: every running actor's
 * definition and latest snapshot (the stock relay replays only its last 200 messages, so a browser
 * opened late misses the actors that registered early). Pass `inspect` as the `inspect` option of every
 * root actor. Actors that end are dropped, so what is kept is bounded by what is alive.
 */
export class LiveSystem {
  readonly #actors = new Map<string, Tracked>();
  readonly #sinks = new Set<InspectionSink>();

  /** XState calls this inline while it processes events: it never throws, and does no I/O itself. */
  readonly inspect: Observer<InspectionEvent> = {
    next: (event) => {
      try {
        this.#receive(event);
      } catch {
        // Inspection is a window on the runtime; a failure to render one message must not stop an actor.
      }
    },
  };

  /** Sinks get every message from now on; `replay` first sends them the system as it stands. */
  attach(sink: InspectionSink, options: { replay?: boolean } = {}): () => void {
    if (options.replay === true) for (const event of this.replay()) sink.write(JSON.stringify(event), event);
    this.#sinks.add(sink);
    return () => void this.#sinks.delete(sink);
  }

  /** The live actors, parents first: per actor its `@xstate.actor` (with definition) and its latest `@xstate.snapshot`. */
  replay(): WireEvent[] {
    this.#sweep();
    const events: WireEvent[] = [];
    const done = new Set<string>();
    const visit = (tracked: Tracked) => {
      if (done.has(tracked.ref.sessionId) || !tracked.announced) return;
      done.add(tracked.ref.sessionId);
      const parent = parent_of(tracked.ref);
      const parent_tracked = parent === undefined ? undefined : this.#actors.get(parent.sessionId);
      if (parent_tracked !== undefined) visit(parent_tracked);
      events.push(this.#actor_event(tracked));
      if (tracked.last !== undefined) events.push(wire_snapshot(tracked.last));
    };
    for (const tracked of this.#actors.values()) visit(tracked);
    return events;
  }

  /** The session ids of the actors kept for a replay. */
  live_actors(): string[] {
    return [...this.#actors.keys()];
  }

  #receive(event: InspectionEvent): void {
    switch (event.type) {
      case "@xstate.actor":
        this.#sweep();
        this.#actors.set(event.actorRef.sessionId, {
          ref: event.actorRef as AnyActorRef,
          registration: event,
          described: undefined,
          announced: false,
          last: undefined,
        });
        return;
      case "@xstate.event": {
        this.#announce(event.actorRef as AnyActorRef);
        if (this.#listened()) this.#emit(wire_event(event));
        return;
      }
      case "@xstate.snapshot": {
        const ref = event.actorRef as AnyActorRef;
        const tracked = this.#announce(ref);
        if (tracked !== undefined) tracked.last = event;
        if (this.#listened()) this.#emit(wire_snapshot(event));
        if ((event.snapshot as { status?: string }).status !== "active") this.#actors.delete(ref.sessionId);
        return;
      }
      default:
        return;
    }
  }

  /** Sends an actor's registration (its parent's first) the first time the actor is heard of after construction. */
  #announce(ref: AnyActorRef): Tracked | undefined {
    const tracked = this.#actors.get(ref.sessionId);
    if (tracked === undefined || tracked.announced) return tracked;
    const parent = parent_of(ref);
    if (parent !== undefined) this.#announce(parent);
    tracked.announced = true;
    if (this.#listened()) this.#emit(this.#actor_event(tracked));
    return tracked;
  }

  #actor_event(tracked: Tracked): WireEvent {
    tracked.described ??= actor_definition(tracked.ref);
    return wire_actor(tracked.registration, tracked.described, tracked.last?.snapshot ?? snapshot_of(tracked.ref));
  }

  /** Rendering a message (serialise, redact, stringify) is most of the cost: skipped when nobody listens. */
  #listened(): boolean {
    for (const sink of this.#sinks) if (sink.listening === undefined || sink.listening()) return true;
    return false;
  }

  #emit(event: WireEvent): void {
    const line = JSON.stringify(event);
    for (const sink of this.#sinks) {
      if (sink.listening !== undefined && !sink.listening()) continue;
      try {
        sink.write(line, event);
      } catch {
        // One broken sink (a full disk) must not starve the others.
      }
    }
  }

  /** An actor that failed while processing ends without a last snapshot event; its status says so. */
  #sweep(): void {
    for (const [session_id, tracked] of this.#actors) if (has_ended(tracked.ref)) this.#actors.delete(session_id);
  }
}

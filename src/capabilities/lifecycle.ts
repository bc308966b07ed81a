import { createActor } from "xstate";
import { air_failure } from "../contracts/errors.js";
import type { capability_events } from "../contracts/events/capability.js";
import { make_event, type EventOrigin, type PayloadInputOf } from "../contracts/events/registry.js";
import { new_id, type CapabilityId } from "../contracts/ids.js";
import { capability_machine } from "../machines/capability.js";
import type { Session } from "../project/session-manager.js";

type CapabilityEventType = keyof typeof capability_events;
type Transition = Exclude<CapabilityEventType, "capability.discovered">;
type Fields<T extends CapabilityEventType> = Omit<PayloadInputOf<T>, "capability_id">;

/**
 * One capability's lifecycle in a session: each step is checked against the capability machine before its
 * durable event is recorded, so the session never holds a transition the machine forbids.
 */
export class CapabilityLifecycle {
  readonly capability_id: CapabilityId = new_id("capability");
  readonly #actor = createActor(capability_machine);
  readonly #session: Session;
  readonly #origin: EventOrigin;

  /** Records `capability.discovered`: the machine's initial state. */
  constructor(session: Session, discovered: Fields<"capability.discovered">) {
    this.#session = session;
    this.#origin = { ...session.origin, source: { kind: "system", id: "capabilities" }, route: [...session.origin.route, "capabilities"] };
    this.#actor.start();
    this.#ingest("capability.discovered", discovered);
  }

  /** Moves the machine and records the event; a step the machine does not allow from here is a bug, never recorded. */
  step<T extends Transition>(type: T, fields: Fields<T>): void {
    const snapshot = this.#actor.getSnapshot();
    if (!snapshot.can({ type })) {
      throw air_failure({
        kind: "system_error",
        message: `capability ${this.capability_id} cannot go from ${String(snapshot.value)} by ${type}`,
        retryability: "not_retryable",
        user_action: "Report this: the capability registry broke the lifecycle order.",
      });
    }
    this.#ingest(type, fields);
    this.#actor.send({ type });
  }

  #ingest<T extends CapabilityEventType>(type: T, fields: Fields<T>): void {
    // The payload is the caller's fields plus the subject; valibot checks it again on ingest.
    const payload = { ...fields, capability_id: this.capability_id } as PayloadInputOf<T>;
    this.#session.ingestor.ingest(make_event(type, payload, this.#origin));
  }
}

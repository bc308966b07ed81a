import { make_event, type DurableEventType, type EventType, type PayloadInputOf } from "../../contracts/events/registry.js";
import type { Session } from "../../project/session-manager.js";

/** Where the runtime's own events come from: the Main Agent (no task, no agent), its Scheduler and the Architecture Designer's gate. */
const ROUTES = { main: ["main"], scheduler: ["main", "scheduler"], architecture_designer: ["main", "scheduler", "architecture_designer"] } as const;
type Voice = keyof typeof ROUTES;

const origin_of = (session: Session, voice: Voice) => ({ ...session.origin, source: { kind: voice }, route: [...ROUTES[voice]] });

/**
 * Records events as the Main Agent or as its Scheduler: each one goes through the session's ingestor (validated,
 * a durable one committed) with that voice's source and route.
 */
export function emitter(voice: Voice) {
  return <T extends EventType>(session: Session, type: T, payload: PayloadInputOf<T>): void => {
    session.ingestor.ingest(make_event(type, payload, origin_of(session, voice)));
  };
}

/** As `emitter`, for durable events that belong together: one transaction, so all of them are recorded or none. */
export function batch_emitter(voice: Voice) {
  return <T extends DurableEventType>(session: Session, type: T, payloads: readonly PayloadInputOf<T>[]): void => {
    session.ingestor.ingest_many(payloads.map((payload) => make_event(type, payload, origin_of(session, voice))));
  };
}

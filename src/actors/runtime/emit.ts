import { make_event, type EventType, type PayloadInputOf } from "../../contracts/events/registry.js";
import type { Session } from "../../project/session-manager.js";

/** Where the runtime's own events come from: the Main Agent (no task, no agent) and its Scheduler. */
const ROUTES = { main: ["main"], scheduler: ["main", "scheduler"] } as const;

/**
 * Records events as the Main Agent or as its Scheduler: each one goes through the session's ingestor (validated,
 * a durable one committed) with that voice's source and route.
 */
export function emitter(voice: keyof typeof ROUTES) {
  return <T extends EventType>(session: Session, type: T, payload: PayloadInputOf<T>): void => {
    session.ingestor.ingest(make_event(type, payload, { ...session.origin, source: { kind: voice }, route: [...ROUTES[voice]] }));
  };
}

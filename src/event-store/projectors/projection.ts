import { air_failure } from "../../contracts/errors.js";
import type { DurableEventType, RuntimeEvent } from "../../contracts/events/registry.js";
import type { Connection } from "../../db/connection.js";
import type { LifecycleMove } from "../lifecycle.js";

/** Where a projection writes: the transaction's connection, and the lifecycle move the guard approved. */
export type ProjectionTarget = { readonly connection: Connection; readonly move: LifecycleMove | undefined };

export type Projection<K extends DurableEventType> = (event: RuntimeEvent<K>, target: ProjectionTarget) => void;

/** The status the entity's machine moved to; every lifecycle-bound projection has one. */
export function moved_status<S extends string>(target: ProjectionTarget): S {
  if (target.move === undefined) {
    throw air_failure({ kind: "system_error", message: "projection of a lifecycle event ran without a lifecycle move" });
  }
  return target.move.status as S;
}

/** An update that must hit exactly one row: zero means the entity is missing or not in the expected state. */
export function expect_one(changes: number, event: RuntimeEvent, what: string): void {
  if (changes === 1) return;
  throw air_failure({
    kind: "system_error",
    message: `${event.type}: ${what}`,
    retryability: "not_retryable",
    user_action: "The event refers to something the session does not have in that state; nothing was written.",
    metadata: { event_id: event.id, type: event.type },
  });
}

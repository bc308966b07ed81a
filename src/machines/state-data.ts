import type { ErrorActorEvent } from "xstate";
import { air_failure } from "../contracts/errors.js";

/**
 * What a state works on, read from its machine's context. XState types the context per machine, not per state
 * (v5 dropped typestates), so a state's own data is optional in the type although the transition into the state
 * always sets it: one missing is a bug in the machine, and fails as one.
 */
export function held<T>(value: T | undefined, machine: string, what: string): T {
  if (value !== undefined) return value;
  throw air_failure({
    kind: "system_error",
    message: `the ${machine} machine reached a state without its ${what}`,
    retryability: "not_retryable",
    user_action: "This is a bug in air's machines; report it.",
  });
}

/** The params of an action run on an invoked actor's `onError`: the error the actor failed with. */
export const error_of = ({ event }: { event: ErrorActorEvent }) => ({ error: event.error });

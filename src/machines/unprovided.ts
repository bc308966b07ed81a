import { fromPromise } from "xstate";
import { air_failure } from "../contracts/errors.js";

/**
 * The declaration of an actor whose implementation does I/O and is provided by `src/actors` with
 * `machine.provide({ actors })`. It fixes the actor's input and output types for the machine; running a
 * machine without providing it fails loudly instead of doing nothing.
 */
export function unprovided<TOutput, TInput>(name: string) {
  return fromPromise<TOutput, TInput>(() =>
    Promise.reject(
      air_failure({
        kind: "system_error",
        message: `actor "${name}" was not provided to the machine`,
        retryability: "not_retryable",
        user_action: "This is a bug in air's runtime wiring; report it.",
      }),
    ),
  );
}

import * as v from "valibot";

/**
 * The one thing a retry changes, since a retry that changes nothing fails the same way: the last failure in
 * the worker's context, running alone on the merged checkout, or a longer timeout.
 */
export const RetryChange = v.picklist(["failure_in_context", "serialize", "longer_timeout"]);
export type RetryChange = v.InferOutput<typeof RetryChange>;

import * as v from "valibot";

/**
 * The one thing a retry changes, since a retry that changes nothing fails the same way: the last failure in
 * the worker's context, running alone on the merged checkout, a longer timeout, the Debugger instead of the
 * executor (the same failure twice), or the reviewer's findings to address.
 */
export const RetryChange = v.picklist(["failure_in_context", "serialize", "longer_timeout", "debug", "review_findings"]);
export type RetryChange = v.InferOutput<typeof RetryChange>;

import * as v from "valibot";

export const NonEmpty = v.pipe(v.string(), v.minLength(1));
export const Reason = v.pipe(v.string(), v.minLength(1), v.maxLength(4000));
export const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
export const Duration = v.pipe(v.number(), v.minValue(0));
export const ExitCode = v.pipe(v.number(), v.integer());

/** Anthropic canonical message content: a string or content blocks (seeds 001 D-051). */
export const CanonicalContent = v.union([v.string(), v.array(v.looseObject({ type: NonEmpty }))]);
export type CanonicalContent = v.InferOutput<typeof CanonicalContent>;

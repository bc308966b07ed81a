import * as v from "valibot";

/**
 * When the review gate runs a reviewer on completed code-changing work: on every change, only on a significant
 * one (more than `significant_lines` changed lines, or a change to a public interface), or never. The pure
 * checks for a false success run under every policy.
 */
const ReviewPolicy = v.picklist(["always", "significant", "never"]);

const DEFAULT_SIGNIFICANT_LINES = 20;
const DEFAULT_CONFIDENCE_THRESHOLD = 0.8;

/** `review:` of `~/.air/config.yaml`; every key optional, each defaulted here. */
export const ReviewSettings = v.strictObject({
  policy: v.optional(ReviewPolicy, "significant"),
  significant_lines: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), DEFAULT_SIGNIFICANT_LINES),
  /** Findings the reviewer is less sure of than this only advise: they never fail or block a task. */
  confidence_threshold: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(1)), DEFAULT_CONFIDENCE_THRESHOLD),
});
export type ReviewSettings = v.InferOutput<typeof ReviewSettings>;
export type ReviewSettingsInput = v.InferInput<typeof ReviewSettings>;

export const DEFAULT_REVIEW_SETTINGS: ReviewSettings = v.parse(ReviewSettings, {});

import { createHash } from "node:crypto";
import * as v from "valibot";
import { EntityRef, JsonObject } from "./entity.js";
import { ErrorId, new_id } from "./ids.js";

/** The 22 kinds of seeds 003 §9.2: every failure in air is one of these. */
export const ErrorKind = v.picklist([
  "user_error",
  "project_error",
  "env_error",
  "dependency_error",
  "permission_error",
  "tool_error",
  "command_error",
  "build_error",
  "test_error",
  "static_analysis_error",
  "debug_error",
  "provider_error",
  "model_capability_error",
  "context_error",
  "agent_error",
  "scheduler_error",
  "workspace_error",
  "merge_error",
  "architecture_error",
  "policy_error",
  "system_error",
  "unknown_error",
]);
export type ErrorKind = v.InferOutput<typeof ErrorKind>;

const ErrorSeverity = v.picklist(["info", "warning", "error", "fatal"]);
type ErrorSeverity = v.InferOutput<typeof ErrorSeverity>;

export const Retryability = v.picklist(["retryable", "retryable_after_change", "not_retryable", "unknown"]);
export type Retryability = v.InferOutput<typeof Retryability>;

export const AirError = v.strictObject({
  error_id: ErrorId,
  kind: ErrorKind,
  severity: ErrorSeverity,
  message: v.pipe(v.string(), v.minLength(1)),
  detail: v.optional(v.string()),
  retryability: Retryability,
  semantic_signature: v.pipe(v.string(), v.minLength(1)),
  cause_ref: v.optional(EntityRef),
  cause_refs: v.optional(v.array(EntityRef)),
  user_action: v.optional(v.string()),
  metadata: v.optional(JsonObject),
});
export type AirError = v.InferOutput<typeof AirError>;

export type AirErrorInput = {
  kind: ErrorKind;
  message: string;
  severity?: ErrorSeverity;
  detail?: string;
  retryability?: Retryability;
  semantic_signature?: string;
  cause_ref?: EntityRef;
  cause_refs?: EntityRef[];
  user_action?: string;
  metadata?: JsonObject;
};

/**
 * Ids, paths, numbers and quoted values vary between two occurrences of the same failure; the
 * signature must not, so it is computed over the message with those parts masked.
 */
function normalise_message(message: string): string {
  return message
    .toLowerCase()
    .replace(/\b[a-z]{3}_[0-9a-hjkmnp-tv-z]{26}\b/g, "<id>")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, "<uuid>")
    .replace(/(?:\/[\w.@+-]+)+/g, "<path>")
    .replace(/"[^"]*"|'[^']*'|`[^`]*`/g, "<quoted>")
    .replace(/\b0x[0-9a-f]+\b|\b\d+(?:\.\d+)?\b/g, "<n>")
    .replace(/\s+/g, " ")
    .trim();
}

export function semantic_signature_of(kind: ErrorKind, message: string): string {
  const digest = createHash("sha256")
    .update(`${kind}\n${normalise_message(message)}`)
    .digest("hex");
  return `${kind}:${digest.slice(0, 16)}`;
}

export function make_air_error(input: AirErrorInput): AirError {
  const { kind, message, severity = "error", retryability = "unknown", semantic_signature, ...rest } = input;
  const error: AirError = {
    error_id: new_id("error"),
    kind,
    severity,
    message,
    retryability,
    semantic_signature: semantic_signature ?? semantic_signature_of(kind, message),
  };
  for (const [key, value] of Object.entries(rest)) {
    if (value !== undefined) Object.assign(error, { [key]: value });
  }
  return error;
}

/** The throwable carrier of an `AirError`: code throws this, boundaries catch it and report `.error`. */
export class AirFailure extends Error {
  override readonly name = "AirFailure";
  readonly error: AirError;

  constructor(error: AirError, options?: { cause?: unknown }) {
    super(error.message, options);
    this.error = error;
  }

  get kind(): ErrorKind {
    return this.error.kind;
  }
}

export function air_failure(input: AirErrorInput, cause?: unknown): AirFailure {
  return new AirFailure(make_air_error(input), cause === undefined ? undefined : { cause });
}

export function is_air_failure(value: unknown): value is AirFailure {
  return value instanceof AirFailure;
}

/** Any thrown value as an `AirError`; errors that are not ours become `unknown_error`. */
export function to_air_error(value: unknown, fallback_kind: ErrorKind = "unknown_error"): AirError {
  if (value instanceof AirFailure) return value.error;
  const message = value instanceof Error ? value.message : String(value);
  return make_air_error({ kind: fallback_kind, message: message || "unknown failure" });
}

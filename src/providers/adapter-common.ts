import * as v from "valibot";
import { air_failure } from "../contracts/errors.js";
import { ModelRequest, type ModelDelta } from "../contracts/provider.js";

/** What every adapter does the same way: check the canonical request, hand deltas on, read network errors. */

export function checked_request(request: ModelRequest): ModelRequest {
  const checked = v.safeParse(ModelRequest, request);
  if (!checked.success) {
    throw air_failure({ kind: "system_error", message: `invalid model request: ${v.summarize(checked.issues)}`, retryability: "not_retryable" });
  }
  return checked.output;
}

/** Hands a delta to the listener; a listener's bug is not a provider failure: it must not be retried or reported as one. */
export function deliver_delta(on_delta: ((delta: ModelDelta) => void) | undefined, delta: ModelDelta): void {
  if (on_delta === undefined) return;
  try {
    on_delta(delta);
  } catch (error) {
    throw air_failure(
      {
        kind: "system_error",
        message: `the on_delta listener threw: ${error instanceof Error ? error.message : String(error)}`,
        retryability: "not_retryable",
      },
      error,
    );
  }
}

/** The first system error code along the cause chain (undici wraps it: TypeError "fetch failed" → Error ECONNREFUSED). */
export function network_code(error: unknown, depth = 0): string | undefined {
  if (typeof error !== "object" || error === null || depth > 5) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") return code;
  const nested = (error as { errors?: unknown }).errors;
  const first = Array.isArray(nested) ? nested.map((inner) => network_code(inner, depth + 1)).find((inner) => inner !== undefined) : undefined;
  return first ?? network_code((error as { cause?: unknown }).cause, depth + 1);
}

import { make_air_error, type ErrorKind } from "../../contracts/errors.js";
import type { JsonObject } from "../../contracts/entity.js";
import { ToolFailure } from "../../tools/define.js";
import type { ShellRunOutput } from "../../tools/shell/command.js";
import type { ErrorGroup } from "./digest.js";

type RunFailure = {
  readonly kind: Extract<ErrorKind, "build_error" | "test_error" | "static_analysis_error">;
  /** What failed, in a sentence; the digest follows it in the message. */
  readonly summary: string;
  readonly user_action: string;
  readonly digest: string;
  readonly groups: readonly ErrorGroup[];
  /** The command runs the tool made: they stay in the failed call's effects. */
  readonly runs: readonly ShellRunOutput[];
  readonly metadata?: JsonObject;
};

/**
 * A build or test run that failed, as the AirError the caller (and the model) gets: the first root cause's
 * semantic signature, so a retry loop recognises the same failure, and the digest in the message.
 */
export function run_failure(failure: RunFailure): ToolFailure {
  const [first] = failure.groups;
  const last = failure.runs.at(-1);
  const error = make_air_error({
    kind: failure.kind,
    message: failure.digest === "" ? failure.summary : `${failure.summary}\n${failure.digest}`,
    retryability: "retryable_after_change",
    user_action: failure.user_action,
    ...(first === undefined ? {} : { semantic_signature: first.semantic_signature }),
    metadata: {
      ...failure.metadata,
      // The coarser key of the first root cause: a debug record's fallback when the exact signature has none.
      ...(first === undefined ? {} : { family_signature: first.first.family_signature }),
      digest: failure.digest,
      root_causes: failure.groups.map((group) => ({
        semantic_signature: group.semantic_signature,
        diagnostic_id: group.first.diagnostic_id,
        occurrences: group.occurrences,
      })),
      ...(last === undefined ? {} : { command_run_id: last.command_run_id, exit_code: last.exit_code }),
    },
  });
  return new ToolFailure(error, { command_runs: failure.runs.flatMap((run) => run.effects.command_runs ?? []) });
}

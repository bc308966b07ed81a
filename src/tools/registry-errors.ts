import * as v from "valibot";
import { make_air_error, type AirError } from "../contracts/errors.js";
import type { ToolRunId } from "../contracts/ids.js";
import type { PermissionDecision } from "../permissions/engine.js";

/** The errors a `ToolRegistry.call` returns for calls that fail before or around the tool itself. */
export type Issues = [v.BaseIssue<unknown>, ...v.BaseIssue<unknown>[]];

export function cancelled_error(tool_name: string, reason: string): AirError {
  return make_air_error({
    kind: "tool_error",
    severity: "warning",
    message: `${tool_name} was cancelled: ${reason}`,
    retryability: "retryable",
    user_action: "Run the tool again if it is still needed.",
    metadata: { cancelled: true },
  });
}

export function malformed_call_error(issues: Issues): AirError {
  return make_air_error({
    kind: "tool_error",
    message: `malformed tool call: ${v.summarize(issues)}`,
    retryability: "not_retryable",
    user_action: "Send { tool_name, input } with a dotted tool name and an object input.",
  });
}

export function unknown_tool_error(tool_name: string, registered_names: string[]): AirError {
  return make_air_error({
    kind: "tool_error",
    message: `unknown tool "${tool_name}"`,
    retryability: "not_retryable",
    user_action: `Call one of: ${registered_names.join(", ") || "(no tools registered)"}.`,
    metadata: { tool_name },
  });
}

export function invalid_input_error(tool_name: string, issues: Issues): AirError {
  return make_air_error({
    kind: "tool_error",
    message: `input of ${tool_name} fails its schema: ${v.summarize(issues)}`,
    retryability: "not_retryable",
    user_action: `Fix the input to match the input schema of ${tool_name}.`,
    metadata: { tool_name, issues: issues.map((issue) => ({ path: v.getDotPath(issue), message: issue.message })) },
  });
}

export function invalid_output_error(tool_name: string, issues: Issues): AirError {
  return make_air_error({
    kind: "tool_error",
    message: `output of ${tool_name} fails its schema: ${v.summarize(issues)}`,
    retryability: "unknown",
    user_action: "This is a bug in the tool; its side effects (if any) happened, check them before retrying.",
    metadata: { tool_name },
  });
}

/** Why a call the PermissionEngine did not allow is not run, with what to do instead. */
export function refusal_error(tool_name: string, decision: PermissionDecision, tool_run_id: ToolRunId): AirError {
  const refused = decision.action === "refuse";
  const blocked = decision.action === "block";
  const user_action = refused
    ? "This is forbidden by policy and cannot be granted; choose another way that stays inside the project and its rules."
    : blocked
      ? "The task's scope does not cover this; ask for the scope to be widened (or a new task) instead of working around it."
      : "Permission was not granted; choose a path or command inside the project, or ask the user to allow it.";
  return make_air_error({
    kind: refused ? "policy_error" : "permission_error",
    message: `${tool_name} was not permitted (${decision.action}, ${decision.layer}): ${decision.reason}`,
    retryability: blocked ? "retryable_after_change" : "not_retryable",
    user_action,
    metadata: {
      tool_name,
      tool_run_id,
      decision_id: decision.decision_id,
      action: decision.action,
      layer: decision.layer,
      risk_level: decision.risk_level,
      ...(decision.prompt_id === undefined ? {} : { prompt_id: decision.prompt_id }),
    },
  });
}

import type { EvidenceRef } from "../../contracts/artifact.js";
import { make_air_error, type AirError } from "../../contracts/errors.js";
import { new_id } from "../../contracts/ids.js";
import { verification_label, type TaskSpec } from "../../contracts/task.js";
import { effects_of, type ToolOutcome } from "../../contracts/tool.js";
import type { VerificationResult } from "../../contracts/worker-result.js";
import type { WorkerRuntime } from "../runtime.js";

export const SHELL_TOOL = "shell.run";

/** Of a failing command's output, what the retry and the Debugger read: its end, where the failure is said. */
const DETAIL_TAIL_CHARS = 4_000;

/** What running a task's verification gave: a result per check, its evidence, and whether a check was refused. */
export type VerificationRecord = {
  readonly results: VerificationResult[];
  readonly evidence: EvidenceRef[];
  readonly commands_run: string[];
  /** A check was refused by the permission engine: the task is blocked, not failed. */
  readonly blocked: boolean;
};

function tail_of(output: unknown): string {
  if (typeof output !== "object" || output === null) return "";
  const tails = ["stdout_tail", "stderr_tail"].map((key) => Reflect.get(output, key)).filter((tail): tail is string => typeof tail === "string");
  return tails.join("\n").slice(-DETAIL_TAIL_CHARS);
}

/**
 * The failure of a verification command that ran and exited non-zero, as the AirError a retry recognises: its
 * signature is of the command and its exit, its output tail goes with it as `detail`.
 */
function command_failure(command: string, exit_code: number | null, output: unknown): AirError {
  return make_air_error({
    kind: "test_error",
    message: `the verification command \`${command}\` exited ${exit_code ?? "without an exit code"}`,
    retryability: "retryable_after_change",
    user_action: "Fix what the command's output reports and run it again.",
    metadata: { command, detail: tail_of(output), ...(exit_code === null ? {} : { exit_code }) },
  });
}

/** Runs the task's verification commands through `shell.run`, then its verification tools, in order. */
export async function run_verification(task: TaskSpec, runtime: WorkerRuntime): Promise<VerificationRecord> {
  const record: VerificationRecord = { results: [], evidence: [], commands_run: [], blocked: false };
  let blocked = false;
  for (const command of task.verification.commands ?? []) {
    const started = Date.now();
    const outcome = await runtime.call_tool({ tool_name: SHELL_TOOL, input: { command } });
    if (check(record, command, outcome, started, "shell")) blocked = true;
  }
  for (const tool of task.verification.tools) {
    const started = Date.now();
    const outcome = await runtime.call_tool(tool);
    if (check(record, verification_label(tool), outcome, started, "tool")) blocked = true;
  }
  return { ...record, blocked };
}

/**
 * Records one check; true when the permission engine refused it. A command passes on exit 0, a tool when its
 * call succeeds; the failing check's error (a tool's own, e.g. cpp.build's `build_error` with its signature)
 * goes into its result, so the task's failure is that error rather than a summary of the run.
 */
function check(record: VerificationRecord, label: string, outcome: ToolOutcome, started: number, via: "shell" | "tool"): boolean {
  record.commands_run.push(label);
  // A command that could not finish (timeout, spawn failure) still has its command run, with no exit code.
  const ran = via === "shell" ? effects_of(outcome).command_runs[0] : effects_of(outcome).command_runs.at(-1);
  const exit_code = ran?.exit_code ?? null;
  const passed = via === "shell" ? outcome.ok && exit_code === 0 : outcome.ok;
  const error = outcome.ok ? (passed ? undefined : command_failure(label, exit_code, outcome.output)) : outcome.error;
  record.results.push({
    command: label,
    exit_code,
    passed,
    duration_ms: ran?.duration_ms ?? Date.now() - started,
    ...(ran?.stdout_artifact_id === undefined ? {} : { artifact_id: ran.stdout_artifact_id }),
    ...(error === undefined ? {} : { error }),
  });
  record.evidence.push(evidence_of(label, outcome, ran?.command_run_id, exit_code, via));
  return !outcome.ok && outcome.error.kind === "permission_error";
}

function evidence_of(label: string, outcome: ToolOutcome, command_run_id: string | undefined, exit_code: number | null, via: "shell" | "tool"): EvidenceRef {
  if (via === "shell") {
    return {
      id: new_id("evidence"),
      kind: "command_run",
      ref: command_run_id ?? outcome.tool_run_id ?? `${SHELL_TOOL}: ${label}`,
      claim: outcome.ok ? `\`${label}\` exited ${exit_code ?? "without an exit code"}` : `\`${label}\` could not run: ${outcome.error.message}`,
    };
  }
  return {
    id: new_id("evidence"),
    kind: outcome.tool_run_id === undefined ? "message" : "tool_run",
    ref: outcome.tool_run_id ?? command_run_id ?? label,
    claim: outcome.ok ? `${label} passed` : `${label} failed: ${outcome.error.message}`,
  };
}

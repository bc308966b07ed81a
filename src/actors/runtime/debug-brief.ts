import * as v from "valibot";
import type { AirError } from "../../contracts/errors.js";
import type { AgentBrief } from "../../contracts/ipc.js";
import type { TaskSpec } from "../../contracts/task.js";
import type { DebugKnowledgeStore, KnownFix } from "../../debug/knowledge-store.js";
import type { CurrentRetry } from "./attempt-history.js";
import { family_signature_of } from "./debug-outbox.js";
import { apply_retry } from "./retry-brief.js";

/** The heading of a debug attempt's instructions: the failure that ended two attempts, with its evidence. */
export const DEBUG_HEADING = "# Debug the failure that ended the last two attempts";

/** The heading of a debug record given as a known fix; the scripted server matches it (`first_user_contains`). */
export const KNOWN_FIX_HEADING = "# A known fix for this failure";

const MAX_LOG_CHARS = 4_000;

const RootCauses = v.array(v.looseObject({ semantic_signature: v.string(), occurrences: v.optional(v.unknown()) }));

function text_field(error: AirError, key: string): string | undefined {
  const value = error.metadata?.[key];
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** The evidence of a failure a debugger reads: the failing command, the parsed diagnostics, the log's end. */
function evidence_lines(failure: AirError): string[] {
  const lines = ["", "## The failure", `A ${failure.kind}, signature \`${failure.semantic_signature}\`:`, "```", failure.message, "```"];
  const family = family_signature_of(failure);
  if (family !== undefined) lines.push(`Its family signature: \`${family}\`.`);
  const command = text_field(failure, "verification_command") ?? text_field(failure, "command");
  if (command !== undefined) lines.push("", "## The failing command", `\`${command}\``);
  const causes = v.safeParse(RootCauses, failure.metadata?.root_causes);
  if (causes.success && causes.output.length > 0) {
    lines.push("", "## Root causes parsed from the diagnostics", ...causes.output.map((cause) => `- \`${cause.semantic_signature}\``));
  }
  const log = text_field(failure, "detail");
  if (log !== undefined) lines.push("", "## The end of its log", "```", log.slice(-MAX_LOG_CHARS), "```");
  return lines;
}

/** What a debug attempt is told: the repeated failure with its evidence, and how to finish. */
function debug_instructions(failure: AirError): string {
  return [
    DEBUG_HEADING,
    "The same failure ended a first attempt and a retry that was given it. Reproduce it, find its root cause, fix it inside the task's write area, and check the fix with the task's verification.",
    ...evidence_lines(failure),
    "",
    "## How to finish",
    "Call submit_diagnosis with the root cause, the failure signature above and whether you applied a fix. When you cannot fix it inside the task's write area, call it with a blocker saying what is needed.",
  ].join("\n");
}

/** A debug record as the next worker facing its failure reads it. */
function known_fix_text(fix: KnownFix): string {
  const { record } = fix;
  const lines = [
    KNOWN_FIX_HEADING,
    `Debug record ${record.id} (matched by ${fix.matched_by === "signature" ? "the exact signature" : "the family signature"}) fixed this failure before. Apply the same fix if it fits, then verify.`,
    `- Symptom: ${record.symptom}`,
    `- Root cause: ${record.root_cause === "" ? "not recorded" : record.root_cause}`,
    `- Fix: ${record.fix_summary}`,
  ];
  if (record.changed_files.length > 0) lines.push(`- Files it changed: ${record.changed_files.join(", ")}`);
  return lines.join("\n");
}

/** The known fix for the failure a retry or debug attempt faces, counted as one more use of its record. */
function known_fix(store: DebugKnowledgeStore | undefined, retry: CurrentRetry | undefined): KnownFix | undefined {
  if (store === undefined || retry?.failure === undefined) return undefined;
  if (retry.change !== "failure_in_context" && retry.change !== "debug") return undefined;
  const fix = store.lookup(retry.failure.semantic_signature, family_signature_of(retry.failure));
  if (fix !== undefined) store.update(fix.record.id, { hit: true });
  return fix;
}

/**
 * The task and brief of an attempt: a debug attempt gets the debug instructions, any other retry its one
 * change (`apply_retry`); a retry or debug attempt whose failure has a debug record gets it as a known fix.
 */
export function attempt_brief(
  store: DebugKnowledgeStore | undefined,
  task: TaskSpec,
  brief: AgentBrief,
  retry: CurrentRetry | undefined,
): { task: TaskSpec; brief: AgentBrief } {
  const found = known_fix(store, retry);
  const fix = found === undefined ? undefined : known_fix_text(found);
  if (retry?.change !== "debug" || retry.failure === undefined) return apply_retry(task, brief, retry, fix);
  const debug = debug_instructions(retry.failure);
  return { task, brief: { ...brief, instructions: fix === undefined ? debug : `${debug}\n\n${fix}` } };
}

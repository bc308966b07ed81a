import * as v from "valibot";
import type { AirError } from "../../contracts/errors.js";
import type { AgentBrief } from "../../contracts/ipc.js";
import type { TaskSpec } from "../../contracts/task.js";
import { ConflictDetail } from "../../workspaces/conflicts.js";
import type { CurrentRetry } from "./attempt-history.js";

/**
 * The heading of what a retried worker is told about the attempt before it, at the end of its first user
 * message (never in the system prompt, whose bytes stay the cache prefix every attempt shares).
 */
export const RETRY_HEADING = "# The previous attempt failed";

/** How much longer a retry after a timeout may run: twice, since a second timeout blocks the task. */
const LONGER_TIMEOUT_FACTOR = 2;

/** Of a verification's output, what the model reads: its end, where compilers and test runners say what failed. */
const MAX_DETAIL_CHARS = 4_000;

const Conflicts = v.array(ConflictDetail);

function conflicts_text(failure: AirError): string[] {
  const parsed = v.safeParse(Conflicts, failure.metadata?.conflicts);
  if (!parsed.success || parsed.output.length === 0) return [];
  const lines = ["", "## Where it conflicted"];
  for (const conflict of parsed.output) {
    lines.push("", `### ${conflict.path}`, ...conflict.messages);
    for (const hunk of conflict.hunks) lines.push("```", hunk, "```");
  }
  return lines;
}

/** The reviewer's gating findings, a line each, as the review gate put them in the failure. */
function findings_text(failure: AirError): string[] {
  const detail = failure.metadata?.detail;
  if (failure.metadata?.review_findings !== true || typeof detail !== "string") return [];
  return ["", "## The reviewer's findings", detail];
}

function detail_text(failure: AirError): string[] {
  if (failure.metadata?.review_findings === true) return [];
  const detail = failure.metadata?.detail;
  if (typeof detail !== "string" || detail.trim() === "") return [];
  return ["", "## What the verification printed", "```", detail.slice(-MAX_DETAIL_CHARS), "```"];
}

/**
 * The failure of the attempt before, in words for the model, with the hunks or output that show it; a known
 * fix of it (a debug record) takes the place of the advice to find its cause.
 */
export function retry_instructions(retry: CurrentRetry, known_fix?: string): string | undefined {
  if (retry.change === "longer_timeout" || retry.failure === undefined) return undefined;
  const { failure } = retry;
  const lines = [RETRY_HEADING, `It ended with a ${failure.kind}: ${failure.message}`];
  if (retry.change === "review_findings") {
    lines.push("A reviewer read the work and asked for changes. The work so far is in place: address each finding below, then finish as before.");
  } else if (retry.change === "serialize") {
    lines.push(
      "This attempt runs alone, in a fresh workspace holding the checkout as it is now, with the work of the other tasks merged. Do the task again on it and keep their changes.",
    );
  } else if (known_fix === undefined) lines.push("Find its cause before you change anything else.");
  const fix = known_fix === undefined ? [] : ["", known_fix];
  return [...lines, ...conflicts_text(failure), ...findings_text(failure), ...detail_text(failure), ...fix].join("\n");
}

/** The task and brief of a retried attempt: the one thing its retry changes, applied. */
export function apply_retry(task: TaskSpec, brief: AgentBrief, retry: CurrentRetry | undefined, known_fix?: string): { task: TaskSpec; brief: AgentBrief } {
  if (retry === undefined) return { task, brief };
  if (retry.change === "longer_timeout") {
    const { constraints } = task;
    const longer = {
      ...constraints,
      soft_timeout_ms: constraints.soft_timeout_ms * LONGER_TIMEOUT_FACTOR,
      hard_timeout_ms: constraints.hard_timeout_ms * LONGER_TIMEOUT_FACTOR,
    };
    return { task: { ...task, constraints: longer }, brief };
  }
  const instructions = retry_instructions(retry, known_fix);
  return { task, brief: instructions === undefined ? brief : { ...brief, instructions } };
}

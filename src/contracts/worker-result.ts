import * as v from "valibot";
import { ArtifactRef, EvidenceRef } from "./artifact.js";
import { AirError } from "./errors.js";
import { MemoryType } from "./events/memory.js";
import { AgentId, ArtifactId, DebugRecordId, EvidenceId, SummaryId, TaskId, MessageId } from "./ids.js";
import { TaskType } from "./task.js";

export const AgentType = v.picklist(["executor", "reviewer", "debugger", "compactor", "experience_miner"]);
export type AgentType = v.InferOutput<typeof AgentType>;

export const WorkerStatus = v.picklist(["completed", "failed", "blocked", "cancelled"]);
export type WorkerStatus = v.InferOutput<typeof WorkerStatus>;

export const VerificationResult = v.strictObject({
  command: v.pipe(v.string(), v.minLength(1)),
  exit_code: v.nullable(v.pipe(v.number(), v.integer())),
  passed: v.boolean(),
  duration_ms: v.optional(v.pipe(v.number(), v.minValue(0))),
  artifact_id: v.optional(ArtifactId),
  /** Why a check that did not pass failed: the tool's own error (cpp.build's `build_error`), or the command's exit. */
  error: v.optional(AirError),
});
export type VerificationResult = v.InferOutput<typeof VerificationResult>;

export const Risk = v.strictObject({
  severity: v.picklist(["low", "medium", "high"]),
  description: v.pipe(v.string(), v.minLength(1)),
  mitigation: v.optional(v.string()),
});
export type Risk = v.InferOutput<typeof Risk>;

const FollowUpTask = v.strictObject({
  type: TaskType,
  title: v.pipe(v.string(), v.minLength(1)),
  description: v.string(),
  reason: v.string(),
});

const ExecutorResult = v.strictObject({
  commands_run: v.array(v.string()),
  tests_added: v.array(v.string()),
  notes: v.optional(v.string()),
});

/** How much a finding matters: P0 stops the merge outright, P3 is a nit. */
const FindingSeverity = v.picklist(["P0", "P1", "P2", "P3"]);

const FindingCategory = v.picklist(["correctness", "security", "scope", "tests", "architecture", "style"]);

const LineNumber = v.pipe(v.number(), v.integer(), v.minValue(1));

/** One thing a reviewer found in a diff, located and weighed; `confidence` decides whether it gates or advises. */
export const ReviewFinding = v.pipe(
  v.strictObject({
    severity: FindingSeverity,
    confidence: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
    category: FindingCategory,
    file: v.optional(v.pipe(v.string(), v.minLength(1))),
    line_start: v.optional(LineNumber),
    line_end: v.optional(LineNumber),
    message: v.pipe(v.string(), v.minLength(1)),
    suggestion: v.optional(v.pipe(v.string(), v.minLength(1))),
    evidence_refs: v.optional(v.array(EvidenceRef), []),
  }),
  v.check((f) => f.line_end === undefined || (f.line_start !== undefined && f.line_end >= f.line_start), "line_end needs a line_start at or before it"),
);
export type ReviewFinding = v.InferOutput<typeof ReviewFinding>;

export const ReviewVerdict = v.picklist(["approved", "changes_requested", "rejected"]);
export type ReviewVerdict = v.InferOutput<typeof ReviewVerdict>;

export const ReviewerResult = v.strictObject({
  verdict: ReviewVerdict,
  findings: v.array(ReviewFinding),
});
export type ReviewerResult = v.InferOutput<typeof ReviewerResult>;

/**
 * Why a worker stopped instead of improvising (seeds 000 §8.3): what it needs, and from whom. A worker that
 * returns `blocked` says this much, so the user or the Main Agent can decide.
 */
export const BlockerReport = v.strictObject({
  category: v.picklist(["missing_decision", "out_of_scope", "environment", "dependency", "architecture", "unknown"]),
  summary: v.pipe(v.string(), v.minLength(1)),
  needed: v.pipe(v.string(), v.minLength(1)),
  evidence_refs: v.optional(v.array(EvidenceRef), []),
});
export type BlockerReport = v.InferOutput<typeof BlockerReport>;

export const DebuggerResult = v.strictObject({
  root_cause: v.string(),
  failure_signature: v.pipe(v.string(), v.minLength(1)),
  fix_applied: v.boolean(),
  reproduction: v.optional(v.string()),
  /** The debug record the debugger was given as a known fix, when its signature (or family) had one. */
  known_fix_id: v.optional(DebugRecordId),
  blocker: v.optional(BlockerReport),
});
export type DebuggerResult = v.InferOutput<typeof DebuggerResult>;

const CompactorResult = v.strictObject({
  summary_id: SummaryId,
  covered_message_ids: v.array(MessageId),
  tokens_before: v.pipe(v.number(), v.integer(), v.minValue(0)),
  tokens_after: v.pipe(v.number(), v.integer(), v.minValue(0)),
});

/**
 * What the miner proposes: a rule for `.air/shared/rules/`, a skill (a `SKILL.md` folder, seeds 001 D-058), or
 * debug knowledge; `title` names the file or the skill, `evidence_ref_ids` the verified evidence it rests on.
 */
export const MemoryCandidateDraft = v.strictObject({
  memory_type: MemoryType,
  title: v.pipe(v.string(), v.minLength(1), v.maxLength(80)),
  content: v.pipe(v.string(), v.minLength(1)),
  evidence_ref_ids: v.array(EvidenceId),
});
export type MemoryCandidateDraft = v.InferOutput<typeof MemoryCandidateDraft>;

export const ExperienceMinerResult = v.strictObject({
  candidates: v.array(MemoryCandidateDraft),
});

const common = {
  task_id: TaskId,
  agent_id: AgentId,
  status: WorkerStatus,
  summary: v.pipe(v.string(), v.minLength(1)),
  changed_files: v.array(v.string()),
  diff_ref: v.optional(v.string()),
  artifacts: v.array(ArtifactRef),
  verification: v.array(VerificationResult),
  risks: v.array(Risk),
  follow_up_tasks: v.array(FollowUpTask),
  evidence_refs: v.array(EvidenceRef),
};

/** A worker's answer (seeds 001 D-042); `result` is typed by `agent_type`, so a reviewer cannot return an executor's result. */
export const WorkerResult = v.variant("agent_type", [
  v.strictObject({ ...common, agent_type: v.literal("executor"), result: ExecutorResult }),
  v.strictObject({ ...common, agent_type: v.literal("reviewer"), result: ReviewerResult }),
  v.strictObject({ ...common, agent_type: v.literal("debugger"), result: DebuggerResult }),
  v.strictObject({ ...common, agent_type: v.literal("compactor"), result: CompactorResult }),
  v.strictObject({ ...common, agent_type: v.literal("experience_miner"), result: ExperienceMinerResult }),
]);
export type WorkerResult = v.InferOutput<typeof WorkerResult>;

import * as v from "valibot";
import { ArtifactRef, EvidenceRef } from "./artifact.js";
import { AgentId, ArtifactId, EvidenceId, SummaryId, TaskId, MessageId } from "./ids.js";
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

const ReviewFinding = v.strictObject({
  severity: v.picklist(["info", "minor", "major", "critical"]),
  message: v.pipe(v.string(), v.minLength(1)),
  file: v.optional(v.string()),
  line: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});

const ReviewerResult = v.strictObject({
  verdict: v.picklist(["approve", "request_changes", "block"]),
  findings: v.array(ReviewFinding),
});

const DebuggerResult = v.strictObject({
  root_cause: v.string(),
  failure_signature: v.pipe(v.string(), v.minLength(1)),
  fix_applied: v.boolean(),
  reproduction: v.optional(v.string()),
});

const CompactorResult = v.strictObject({
  summary_id: SummaryId,
  covered_message_ids: v.array(MessageId),
  tokens_before: v.pipe(v.number(), v.integer(), v.minValue(0)),
  tokens_after: v.pipe(v.number(), v.integer(), v.minValue(0)),
});

const MemoryCandidateDraft = v.strictObject({
  memory_type: v.picklist(["rule", "skill", "fact", "pitfall"]),
  content: v.pipe(v.string(), v.minLength(1)),
  evidence_ref_ids: v.array(EvidenceId),
});

const ExperienceMinerResult = v.strictObject({
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

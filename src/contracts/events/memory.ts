import * as v from "valibot";
import { DebugRecordId, EvidenceId, MemoryId, TaskId } from "../ids.js";
import { durable } from "./define.js";
import { NonEmpty, Reason } from "./common.js";

export const MemoryType = v.picklist(["rule", "skill", "fact", "pitfall"]);
export type MemoryType = v.InferOutput<typeof MemoryType>;

/**
 * `memory.promoted`, `memory.archived` and `debug.record.created` record a write that the owning store
 * already made in its own database (seeds 000 §5.4 table B, §18.4): they are appended, never projected.
 */
export const memory_events = {
  "memory.candidate.created": durable(
    v.strictObject({
      candidate_id: MemoryId,
      memory_type: MemoryType,
      content: NonEmpty,
      evidence_ref_ids: v.array(EvidenceId),
      source_task_id: v.optional(TaskId),
    }),
    "The experience miner proposes a memory.",
  ),
  "memory.promoted": durable(
    v.strictObject({ candidate_id: MemoryId, target_ref: NonEmpty, promoted_by: NonEmpty, summary: Reason }),
    "The candidate was written to learned-memory.db / rules / skills (already done by the owner).",
  ),
  "memory.archived": durable(v.strictObject({ memory_id: MemoryId, reason: Reason }), "A memory was made inactive."),
  "debug.record.created": durable(
    v.strictObject({
      debug_record_id: DebugRecordId,
      failure_signature: NonEmpty,
      summary: Reason,
      task_id: v.optional(TaskId),
    }),
    "A verified debug record was written to debug-records.db (already done by the owner).",
  ),
} as const;

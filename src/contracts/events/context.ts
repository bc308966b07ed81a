import * as v from "valibot";
import { AirError } from "../errors.js";
import { MessageId, SummaryId, TaskId } from "../ids.js";
import { TaskStarted } from "./task.js";
import { durable } from "./define.js";
import { Count, NonEmpty, Reason } from "./common.js";

export const SummaryKind = v.picklist(["compaction", "session", "task"]);
export type SummaryKind = v.InferOutput<typeof SummaryKind>;

const Tokens = {
  token_estimate: Count,
  threshold_tokens: Count,
};

export const context_events = {
  "context.compaction.requested": durable(
    v.variant("accepted", [
      v.strictObject({ accepted: v.literal(true), task_id: TaskId, reason: Reason, ...Tokens }),
      v.strictObject({ accepted: v.literal(false), reason: Reason, ...Tokens }),
    ]),
    "The context no longer fits; when accepted, inserts the compact task (pending).",
  ),
  "context.compaction.started": durable(TaskStarted, "The compact task runs; same projection as task.started."),
  "context.compaction.completed": durable(
    v.strictObject({ task_id: TaskId, summary_id: SummaryId }),
    "The compact task completed; references the summary that summary.created inserted (never a second row).",
  ),
  "context.compaction.failed": durable(v.strictObject({ task_id: TaskId, error: AirError }), "The compact task failed; originals are untouched."),
  "summary.created": durable(
    v.strictObject({
      summary_id: SummaryId,
      kind: SummaryKind,
      content: NonEmpty,
      covered_message_ids: v.array(MessageId),
      task_id: v.optional(TaskId),
      tokens_before: v.optional(Count),
      tokens_after: v.optional(Count),
    }),
    "Inserts summaries; the only writer of that table.",
  ),
} as const;

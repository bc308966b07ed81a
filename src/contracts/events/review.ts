import * as v from "valibot";
import { AgentId, TaskId } from "../ids.js";
import { ReviewFinding, ReviewVerdict } from "../worker-result.js";
import { durable } from "./define.js";

const ReviewCompleted = v.strictObject({
  task_id: TaskId,
  /** The reviewer's agent. */
  agent_id: AgentId,
  verdict: ReviewVerdict,
  findings: v.array(ReviewFinding),
  /** Whether the review held the work back (changes requested or rejected, with findings that gate). */
  gating: v.boolean(),
  /** How many findings fell under the confidence threshold and only advised. */
  advisory: v.pipe(v.number(), v.integer(), v.minValue(0)),
});

export const review_events = {
  "review.completed": durable(
    ReviewCompleted,
    "The review gate's verdict on a task's work (seeds 000 §8.3 ReviewerRole), for the history and the retried executor; the task's own events settle it.",
  ),
} as const;

import * as v from "valibot";
import { ImpactResultClass, ImpactTrigger } from "../architecture.js";
import { ArtifactId, RequirementId, TaskId } from "../ids.js";
import { durable } from "./define.js";
import { NonEmpty, Reason } from "./common.js";

export const architecture_events = {
  "requirement.changed": durable(
    v.strictObject({
      requirement_id: RequirementId,
      description: Reason,
      previous_description: v.optional(Reason),
    }),
    "The user changed the requirement mid-run; the Scheduler marks impacted tasks when it consumes this.",
  ),
  "architecture.plan.updated": durable(
    v.strictObject({
      plan_ref: NonEmpty,
      plan_version: v.pipe(v.number(), v.integer(), v.minValue(1)),
      summary: Reason,
      artifact_id: v.optional(ArtifactId),
    }),
    "The Architecture Designer wrote a new plan version.",
  ),
  "architecture.impact.completed": durable(
    v.strictObject({
      requirement_id: v.optional(RequirementId),
      impact: v.picklist(["none", "execution_only", "design"]),
      result_class: ImpactResultClass,
      triggers: v.optional(v.array(ImpactTrigger), []),
      impacted_task_ids: v.array(TaskId),
      summary: Reason,
    }),
    "Impact analysis of a change finished; the Scheduler consumes it.",
  ),
} as const;

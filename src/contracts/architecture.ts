import * as v from "valibot";
import type { EvidenceRef } from "./artifact.js";
import { TaskId } from "./ids.js";

/**
 * The four outcomes of the Architecture Designer's gate (seeds 000 §19.4, 003 §10.7): go on; go on only once
 * the user confirms; replan the affected tasks; stop and escalate.
 */
export const ImpactResultClass = v.picklist(["silent_continue", "requires_user_confirmation", "requires_replan", "reject_or_escalate"]);
export type ImpactResultClass = v.InferOutput<typeof ImpactResultClass>;

/** What set the gate off, as far as it can be detected without a model (seeds 003 §10.7). */
export const ImpactTrigger = v.strictObject({
  kind: v.picklist([
    "public_interface",
    "schema",
    "event",
    "ipc",
    "tool_contract",
    "provider_contract",
    "package_boundary",
    "review_finding",
    "worker_blocker",
    "requirement_change",
  ]),
  /** The file, finding or blocker that fired it, in words a person reads. */
  detail: v.pipe(v.string(), v.minLength(1)),
  file: v.optional(v.pipe(v.string(), v.minLength(1))),
});
export type ImpactTrigger = v.InferOutput<typeof ImpactTrigger>;

/** What the designer is asked to weigh: the change, what fired the gate, and the tasks it may touch. */
export type ImpactRequest = {
  readonly summary: string;
  readonly triggers: readonly ImpactTrigger[];
  /** The change itself: a unified diff, or the new requirement's text. */
  readonly change: string;
  readonly task_ids: readonly string[];
  readonly evidence_refs: readonly EvidenceRef[];
};

/** The designer's verdict, from its read-only analysis. */
export const ArchitectureImpact = v.strictObject({
  result_class: ImpactResultClass,
  summary: v.pipe(v.string(), v.minLength(1)),
  impacted_task_ids: v.array(TaskId),
  /** A proposed new text of a file under `.air/shared/plan/`, written through the tools once confirmed. */
  plan_update: v.optional(v.strictObject({ path: v.pipe(v.string(), v.minLength(1)), content: v.string(), summary: v.pipe(v.string(), v.minLength(1)) })),
});
export type ArchitectureImpact = v.InferOutput<typeof ArchitectureImpact>;

/** The Architecture Designer as the Scheduler and the Main Agent see it: one read-only assessment per call. */
export interface ArchitectureDesigner {
  assess(request: ImpactRequest, signal?: AbortSignal): Promise<ArchitectureImpact>;
}

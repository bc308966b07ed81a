import type { ArchitectureImpact } from "../contracts/architecture.js";
import type { TaskSpec } from "../contracts/task.js";

/** What the Main Agent made of a message sent while its plan runs (seeds 000 §20.1, EXECUTING). */
export type MidRunTriage = { readonly kind: "question"; readonly answer: string } | { readonly kind: "requirement_change"; readonly summary: string };

/** A new text for one task of the running plan; its id, type, write area and dependencies stay. */
export type TaskRevision = {
  readonly task_id: string;
  readonly description: string;
  readonly acceptance_criteria: readonly string[];
};

/**
 * A requirement change, classified. Implementation-level: only what some pending tasks do changes.
 * Design-level: the plan changes — tasks cancelled (running ones stopped), revised or added.
 */
export type ChangeClassification = { readonly level: "implementation"; readonly summary: string; readonly revise: readonly TaskRevision[] } | DesignRevision;

export type DesignRevision = {
  readonly level: "design";
  readonly summary: string;
  readonly cancel: readonly string[];
  readonly revise: readonly TaskRevision[];
  readonly add: readonly TaskSpec[];
};

/**
 * What changed while the plan ran: the user's new requirement (`requirement.changed`), or the tasks a gate of
 * the Scheduler sent back to be planned again.
 */
export type RequirementChange = {
  readonly source: "user" | "gate";
  readonly text: string;
  readonly summary: string;
  /** The tasks a gate named; a user's change names its tasks through its classification. */
  readonly task_ids: readonly string[];
};

/** ARCHITECTURE_REVISING's result: the revision to apply and the Architecture Designer's verdict on it. */
export type RevisionAssessment = { readonly revision: DesignRevision; readonly impact: ArchitectureImpact };

/** The designer's classes that stop a plan or a revision before anything is recorded. */
export const stops_plan = (impact: ArchitectureImpact | undefined) =>
  impact?.result_class === "requires_replan" || impact?.result_class === "reject_or_escalate";

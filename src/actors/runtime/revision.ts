import type { ArchitectureDesigner, ArchitectureImpact } from "../../contracts/architecture.js";
import type { TaskSpec } from "../../contracts/task.js";
import type { UserRequest } from "../../machines/main-agent.js";
import type { ChangeClassification, DesignRevision, RequirementChange, RevisionAssessment, TaskRevision } from "../../machines/requirement-change.js";
import type { Session } from "../../project/session-manager.js";
import { new_id } from "../../contracts/ids.js";
import { batch_emitter, emitter } from "./emit.js";
import { classify_change, type MidRunDependencies } from "./mid-run.js";
import { read_task, read_task_spec } from "./task-graph.js";

const emit = emitter("main");
const emit_all = batch_emitter("main");

/** With no Architecture Designer in the runtime, ARCHITECTURE_DESIGNING and ARCHITECTURE_REVISING pass through. */
const SILENT: ArchitectureImpact = { result_class: "silent_continue", summary: "no Architecture Designer is configured", impacted_task_ids: [] };

/** The designer's verdict, recorded as `architecture.impact.completed`; silent_continue when there is none. */
type Designer = { readonly designer: ArchitectureDesigner | undefined; readonly signal: AbortSignal };

async function assess(session: Session, { designer, signal }: Designer, summary: string, change: string, task_ids: readonly string[]) {
  if (designer === undefined) return SILENT;
  const request = { summary, change, task_ids, triggers: [{ kind: "requirement_change" as const, detail: summary }], evidence_refs: [] };
  const impact = await designer.assess(request, signal);
  emit(session, "architecture.impact.completed", {
    impact: impact.result_class === "silent_continue" ? "none" : "design",
    result_class: impact.result_class,
    impacted_task_ids: impact.impacted_task_ids,
    summary: impact.summary,
  });
  return impact;
}

/** ARCHITECTURE_DESIGNING: a plan that needs design, before it is confirmed or recorded. */
export function design_plan(
  session: Session,
  designer: ArchitectureDesigner | undefined,
  request: UserRequest,
  plan: readonly TaskSpec[],
  signal: AbortSignal,
) {
  const change = plan.map((task) => `- ${task.title}: ${task.description}`).join("\n");
  return assess(
    session,
    { designer, signal },
    request.text,
    change,
    plan.map((task) => task.id),
  );
}

/** ARCHITECTURE_REVISING: a gate's replan is drafted into a revision first (the model), then the revision is assessed. */
export async function revise_architecture(
  session: Session,
  designer: Designer,
  dependencies: MidRunDependencies,
  change: RequirementChange,
  drafted: DesignRevision | undefined,
): Promise<RevisionAssessment> {
  const revision = drafted ?? as_design(await classify_change(session, change, dependencies));
  const task_ids = [...revision.cancel, ...revision.revise.map((task) => task.task_id), ...revision.add.map((task) => task.id)];
  const impact = await assess(session, designer, revision.summary, change.text, task_ids);
  if (impact.result_class !== "silent_continue")
    emit(session, "assistant.message.created", { message_id: new_id("message"), content: revision_text(revision, impact) });
  return { revision, impact };
}

const as_design = (change: ChangeClassification): DesignRevision =>
  change.level === "design" ? change : { level: "design", summary: change.summary, cancel: [], revise: change.revise, add: [] };

function revision_text(revision: DesignRevision, impact: ArchitectureImpact): string {
  return `The plan would change (${revision.summary}): ${revision.cancel.length} cancelled, ${revision.revise.length} revised, ${revision.add.length} added. ${impact.summary}`;
}

/** Only a task that has not started (or was interrupted) takes a new text: a running or settled one keeps its own. */
const revisable = (session: Session, task_id: string) => ["pending", "interrupted"].includes(read_task(session.connection, task_id).status);

/** Records the new texts of the revisable tasks; returns the titles of those revised and of those left as they were. */
function record_revisions(session: Session, revisions: readonly TaskRevision[], reason: string): { revised: string[]; kept: string[] } {
  const revised: string[] = [];
  const kept: string[] = [];
  for (const revision of revisions) {
    const spec = read_task_spec(session.connection, revision.task_id);
    if (!revisable(session, revision.task_id)) {
      kept.push(spec.title);
      continue;
    }
    const task = { ...spec, description: revision.description, acceptance_criteria: [...revision.acceptance_criteria] };
    emit(session, "task.revised", { task_id: spec.id, task, reason });
    if (read_task(session.connection, spec.id).status === "interrupted") emit(session, "task.resumed", { task_id: spec.id, reason });
    revised.push(spec.title);
  }
  return { revised, kept };
}

function tell(session: Session, content: string): string {
  emit(session, "assistant.message.created", { message_id: new_id("message"), content });
  return content;
}

const listed = (titles: readonly string[]) => titles.map((title) => `"${title}"`).join(", ");

/** An implementation-level change: the pending tasks it names get their new text; the plan runs on. */
export function revise_tasks(session: Session, change: RequirementChange, revision: ChangeClassification): string {
  const { revised, kept } = record_revisions(session, revision.revise, change.summary);
  const kept_text = kept.length === 0 ? "" : ` Already started or finished, so left as they were: ${listed(kept)}.`;
  return tell(session, `The change (${change.summary}) updates ${revised.length === 0 ? "no pending task" : listed(revised)}; the plan runs on.${kept_text}`);
}

/**
 * A design-level revision lands: the cancelled tasks that were not running are cancelled here (the Scheduler
 * stopped the running ones' agents and cancels those), pending ones revised, new ones recorded at once.
 */
export function apply_revision(session: Session, change: RequirementChange, revision: DesignRevision): string {
  for (const task_id of revision.cancel) {
    if (revisable(session, task_id)) emit(session, "task.cancelled", { task_id, reason: change.summary });
  }
  const { revised, kept } = record_revisions(session, revision.revise, change.summary);
  if (revision.add.length > 0)
    emit_all(
      session,
      "task.created",
      revision.add.map((task) => ({ task })),
    );
  const cancelled = revision.cancel.map((task_id) => read_task(session.connection, task_id).title);
  const parts = [
    cancelled.length === 0 ? undefined : `cancelled ${listed(cancelled)}`,
    revised.length === 0 ? undefined : `revised ${listed(revised)}`,
    revision.add.length === 0 ? undefined : `added ${listed(revision.add.map((task) => task.title))}`,
    kept.length === 0 ? undefined : `left ${listed(kept)} as they were (already started)`,
  ].filter((part) => part !== undefined);
  return tell(session, `The plan changed (${revision.summary}): ${parts.join("; ") || "nothing to do"}.`);
}

import type { DurableEventType } from "../../contracts/events/registry.js";
import { agent_cancelled, agent_completed, agent_failed, agent_lost, agent_started } from "./agents.js";
import { capability_discovered, capability_failed, capability_moved, capability_tools_registered, capability_updated } from "./capabilities.js";
import type { Projection } from "./projection.js";
import { artifact_created, diagnostic_created, evidence_created, summary_created } from "./records.js";
import {
  assistant_message_created,
  assistant_message_failed,
  assistant_message_started,
  session_archived,
  session_created,
  session_deleted,
  session_renamed,
  user_message_created,
} from "./sessions.js";
import {
  compaction_completed,
  compaction_failed,
  compaction_requested,
  task_blocked,
  task_cancelled,
  task_completed,
  task_created,
  task_dependency_added,
  task_failed,
  task_interrupted,
  task_requeued,
  task_revised,
  task_started,
} from "./tasks.js";
import { command_completed, command_failed, command_started, tool_cancelled, tool_completed, tool_failed, tool_started } from "./tools.js";
import {
  workspace_abandoned,
  workspace_cleaned,
  workspace_created,
  workspace_merge_completed,
  workspace_merge_conflicted,
  workspace_merge_started,
  workspace_reactivated,
} from "./workspaces.js";

/** Events recorded in the log only: their state lives elsewhere or is read from the log (000 §5.4). */
const append_only: Projection<DurableEventType> = () => undefined;

/**
 * The domain projection of every durable event (seeds 000 §5.4 tables A and B). A mapped type, so a
 * durable event added to the registry without a projection does not compile.
 */
export const PROJECTIONS: { readonly [K in DurableEventType]: Projection<K> } = {
  "session.created": session_created,
  "session.renamed": session_renamed,
  "session.archived": session_archived,
  "session.deleted": session_deleted,
  "user.message.created": user_message_created,
  "assistant.message.started": assistant_message_started,
  "assistant.message.created": assistant_message_created,
  "assistant.message.failed": assistant_message_failed,
  "agent.started": agent_started,
  "agent.completed": agent_completed,
  "agent.failed": agent_failed,
  "agent.lost": agent_lost,
  "agent.cancelled": agent_cancelled,
  "task.created": task_created,
  "task.dependency.added": task_dependency_added,
  "task.started": task_started,
  "task.completed": task_completed,
  "task.failed": task_failed,
  "task.blocked": task_blocked,
  "task.cancelled": task_cancelled,
  "task.interrupted": task_interrupted,
  "task.revised": task_revised,
  "task.retried": task_requeued,
  "task.resumed": task_requeued,
  "task.unblocked": task_requeued,
  "tool.started": tool_started,
  "tool.completed": tool_completed,
  "tool.failed": tool_failed,
  "tool.cancelled": tool_cancelled,
  "command.started": command_started,
  "command.completed": command_completed,
  "command.failed": command_failed,
  "artifact.created": artifact_created,
  "diagnostic.created": diagnostic_created,
  "evidence.created": evidence_created,
  "context.compaction.requested": compaction_requested,
  "context.compaction.started": task_started,
  "context.compaction.completed": compaction_completed,
  "context.compaction.failed": compaction_failed,
  "summary.created": summary_created,
  "permission.decision.recorded": append_only,
  "permission.prompt.requested": append_only,
  "permission.prompt.resolved": append_only,
  "doctor.run.started": append_only,
  "doctor.check.completed": append_only,
  "doctor.fix.applied": append_only,
  "doctor.run.completed": append_only,
  "requirement.changed": append_only,
  "architecture.plan.updated": append_only,
  "architecture.impact.completed": append_only,
  "workspace.created": workspace_created,
  "workspace.merge.started": workspace_merge_started,
  "workspace.merge.completed": workspace_merge_completed,
  "workspace.merge.conflicted": workspace_merge_conflicted,
  "workspace.abandoned": workspace_abandoned,
  "workspace.reactivated": workspace_reactivated,
  "workspace.cleaned": workspace_cleaned,
  "memory.candidate.created": append_only,
  "memory.promoted": append_only,
  "memory.archived": append_only,
  "debug.record.created": append_only,
  "capability.discovered": capability_discovered,
  "capability.validated": capability_moved,
  "capability.doctor_checked": capability_moved,
  "capability.enabled": capability_moved,
  "capability.tools_registered": capability_tools_registered,
  "capability.activated": capability_moved,
  "capability.disabled": capability_moved,
  "capability.failed": capability_failed,
  "capability.updated": capability_updated,
  "budget.warning": append_only,
  "budget.exceeded": append_only,
  "wave.planned": append_only,
  "review.completed": append_only,
  "snapshot.taken": append_only,
  "restore.applied": append_only,
};

export function projection_of<K extends DurableEventType>(type: K): Projection<K> {
  return PROJECTIONS[type] as Projection<K>;
}

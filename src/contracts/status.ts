import * as v from "valibot";

/**
 * Status values of every entity with a lifecycle. They are the state names of the machines in
 * `src/machines/` and the values of the matching status columns (seeds 000 §20.3–§20.6).
 */
export const TaskStatus = v.picklist(["pending", "running", "completed", "failed", "blocked", "cancelled", "interrupted"]);
export type TaskStatus = v.InferOutput<typeof TaskStatus>;

export const AgentStatus = v.picklist(["starting", "running", "completed", "failed", "lost", "cancelled"]);
export type AgentStatus = v.InferOutput<typeof AgentStatus>;

export const WorkspaceStatus = v.picklist(["active", "merged", "conflicted", "abandoned", "cleaned"]);
export type WorkspaceStatus = v.InferOutput<typeof WorkspaceStatus>;

export const CapabilityStatus = v.picklist(["discovered", "validated", "doctor_checked", "enabled", "registered", "active", "disabled", "failed", "updated"]);
export type CapabilityStatus = v.InferOutput<typeof CapabilityStatus>;

export const SessionStatus = v.picklist(["active", "archived", "deleted"]);
export type SessionStatus = v.InferOutput<typeof SessionStatus>;

export const ToolRunStatus = v.picklist(["running", "ok", "error", "cancelled"]);
export type ToolRunStatus = v.InferOutput<typeof ToolRunStatus>;

export const MessageDraftStatus = v.picklist(["streaming", "error"]);
export type MessageDraftStatus = v.InferOutput<typeof MessageDraftStatus>;

/** Derived, never stored: `command_runs` has no status column (seeds 000 §4.4). */
export const CommandRunStatus = v.picklist(["running", "ok", "error", "cancelled", "unknown"]);
export type CommandRunStatus = v.InferOutput<typeof CommandRunStatus>;

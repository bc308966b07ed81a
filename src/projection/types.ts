/**
 * What a UI sees of one session (seeds 000 §13, 001 D-056): the ProjectionStore's state and the narrow
 * interfaces a UI is handed. The TUI imports this module (types only) and nothing else of the runtime.
 */
import type { ArtifactType, EvidenceKind } from "../contracts/artifact.js";
import type { ErrorKind } from "../contracts/errors.js";
import type { MessageRole, TokenUsage } from "../contracts/events/message.js";
import type { WorkspaceStrategy } from "../contracts/events/workspace.js";
import type {
  PermissionGrantScope,
  PermissionMode,
  PermissionSubject,
  PromptCommand,
  PromptPath,
  ProposedChange,
  RiskLevel,
} from "../contracts/events/permission.js";
import type {
  AgentId,
  ArtifactId,
  CommandRunId,
  DiagnosticId,
  EvidenceId,
  MessageId,
  PermissionPromptId,
  SessionId,
  TaskId,
  ToolRunId,
  WorkspaceId,
} from "../contracts/ids.js";
import type { AgentStatus, CommandRunStatus, MessageDraftStatus, SessionStatus, TaskStatus, ToolRunStatus } from "../contracts/status.js";
import type { TaskType } from "../contracts/task.js";
import type { AgentType } from "../contracts/worker-result.js";
import type { UiCommandSender } from "./ui-command-channel.js";
import type { HudPreset, UiState, UiStatePatch } from "./ui-state.js";

export type { HudPreset, UiCommandSender, UiStatePatch };

/** An `AirError` as a UI shows it. */
export type ErrorView = { readonly kind: ErrorKind; readonly message: string; readonly user_action: string | null };

export type SessionView = {
  readonly id: SessionId;
  readonly title: string;
  readonly status: SessionStatus;
  readonly model_provider_id: string | null;
  readonly model_id: string | null;
  readonly created_at: string | null;
};

/** A `tool_use` block of a message: which tool the model called, on what (a path, a command…). */
export type ToolUseSummary = { readonly id: string; readonly name: string; readonly input_summary: string };
export type ToolResultSummary = { readonly tool_use_id: string; readonly is_error: boolean };

/**
 * A final message. Messages with a `task_id`/`agent_id` belong to a worker's conversation with its model;
 * the user's conversation with the Main Agent has neither.
 */
export type MessageView = {
  readonly id: MessageId;
  readonly role: MessageRole;
  /** The text blocks joined; tool calls and results are summarised beside it, not in it. */
  readonly text: string;
  readonly tool_uses: readonly ToolUseSummary[];
  readonly tool_results: readonly ToolResultSummary[];
  readonly task_id: TaskId | null;
  readonly agent_id: AgentId | null;
  readonly model_id: string | null;
  readonly stop_reason: string | null;
  readonly usage: TokenUsage | null;
  readonly created_at: string;
};

/** An assistant message still streaming (`text` grows with each delta) or one whose stream failed. */
export type DraftView = {
  readonly message_id: MessageId;
  readonly status: MessageDraftStatus;
  readonly text: string;
  readonly task_id: TaskId | null;
  readonly agent_id: AgentId | null;
  readonly model_id: string | null;
  readonly error: ErrorView | null;
  readonly started_at: string;
};

type ConversationView = { readonly messages: readonly MessageView[]; readonly drafts: readonly DraftView[] };

type TaskProgress = { readonly message: string; readonly percent: number | null };

export type TaskView = {
  readonly id: TaskId;
  readonly type: TaskType;
  readonly title: string;
  readonly status: TaskStatus;
  /** How many attempts have started (1 during the first). */
  readonly attempt: number;
  readonly priority: number;
  readonly agent_id: AgentId | null;
  /** Why it is in its status: the failure, the blocking question, the cancel reason. */
  readonly status_reason: string | null;
  readonly error: ErrorView | null;
  /** The worker's own summary of its result. */
  readonly summary: string | null;
  /** Live only: the latest `task.progress` line. */
  readonly progress: TaskProgress | null;
  readonly created_at: string;
  readonly started_at: string | null;
  readonly completed_at: string | null;
};

export type AgentView = {
  readonly id: AgentId;
  readonly agent_type: AgentType;
  readonly status: AgentStatus;
  readonly task_id: TaskId | null;
  readonly model_id: string | null;
  readonly pid: number | null;
  readonly exit_code: number | null;
  readonly status_reason: string | null;
  readonly started_at: string;
  readonly ended_at: string | null;
  readonly last_heartbeat_at: string | null;
  /** Live only: the end of the text its model is streaming (capped). */
  readonly stream_tail: string;
};

export type ToolRunView = {
  readonly id: ToolRunId;
  readonly tool_name: string;
  readonly status: ToolRunStatus;
  readonly task_id: TaskId | null;
  readonly agent_id: AgentId | null;
  /** What it acts on: the command, the path, the pattern (capped). */
  readonly input_summary: string;
  /** Live only: the latest `tool.progress` message. */
  readonly progress: string | null;
  readonly error: ErrorView | null;
  readonly cancel_reason: string | null;
  readonly artifact_ids: readonly ArtifactId[];
  readonly evidence_ids: readonly EvidenceId[];
  readonly started_at: string;
  readonly completed_at: string | null;
  readonly duration_ms: number | null;
};

export type CommandRunView = {
  readonly id: CommandRunId;
  readonly command: string;
  readonly cwd: string;
  readonly tool_run_id: ToolRunId | null;
  readonly task_id: TaskId | null;
  readonly agent_id: AgentId | null;
  /** Derived as seeds 000 §4.4 says (there is no status column). */
  readonly status: CommandRunStatus;
  readonly exit_code: number | null;
  readonly signal: string | null;
  readonly cancelled: boolean;
  readonly error: ErrorView | null;
  /** Live only: the last characters of each stream (capped); the whole output is in the artifacts. */
  readonly stdout_tail: string;
  readonly stderr_tail: string;
  readonly stdout_artifact_id: ArtifactId | null;
  readonly stderr_artifact_id: ArtifactId | null;
  readonly diagnostic_ids: readonly DiagnosticId[];
  readonly started_at: string;
  readonly completed_at: string | null;
  readonly duration_ms: number | null;
};

export type PermissionPromptView = {
  readonly prompt_id: PermissionPromptId;
  readonly tool_name: string;
  readonly question: string;
  readonly risk_level: RiskLevel;
  readonly offered_scopes: readonly PermissionGrantScope[];
  /** Exactly what an answer covers, the command categories found, and every command the shell would run. */
  readonly subjects: readonly PermissionSubject[];
  readonly categories: readonly string[];
  readonly commands: readonly string[];
  /** Each command with the categories the analyzer found; the paths the call touches; the change it would make. */
  readonly command_parts: readonly PromptCommand[];
  readonly paths: readonly PromptPath[];
  readonly change: ProposedChange | null;
  readonly mode: PermissionMode | null;
  readonly tool_run_id: ToolRunId | null;
  readonly task_id: TaskId | null;
  readonly agent_id: AgentId | null;
  readonly requested_at: string;
  readonly status: "pending" | "resolved";
  readonly answer: "allow" | "deny" | null;
  readonly grant_scope: PermissionGrantScope | null;
  readonly resolved_by: "user" | "policy" | null;
  readonly note: string | null;
  readonly resolved_at: string | null;
};

export type ArtifactView = {
  readonly id: ArtifactId;
  readonly type: ArtifactType;
  readonly uri: string;
  /** Relative to the session's artifacts folder. */
  readonly path: string;
  readonly original_name: string | null;
  readonly mime_type: string | null;
  readonly size_bytes: number;
  readonly task_id: TaskId | null;
  readonly agent_id: AgentId | null;
  readonly tool_run_id: ToolRunId | null;
  readonly command_run_id: CommandRunId | null;
  readonly created_at: string;
};

export type EvidenceView = {
  readonly id: EvidenceId;
  readonly kind: EvidenceKind;
  readonly ref: string;
  readonly claim: string;
  readonly location: { readonly line_start?: number; readonly line_end?: number; readonly byte_start?: number; readonly byte_end?: number } | null;
  readonly task_id: TaskId | null;
  readonly agent_id: AgentId | null;
  readonly message_id: MessageId | null;
  readonly tool_run_id: ToolRunId | null;
  readonly command_run_id: CommandRunId | null;
  readonly artifact_id: ArtifactId | null;
  readonly diagnostic_id: DiagnosticId | null;
  readonly created_at: string;
};

/** Where a task works, as its `workspace.created` made it: a worktree's branch is named after both ids. */
export type TeamWorkspace = { readonly task_id: string | null; readonly strategy: WorkspaceStrategy; readonly path: string; readonly branch: string | null };
type WorkspaceView = TeamWorkspace & { readonly id: WorkspaceId };

export type TeamLine = { readonly tone: "info" | "error"; readonly text: string };
/** One line of a team's run — a wave, where an agent works, a merge step — printed once in the transcript. */
export type TeamLineView = TeamLine & { readonly id: string; readonly at: string };

/** A task waiting for a decision (`task.blocked`), as a blocker report shows it. */
export type BlockerView = {
  readonly task_id: TaskId;
  readonly title: string;
  readonly reason: string;
  readonly error: ErrorView | null;
  readonly since: string | null;
};

/**
 * Tokens of the whole session: the Main Agent's messages plus every worker's `model.complete` run.
 * `context_tokens` is the size of the latest model exchange, the Main Agent's or a worker's (what the next
 * request of that conversation starts from).
 */
export type UsageTotals = {
  readonly requests: number;
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
  /** Integer micro-dollars (exact sums); null when no price list was given. */
  readonly cost_micro_usd: number | null;
  readonly context_tokens: number | null;
};

/** Everything a HUD preset may show; presets choose fields, they never change the state (D-056). */
export type HudSummary = {
  readonly session_id: SessionId;
  readonly title: string;
  readonly model_id: string | null;
  readonly permission_mode: PermissionMode | null;
  readonly context_window: number | null;
  readonly context_tokens: number | null;
  readonly context_used_percent: number | null;
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly total_tokens: number;
  readonly cost_usd: number | null;
  readonly running_agents: number;
  readonly running_tasks: number;
  readonly pending_prompts: number;
  readonly blocked_tasks: number;
  /** An assistant message is streaming. */
  readonly streaming: boolean;
};

/** The ProjectionStore's state: one session as a UI shows it. Never a source of truth. */
export type ProjectionState = {
  readonly session: SessionView;
  readonly conversation: ConversationView;
  readonly tasks: readonly TaskView[];
  readonly agents: readonly AgentView[];
  readonly tool_runs: readonly ToolRunView[];
  readonly command_runs: readonly CommandRunView[];
  readonly permission_prompts: readonly PermissionPromptView[];
  readonly artifacts: readonly ArtifactView[];
  readonly evidence: readonly EvidenceView[];
  readonly blockers: readonly BlockerView[];
  readonly workspaces: readonly WorkspaceView[];
  readonly team_lines: readonly TeamLineView[];
  readonly usage: UsageTotals;
  readonly hud: HudSummary;
  /** UI-only recovery state (D-053): the UI changes it with `set_ui`; flushed to `ui_state`. */
  readonly ui: UiState;
};

/** A derived value of the state that notifies only when it changes. */
export type ProjectionSelection<T> = { get(): T; subscribe(handler: (value: T) => void): () => void };

/** What a UI holds of the projection (seeds 000 §13.2 `ProjectionClient`): in-process, read-only but for `ui`. */
export type ProjectionClient = {
  snapshot(): ProjectionState;
  subscribe(handler: (state: ProjectionState) => void): () => void;
  select<T>(selector: (state: ProjectionState) => T, equal?: (a: T, b: T) => boolean): ProjectionSelection<T>;
  set_ui(patch: UiStatePatch): void;
};

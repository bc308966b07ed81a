/**
 * `fold(state, event)`: one committed durable event or one live ephemeral event applied to the projection,
 * as a pure function. Unknown event types leave the state as it was (seeds 000 §13.1).
 */
import type { RuntimeEvent } from "../contracts/events/registry.js";
import type { TokenUsage } from "../contracts/events/message.js";
import type { PermissionMode } from "../contracts/events/permission.js";
import type { SessionId } from "../contracts/ids.js";
import { MODEL_COMPLETE_TOOL } from "../contracts/tool.js";
import { fold_team } from "./apply-team.js";
import { fold_agent, fold_command, fold_task, fold_tool, type FoldContext } from "./apply-work.js";
import type { DraftView, MessageView, PermissionPromptView, ProjectionState } from "./types.js";
import { DEFAULT_UI_STATE, type UiState } from "./ui-state.js";
import { add_usage, content_view, context_tokens_of, EMPTY_USAGE, error_view, model_usage_of, type Pricer } from "./views.js";

export type ProjectionOptions = {
  /** Characters of live command output and worker model text kept per stream. */
  tail_chars?: number;
  price?: Pricer;
  /** The session model's context window, for the HUD's "context used". */
  context_window?: number;
  /** The run's permission mode; without it the HUD shows the mode the last prompt was asked in. */
  permission_mode?: PermissionMode;
};

export type FoldOptions = FoldContext & Pick<ProjectionOptions, "price">;

export function empty_state(session_id: SessionId, ui: UiState = DEFAULT_UI_STATE): ProjectionState {
  const empty = {
    session: { id: session_id, title: "", status: "active" as const, model_provider_id: null, model_id: null, created_at: null },
    conversation: { messages: [], drafts: [] },
    tasks: [],
    agents: [],
    tool_runs: [],
    command_runs: [],
    permission_prompts: [],
    artifacts: [],
    evidence: [],
    workspaces: [],
    team_lines: [],
    usage: EMPTY_USAGE,
    ui,
  };
  return summarize(empty, {});
}

function with_drafts(state: ProjectionState, drafts: readonly DraftView[]): ProjectionState {
  return { ...state, conversation: { ...state.conversation, drafts } };
}

function draft_of(state: ProjectionState, message_id: string): DraftView | undefined {
  return state.conversation.drafts.find((draft) => draft.message_id === message_id);
}

function update_draft(state: ProjectionState, draft: DraftView): ProjectionState {
  const known = draft_of(state, draft.message_id) !== undefined;
  const drafts = known
    ? state.conversation.drafts.map((existing) => (existing.message_id === draft.message_id ? draft : existing))
    : [...state.conversation.drafts, draft];
  return with_drafts(state, drafts);
}

function add_message(state: ProjectionState, message: MessageView, options: FoldOptions): ProjectionState {
  const conversation = {
    messages: [...state.conversation.messages, message],
    drafts: state.conversation.drafts.filter((draft) => draft.message_id !== message.id),
  };
  return { ...state, conversation, usage: count_message(state, message, options) };
}

/** A worker's recorded message ends the text its model streamed: the next turn's stream starts a new line. */
function end_stream(state: ProjectionState, agent_id: string): ProjectionState {
  const agents = state.agents.map((agent) => (agent.id === agent_id && agent.stream_tail !== "" ? { ...agent, stream_tail: "" } : agent));
  return { ...state, agents };
}

/** Worker messages are counted through their `model.complete` runs, so only the Main Agent's count here. */
export function counts_usage(message: MessageView): message is MessageView & { readonly usage: TokenUsage } {
  return message.role === "assistant" && message.usage !== null && message.agent_id === null;
}

export function count_message(state: ProjectionState, message: MessageView, options: Pick<FoldOptions, "price">): ProjectionState["usage"] {
  if (!counts_usage(message)) return state.usage;
  const totals = add_usage(state.usage, message.usage, message.model_id ?? state.session.model_id, options.price);
  return { ...totals, context_tokens: context_tokens_of(message.usage) };
}

function fold_conversation(state: ProjectionState, event: RuntimeEvent, options: FoldOptions): ProjectionState {
  switch (event.type) {
    case "user.message.created":
    case "assistant.message.created": {
      const payload = event.payload;
      const assistant = event.type === "assistant.message.created" ? event.payload : undefined;
      return add_message(
        assistant?.agent_id === undefined ? state : end_stream(state, assistant.agent_id),
        {
          id: payload.message_id,
          role: assistant === undefined ? "user" : "assistant",
          ...content_view(payload.content),
          task_id: payload.task_id ?? null,
          agent_id: payload.agent_id ?? null,
          model_id: assistant?.model_id ?? null,
          stop_reason: assistant?.stop_reason ?? null,
          usage: assistant?.usage ?? null,
          created_at: event.timestamp,
        },
        options,
      );
    }
    case "assistant.message.started": {
      const { message_id, model_id, task_id, agent_id } = event.payload;
      const known = draft_of(state, message_id);
      return update_draft(
        state,
        known === undefined
          ? {
              message_id,
              status: "streaming",
              text: "",
              task_id: task_id ?? null,
              agent_id: agent_id ?? null,
              model_id: model_id ?? null,
              error: null,
              started_at: event.timestamp,
            }
          : { ...known, status: "streaming", text: "", error: null },
      );
    }
    case "assistant.message.failed": {
      const { message_id, error, partial_content, task_id, agent_id } = event.payload;
      const known = draft_of(state, message_id);
      const text = partial_content === undefined ? (known?.text ?? "") : content_view(partial_content).text;
      const base: DraftView = known ?? {
        message_id,
        status: "error",
        text,
        task_id: task_id ?? null,
        agent_id: agent_id ?? null,
        model_id: null,
        error: null,
        started_at: event.timestamp,
      };
      return update_draft(state, { ...base, status: "error", text, error: error_view(error) });
    }
    case "assistant.message.delta": {
      const { message_id, text } = event.payload;
      const known = draft_of(state, message_id);
      // A stream whose start the projection missed still shows; the final message replaces it.
      const draft: DraftView = known ?? {
        message_id,
        status: "streaming",
        text: "",
        task_id: null,
        agent_id: null,
        model_id: null,
        error: null,
        started_at: event.timestamp,
      };
      return update_draft(state, { ...draft, text: draft.text + text });
    }
    default:
      return state;
  }
}

function fold_prompt(state: ProjectionState, event: RuntimeEvent): ProjectionState {
  if (event.type === "permission.prompt.requested") {
    const p = event.payload;
    const prompt: PermissionPromptView = {
      prompt_id: p.prompt_id,
      tool_name: p.tool_name,
      question: p.question,
      risk_level: p.risk_level,
      offered_scopes: p.offered_scopes,
      subjects: p.subjects ?? [],
      categories: p.categories ?? [],
      commands: p.commands ?? [],
      command_parts: p.command_parts ?? [],
      paths: p.paths ?? [],
      change: p.change ?? null,
      mode: p.mode ?? null,
      tool_run_id: p.tool_run_id ?? null,
      task_id: p.task_id ?? null,
      agent_id: p.agent_id ?? null,
      requested_at: event.timestamp,
      status: "pending",
      answer: null,
      grant_scope: null,
      resolved_by: null,
      note: null,
      resolved_at: null,
    };
    return { ...state, permission_prompts: [...state.permission_prompts, prompt] };
  }
  if (event.type === "permission.prompt.resolved") {
    const { prompt_id, answer, grant_scope, resolved_by, note } = event.payload;
    const permission_prompts = state.permission_prompts.map((prompt) =>
      prompt.prompt_id === prompt_id
        ? { ...prompt, status: "resolved" as const, answer, grant_scope, resolved_by, note: note ?? null, resolved_at: event.timestamp }
        : prompt,
    );
    return { ...state, permission_prompts };
  }
  return state;
}

function fold_session(state: ProjectionState, event: RuntimeEvent): ProjectionState {
  switch (event.type) {
    case "session.created": {
      const { title, model_provider_id, model_id } = event.payload;
      const session = {
        ...state.session,
        title,
        status: "active" as const,
        model_provider_id: model_provider_id ?? null,
        model_id: model_id ?? null,
        created_at: event.timestamp,
      };
      return { ...state, session };
    }
    case "session.renamed":
      return { ...state, session: { ...state.session, title: event.payload.title } };
    case "session.archived":
      return { ...state, session: { ...state.session, status: "archived" } };
    case "session.deleted":
      return { ...state, session: { ...state.session, status: "deleted" } };
    default:
      return state;
  }
}

function fold_records(state: ProjectionState, event: RuntimeEvent): ProjectionState {
  if (event.type === "artifact.created") {
    const { artifact, path, original_name, mime_type, task_id, agent_id, tool_run_id, command_run_id } = event.payload;
    const view = {
      id: artifact.id,
      type: artifact.type,
      uri: artifact.uri,
      path,
      original_name: original_name ?? null,
      mime_type: mime_type ?? null,
      size_bytes: artifact.size_bytes ?? 0,
      task_id: task_id ?? null,
      agent_id: agent_id ?? null,
      tool_run_id: tool_run_id ?? null,
      command_run_id: command_run_id ?? null,
      created_at: artifact.created_at,
    };
    return { ...state, artifacts: [...state.artifacts, view] };
  }
  if (event.type === "evidence.created") {
    const { evidence, message_id, artifact_id, diagnostic_id, task_id, agent_id, tool_run_id, command_run_id } = event.payload;
    const view = {
      id: evidence.id,
      kind: evidence.kind,
      ref: evidence.ref,
      claim: evidence.claim,
      location: evidence.location ?? null,
      task_id: task_id ?? null,
      agent_id: agent_id ?? null,
      message_id: message_id ?? null,
      tool_run_id: tool_run_id ?? null,
      command_run_id: command_run_id ?? null,
      artifact_id: artifact_id ?? null,
      diagnostic_id: diagnostic_id ?? null,
      created_at: event.timestamp,
    };
    return { ...state, evidence: [...state.evidence, view] };
  }
  return state;
}

/** A worker's model request is a `model.complete` tool run; its tokens count when it completes. */
function count_model_run(before: ProjectionState, after: ProjectionState, event: RuntimeEvent, options: FoldOptions): ProjectionState {
  if (event.type !== "tool.completed") return after;
  const run = before.tool_runs.find((candidate) => candidate.id === event.payload.tool_run_id);
  const counted = run?.tool_name === MODEL_COMPLETE_TOOL ? model_usage_of(event.payload.output) : undefined;
  if (counted === undefined) return after;
  // The Main Agent's own requests and its workers' are model runs alike: the latest one is the context in use.
  return { ...after, usage: { ...add_usage(after.usage, counted.usage, counted.model_id, options.price), context_tokens: context_tokens_of(counted.usage) } };
}

/** Folds one event; `summarize` must run after a batch for the derived parts (blockers, HUD). */
export function fold(state: ProjectionState, event: RuntimeEvent, options: FoldOptions): ProjectionState {
  return fold_team(fold_work(state, event, options), event);
}

function fold_work(state: ProjectionState, event: RuntimeEvent, options: FoldOptions): ProjectionState {
  const type = event.type;
  if (type.startsWith("session.")) return fold_session(state, event);
  if (type.startsWith("user.message") || type.startsWith("assistant.message")) return fold_conversation(state, event, options);
  if (type.startsWith("task.") || type.startsWith("context.compaction")) return fold_task(state, event);
  if (type.startsWith("agent.") || type === "token.delta") return fold_agent(state, event, options);
  if (type.startsWith("tool.")) return count_model_run(state, fold_tool(state, event), event, options);
  if (type.startsWith("command.") || type === "stdout.delta" || type === "stderr.delta") return fold_command(state, event, options);
  if (type.startsWith("permission.prompt")) return fold_prompt(state, event);
  return fold_records(state, event);
}

/** The derived parts: blockers from the blocked tasks, and the HUD summary. */
export function summarize(
  state: Omit<ProjectionState, "blockers" | "hud">,
  options: Pick<ProjectionOptions, "context_window" | "permission_mode">,
): ProjectionState {
  const blockers = state.tasks
    .filter((task) => task.status === "blocked")
    .map((task) => ({ task_id: task.id, title: task.title, reason: task.status_reason ?? "", error: task.error, since: task.completed_at }));
  const { usage } = state;
  const window = options.context_window ?? null;
  const last_mode = state.permission_prompts.findLast((prompt) => prompt.mode !== null)?.mode ?? null;
  const hud = {
    session_id: state.session.id,
    title: state.session.title,
    model_id: state.session.model_id,
    permission_mode: options.permission_mode ?? last_mode,
    context_window: window,
    context_tokens: usage.context_tokens,
    context_used_percent: window === null || usage.context_tokens === null ? null : Math.min(100, Math.round((usage.context_tokens / window) * 1000) / 10),
    input_tokens: usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens,
    output_tokens: usage.output_tokens,
    total_tokens: usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens + usage.output_tokens,
    cost_usd: usage.cost_micro_usd === null ? null : usage.cost_micro_usd / 1_000_000,
    running_agents: state.agents.filter((agent) => agent.status === "running" || agent.status === "starting").length,
    running_tasks: state.tasks.filter((task) => task.status === "running").length,
    pending_prompts: state.permission_prompts.filter((prompt) => prompt.status === "pending").length,
    blocked_tasks: blockers.length,
    streaming: state.conversation.drafts.some((draft) => draft.status === "streaming"),
  };
  return { ...state, blockers, hud };
}

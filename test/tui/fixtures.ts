/**
 * TUI test states: plain ProjectionState objects (built on the projection's own empty state and summary),
 * a minimal ProjectionClient over a state holder (the TUI's input interface), and a real UiCommandChannel
 * whose every command is recorded.
 */
import { render } from "ink-testing-library";
import { createElement } from "react";
import { new_id, type SessionId } from "../../src/contracts/ids.js";
import { empty_state, summarize } from "../../src/projection/apply.js";
import type {
  AgentView,
  CommandRunView,
  DraftView,
  EvidenceView,
  MessageView,
  PermissionPromptView,
  ProjectionClient,
  ProjectionState,
  SessionView,
  TaskView,
  ToolRunView,
  UiStatePatch,
} from "../../src/projection/types.js";
import { UiCommandChannel, type UiCommand, type UiCommandType } from "../../src/projection/ui-command-channel.js";
import { App } from "../../src/tui/app.js";
import type { AppProps } from "../../src/tui/props.js";

const AT = "2026-01-01T00:00:00.000Z";
let clock = 0;
/** Increasing timestamps, so items sort in the order a test makes them. */
function at(): string {
  clock += 1;
  return new Date(Date.parse(AT) + clock * 1000).toISOString();
}

export function base_state(session_id: SessionId = new_id("session")): ProjectionState {
  const state = empty_state(session_id);
  return { ...state, session: { ...state.session, title: "fixture", model_id: "model-large" } };
}

/** `state` with `changes`, its HUD and blockers derived again as the store derives them. */
export function state_with(state: ProjectionState, changes: Partial<Omit<ProjectionState, "hud" | "blockers">>): ProjectionState {
  const { hud: _hud, blockers: _blockers, ...rest } = { ...state, ...changes };
  return summarize(rest, { context_window: 200_000 });
}

export function message(role: "user" | "assistant", text: string): MessageView {
  return {
    id: new_id("message"),
    role,
    text,
    tool_uses: [],
    tool_results: [],
    task_id: null,
    agent_id: null,
    model_id: null,
    stop_reason: null,
    usage: null,
    created_at: at(),
  };
}

export function draft(text: string, extra: Partial<DraftView> = {}): DraftView {
  return {
    message_id: new_id("message"),
    status: "streaming",
    text,
    task_id: null,
    agent_id: null,
    model_id: "model-large",
    error: null,
    started_at: at(),
    ...extra,
  };
}

export function tool_run(tool_name: string, input_summary: string, extra: Partial<ToolRunView> = {}): ToolRunView {
  return {
    id: new_id("tool_run"),
    tool_name,
    status: "running",
    task_id: null,
    agent_id: null,
    input_summary,
    progress: null,
    error: null,
    cancel_reason: null,
    artifact_ids: [],
    evidence_ids: [],
    started_at: at(),
    completed_at: null,
    duration_ms: null,
    ...extra,
  };
}

export function command_run(command: string, extra: Partial<CommandRunView> = {}): CommandRunView {
  return {
    id: new_id("command_run"),
    command,
    cwd: "/project",
    tool_run_id: null,
    task_id: null,
    agent_id: null,
    status: "running",
    exit_code: null,
    signal: null,
    cancelled: false,
    error: null,
    stdout_tail: "",
    stderr_tail: "",
    stdout_artifact_id: null,
    stderr_artifact_id: null,
    diagnostic_ids: [],
    started_at: at(),
    completed_at: null,
    duration_ms: null,
    ...extra,
  };
}

export function task(title: string, extra: Partial<TaskView> = {}): TaskView {
  return {
    id: new_id("task"),
    type: "execute",
    title,
    status: "running",
    attempt: 1,
    priority: 0,
    agent_id: null,
    status_reason: null,
    error: null,
    summary: null,
    progress: null,
    created_at: at(),
    started_at: null,
    completed_at: null,
    ...extra,
  };
}

export function agent(extra: Partial<AgentView> = {}): AgentView {
  return {
    id: new_id("agent"),
    agent_type: "executor",
    status: "running",
    task_id: null,
    model_id: "model-small",
    pid: 4242,
    exit_code: null,
    status_reason: null,
    started_at: at(),
    ended_at: null,
    last_heartbeat_at: null,
    stream_tail: "",
    ...extra,
  };
}

export function prompt(extra: Partial<PermissionPromptView> = {}): PermissionPromptView {
  return {
    prompt_id: new_id("permission_prompt"),
    tool_name: "shell.run",
    question: "Run `make test && rm -rf build`?",
    risk_level: "high",
    offered_scopes: ["once", "session", "project"],
    subjects: [
      { kind: "command", command: "make test" },
      { kind: "command", command: "rm -rf build" },
    ],
    categories: ["build", "destructive"],
    commands: ["make test", "rm -rf build"],
    command_parts: [
      { command: "make test", categories: ["build", "test"] },
      { command: "rm -rf build", categories: ["destructive"] },
    ],
    paths: [],
    change: null,
    mode: "default",
    tool_run_id: null,
    task_id: null,
    agent_id: null,
    requested_at: at(),
    status: "pending",
    answer: null,
    grant_scope: null,
    resolved_by: null,
    note: null,
    resolved_at: null,
    ...extra,
  };
}

/** A ProjectionClient over a plain state holder: `set` replaces the state and notifies, as the store does. */
export class StateHolder implements ProjectionClient {
  readonly #handlers = new Set<(state: ProjectionState) => void>();
  notifications = 0;

  constructor(private state: ProjectionState) {}

  snapshot(): ProjectionState {
    return this.state;
  }

  subscribe(handler: (state: ProjectionState) => void): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  select<T>(selector: (state: ProjectionState) => T) {
    return { get: () => selector(this.state), subscribe: (handler: (value: T) => void) => this.subscribe((state) => handler(selector(state))) };
  }

  set_ui(patch: UiStatePatch): void {
    this.set({ ...this.state, ui: { ...this.state.ui, ...patch } });
  }

  set(state: ProjectionState): void {
    this.state = state;
    this.notifications += 1;
    for (const handler of this.#handlers) handler(state);
  }

  update(changes: Partial<Omit<ProjectionState, "hud" | "blockers">>): void {
    this.set(state_with(this.state, changes));
  }
}

const COMMAND_TYPES: readonly UiCommandType[] = ["send_message", "answer_permission", "interrupt", "compact", "direct_mode", "plan_decision"];

/** A real channel with a handler for every command type, recording what arrives. */
export function recording_channel(): { channel: UiCommandChannel; commands: UiCommand[] } {
  const channel = new UiCommandChannel();
  const commands: UiCommand[] = [];
  for (const type of COMMAND_TYPES) channel.on(type, (command) => commands.push(command));
  return { channel, commands };
}

export type Rendered = ReturnType<typeof render> & { exits: () => number; commands: UiCommand[]; holder: StateHolder; channel: UiCommandChannel };

export function render_app(state: ProjectionState, props: Partial<AppProps> = {}): Rendered {
  const holder = new StateHolder(state);
  const { channel, commands } = recording_channel();
  let exits = 0;
  const sessions: SessionView[] = [];
  const rendered = render(
    createElement(App, {
      client: holder,
      sender: channel,
      read_artifact: (id) => {
        throw new Error(`no artifact ${id}`);
      },
      list_sessions: () => sessions,
      on_exit: () => {
        exits += 1;
      },
      ...props,
    }),
  );
  return Object.assign(rendered, { exits: () => exits, commands, holder, channel });
}

/** Waits until `check` holds (ink renders on timers), or fails with what the screen showed. */
export async function until(check: () => boolean, what: () => string = () => "", timeout_ms = 2000): Promise<void> {
  const deadline = Date.now() + timeout_ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out; last frame:\n${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Types into the app: each string is one stdin chunk, with a pause for ink to process it. */
export async function type_keys(rendered: Rendered, ...chunks: string[]): Promise<void> {
  for (const chunk of chunks) {
    rendered.stdin.write(chunk);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function evidence(extra: Partial<EvidenceView> = {}): EvidenceView {
  return {
    id: new_id("evidence"),
    kind: "command_run",
    ref: "ctest",
    claim: "all 3 tests pass",
    location: null,
    task_id: null,
    agent_id: null,
    message_id: null,
    tool_run_id: null,
    command_run_id: null,
    artifact_id: null,
    diagnostic_id: null,
    created_at: "2026-01-01T00:00:00.000Z",
    ...extra,
  };
}

import fs from "node:fs";
import type { InspectionEvent, Observer } from "xstate";
import { summary_of } from "../actors/runtime/main-agent-actors.js";
import { recover_session } from "../actors/runtime/recovery.js";
import { emitter } from "../actors/runtime/emit.js";
import { busy_failure, not_in_direct_mode_failure, type Runtime } from "../actors/runtime/runtime.js";
import { to_air_error } from "../contracts/errors.js";
import { new_id, type SessionId } from "../contracts/ids.js";
import { CONTEXT_COMPACT_TOOL } from "../contracts/tool.js";
import type { PermissionEngine } from "../permissions/engine.js";
import { permissions_for_project, prompts_of } from "../permissions/session-permissions.js";
import { project_layout } from "../project/layout.js";
import { init_project, locate_project_root, read_project } from "../project/project-store.js";
import { open_session, type Session } from "../project/session-manager.js";
import { list_tasks } from "../orchestration/task-listing.js";
import { open_session_projection, type SessionProjection } from "../projection/session-projection.js";
import { turn_running_failure } from "../projection/ui-command-channel.js";
import { name_unnamed_session, UNNAMED_SESSION } from "../project/session-title.js";
import type { ProviderManager } from "../providers/manager.js";
import { request_cost_usd } from "../providers/pricing.js";
import type { Io } from "./output.js";
import type { PermissionOptions } from "./permission-options.js";
import type { PreFrame } from "./pre-frame.js";
import { plan_text, plan_view } from "./plan-view.js";
import { follow_replies } from "./replies.js";
import type { RunBudget } from "../contracts/budget.js";
import { note_project_opened, runtime_for } from "./run-requirement.js";
import { artifact_reader, deferred_answerer, session_views } from "./tui-session.js";
import { sweep_project_workspaces } from "../workspaces/sweep.js";
import { recover_at_resume } from "../recovery/run.js";

export type InteractiveOptions = {
  readonly permissions: PermissionOptions;
  readonly max_turns?: number;
  readonly max_parallel?: number;
  /** The run's limits from `--max-budget-usd` / `--max-tokens`. */
  readonly run_budget?: RunBudget;
  /** Reopen this session (`air resume`): recover it, ask its open prompts again, finish its tasks. */
  readonly session_id?: SessionId;
  readonly inspect?: Observer<InspectionEvent>;
  /** The prompt line's text at the first frame, sent when the user presses Enter (`air demo` types its requirement in). */
  readonly draft?: string;
  /** `air run`'s first frame, painted before this module loaded: ink takes it over. */
  readonly pre_frame?: PreFrame;
};

/**
 * Timings the TUI benchmark reads (`AIR_TUI_METRICS=<file>`): epoch ms, frames drawn, CPU of this process.
 * `first_frame_at` is the first frame on screen (the pre-frame's when there is one), `ink_frame_at` ink's.
 */
type Metrics = {
  started_at: number;
  first_frame_at?: number;
  ink_frame_at?: number;
  main_agent_ready_at?: number;
  frames: number;
  render_ms: number;
};

const epoch_ms = () => performance.timeOrigin + performance.now();

function write_metrics(metrics: Metrics): void {
  const file = process.env.AIR_TUI_METRICS;
  if (file === undefined || file === "") return;
  fs.writeFileSync(file, `${JSON.stringify({ ...metrics, process_started_at: performance.timeOrigin, cpu: process.cpuUsage(), ended_at: epoch_ms() })}\n`);
}

/** A failure nobody reported is told as the Main Agent's message. */
const say = emitter("main");

/** Work the user started; resolves to a failure to tell, if any. */
type Work = () => Promise<string | undefined>;

/**
 * Work the user started (a message, `/compact`, a resumed session's remaining tasks): one at a time, so the
 * Main Agent and the Scheduler never run two requests at once. A failure nobody else reported becomes an
 * assistant message, so the conversation says what happened.
 */
class Turns {
  #current: Promise<void> | undefined;
  readonly #waiting: Work[] = [];

  constructor(private readonly session: Session) {}

  /** Work runs or waits to run. */
  get busy(): boolean {
    return this.#current !== undefined || this.#waiting.length > 0;
  }

  start(work: Work): void {
    if (this.busy) throw busy_failure();
    this.#run(work);
  }

  /** Starts `work` once the work running and the work waiting before it have ended (at once when there is none). */
  after(work: Work): void {
    if (this.busy) this.#waiting.push(work);
    else this.#run(work);
  }

  #run(work: Work): void {
    const replies = follow_replies(this.session.bus);
    this.#current = work()
      .then(
        (failure) => failure,
        (error: unknown) => `The request failed: ${to_air_error(error).message}`,
      )
      .then((failure) => {
        if (failure !== undefined && replies.last() === undefined) this.#say(failure);
      })
      .catch(() => undefined)
      .finally(() => {
        replies.stop();
        this.#current = undefined;
        const next = this.#waiting.shift();
        if (next !== undefined) this.#run(next);
      });
  }

  /** Resolves when the running work has ended (at once when there is none); work still waiting is dropped. */
  settled(): Promise<void> {
    this.#waiting.length = 0;
    return this.#current ?? Promise.resolve();
  }

  #say(text: string): void {
    say(this.session, "assistant.message.created", { message_id: new_id("message"), content: text });
  }
}

/**
 * The conversation shows each plan before work starts — its tasks, write areas and dependencies, and whether
 * it waits for /approve or /reject — as a message of the Main Agent. Returns the unsubscribe.
 */
function show_plans(session: Session): () => void {
  return session.bus.subscribe({ types: ["plan.proposed"] }, (event) => {
    if (event.type !== "plan.proposed") return;
    say(session, "assistant.message.created", {
      message_id: new_id("message"),
      content: plan_text(plan_view(event.payload.tasks, event.payload.awaiting_confirmation)),
    });
  });
}

/** A mid-run message's failure is said in the conversation; its answer the Main Agent records itself. */
function mid_run(session: Session, runtime: Runtime, text: string): void {
  runtime.submit(text).then(
    (outcome) => {
      if (outcome.kind === "failed") say(session, "assistant.message.created", { message_id: new_id("message"), content: summary_of(session, outcome) });
    },
    (error: unknown) =>
      say(session, "assistant.message.created", { message_id: new_id("message"), content: `The message failed: ${to_air_error(error).message}` }),
  );
}

/** Routes the UI's commands to the runtime; returns the unsubscribe. */
function route_commands(projection: SessionProjection, runtime: Runtime, session: Session, turns: Turns): () => void {
  const { channel } = projection;
  const offs = [
    // In direct mode the Main Agent itself takes the message as a direct turn (seeds 003 §10.5).
    channel.on("send_message", ({ text, direct, after_turn }) => {
      // While a plan executes the Main Agent listens: the message is answered (or weighed) beside the running turn.
      if (turns.busy && runtime.accepts_message() && direct !== true) {
        name_unnamed_session(session, text);
        return void mid_run(session, runtime, text);
      }
      const waits = turns.busy || runtime.busy();
      // The UI queues a message the running turn cannot take; one it already queued waits here for the turn to end.
      if (waits && after_turn !== true) throw turn_running_failure();
      if (!waits && direct === true && !runtime.in_direct_mode()) throw not_in_direct_mode_failure();
      name_unnamed_session(session, text);
      turns.after(async () => {
        if (direct === true && !runtime.in_direct_mode()) throw not_in_direct_mode_failure();
        const outcome = await runtime.submit(text);
        return outcome.kind === "failed" ? summary_of(session, outcome) : undefined;
      });
    }),
    channel.on("interrupt", ({ reason }) => {
      if (turns.busy) runtime.cancel(reason);
    }),
    // `/direct` switches at once; `/done` is a turn of its own: evidence, summary (an assistant message), idle.
    channel.on("direct_mode", ({ enabled }) => {
      if (turns.busy || runtime.busy()) throw busy_failure();
      if (enabled) return runtime.enter_direct();
      if (!runtime.in_direct_mode()) throw not_in_direct_mode_failure();
      turns.start(async () => {
        const outcome = await runtime.leave_direct();
        return outcome.kind === "failed" ? summary_of(session, outcome) : undefined;
      });
    }),
    // A plan of more than one task waits in the Main Agent while its turn runs; the decision goes straight to it.
    channel.on("plan_decision", ({ approve, reason }) => {
      if (approve) runtime.approve_plan();
      else runtime.reject_plan(reason ?? "the user rejected the plan");
    }),
    channel.on("compact", () => {
      turns.start(async () => {
        const outcome = await runtime.registry.call({ tool_name: CONTEXT_COMPACT_TOOL, input: { reason: "/compact" } }, { session });
        return outcome.ok ? undefined : `Compaction did not run: ${outcome.error.message}`;
      });
    }),
  ];
  return () => {
    for (const off of offs) off();
  };
}

/** The workspace GC of the project (sweep.ts) beside the first frame: a failure is said in the conversation, never fatal. */
function sweep_in_background(session: Session): Promise<void> {
  return sweep_project_workspaces(session).then(
    () => undefined,
    (error: unknown) => {
      const content = `Old workspaces of this project were not cleaned up: ${to_air_error(error).message}`;
      say(session, "assistant.message.created", { message_id: new_id("message"), content });
    },
  );
}

/** A resumed session's recovery checks (recovery/run.ts, the workspace GC among them): said in the conversation only when they found something. */
function recover_in_background(session: Session): Promise<void> {
  return recover_at_resume(session).then(
    (line) => {
      if (line !== undefined) say(session, "assistant.message.created", { message_id: new_id("message"), content: line });
    },
    (error: unknown) => {
      const content = `The recovery checks of this session did not finish: ${to_air_error(error).message}`;
      say(session, "assistant.message.created", { message_id: new_id("message"), content });
    },
  );
}

/** A resumed session: recovered from its rows, its open prompts asked again (in the UI), its pending tasks run. */
function resume_in_background(session: Session, permissions: PermissionEngine, runtime: Runtime, turns: Turns): void {
  recover_session(session);
  const { pending, answered } = prompts_of(session);
  turns.start(async () => {
    await permissions.resume_prompts(pending, answered, session);
    const result = await runtime.resume();
    return result.status === "completed"
      ? undefined
      : `The session's remaining tasks did not finish: the Scheduler is ${result.status}${result.error === undefined ? "" : ` (${result.error.message})`}.`;
  });
}

/**
 * `air run` (no `-p`) and `air resume` on a terminal: the session's runtime with the TUI on top. The
 * provider and the permissions files are checked before anything is written; on exit the running turn
 * is interrupted, the UI state flushed and the session closed, so `air resume` can reopen it.
 */
export async function run_interactive(io: Io, providers: ProviderManager, options: InteractiveOptions): Promise<number> {
  const metrics: Metrics = {
    started_at: epoch_ms(),
    frames: 0,
    render_ms: 0,
    ...(options.pre_frame === undefined ? {} : { first_frame_at: options.pre_frame.painted_at }),
  };
  const provider = providers.require_configured();
  const existing_root = locate_project_root(io.cwd);
  const answerer = deferred_answerer();
  const mode = options.permissions.mode;
  const permissions = permissions_for_project(project_layout(existing_root ?? io.cwd), { answerer, ...(mode === undefined ? {} : { mode }) });
  const project = existing_root === undefined ? init_project(io.cwd).project : read_project(existing_root);
  await note_project_opened(io, project);
  const session = open_session(project, {
    ...(options.session_id === undefined ? { title: UNNAMED_SESSION } : { session_id: options.session_id }),
    model_provider_id: provider.provider_id,
    model_id: provider.model_id,
  });
  let projection: SessionProjection | undefined;
  let runtime: Runtime | undefined;
  let tui: Awaited<ReturnType<typeof show_tui>> | undefined;
  let swept: Promise<void> | undefined;
  try {
    const context_window = providers.context_window(session.model_id, session.model_provider_id);
    projection = open_session_projection(session, {
      price: request_cost_usd,
      permission_mode: permissions.mode,
      ...(context_window === undefined ? {} : { context_window }),
    });
    answerer.forward_to(projection.answerer);
    if (options.draft !== undefined) projection.store.set_ui({ input_draft: options.draft });
    // The first frame does not wait for the runtime: the channel keeps what the user sends meanwhile.
    tui = await show_tui(session, projection, metrics, options.pre_frame);
    // A resumed session's "allow for this session" answers hold before its MCP servers ask to start.
    if (options.session_id !== undefined) permissions.restore_session_grants(prompts_of(session).answered);
    runtime = await runtime_for(session, providers, { ...options, interactive: true }, permissions);
    const unshow = show_plans(session);
    metrics.main_agent_ready_at = epoch_ms();
    const turns = new Turns(session);
    const unroute = route_commands(projection, runtime, session, turns);
    if (options.session_id !== undefined) resume_in_background(session, permissions, runtime, turns);
    swept = options.session_id === undefined ? sweep_in_background(session) : recover_in_background(session);
    await tui.exited;
    unroute();
    unshow();
    if (turns.busy) runtime.cancel("the user left the session");
    await turns.settled();
    return 0;
  } finally {
    // After a failure while the TUI is up, it must go, or ink would keep the process alive.
    tui?.unmount();
    projection?.close();
    await runtime?.stop();
    await swept;
    session.close();
    write_metrics(metrics);
  }
}

/** Renders the App; `exited` resolves when the user leaves (`/exit`, Ctrl+C twice) or the terminal goes away. */
async function show_tui(
  session: Session,
  projection: SessionProjection,
  metrics: Metrics,
  pre_frame: PreFrame | undefined,
): Promise<{ exited: Promise<void>; unmount(): void }> {
  await import("../tui/react-production.js");
  // React is CommonJS: bundled, its dynamic import is its `default` alone (scripts/bundle-cli.mjs).
  const [{ render }, { default: React }, { App }] = await Promise.all([import("ink"), import("react"), import("../tui/index.js")]);
  const layout = session.project.layout;
  const element = React.createElement(App, {
    client: projection.store,
    sender: projection.channel,
    read_artifact: artifact_reader(layout, session.id, projection.store),
    list_sessions: () => session_views(layout),
    read_tasks: () => list_tasks(session.connection),
    on_exit: () => undefined,
  });
  // ink draws its first frame within `render`, where the pre-frame stood.
  pre_frame?.hand_over();
  // As `mount_tui` does (Ctrl+C is the App's, ≤ 30 frames a second), plus the frame count the bench reads.
  const instance = render(element, {
    exitOnCtrlC: false,
    maxFps: 30,
    onRender: ({ renderTime }) => {
      metrics.ink_frame_at ??= epoch_ms();
      metrics.first_frame_at ??= metrics.ink_frame_at;
      metrics.frames += 1;
      metrics.render_ms += renderTime;
    },
  });
  // A closed terminal or a kill: leave as `/exit` would, so the session is closed cleanly and resumable.
  const leave = () => instance.unmount();
  const signals = ["SIGTERM", "SIGHUP"] as const;
  for (const signal of signals) process.once(signal, leave);
  const exited = instance.waitUntilExit().finally(() => {
    for (const signal of signals) process.off(signal, leave);
  });
  return { exited: exited.then(() => undefined), unmount: leave };
}

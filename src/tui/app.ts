import { Box, Static, useApp, useInput, useStdout } from "ink";
import { createElement as h, useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import type { PermissionPromptView, ProjectionState } from "../projection/types.js";
import type { AppProps } from "./props.js";
import { clean_text } from "./sanitize.js";
import { help_text, parse_input, type SlashName } from "./slash.js";
import { MAX_FPS, use_projection } from "./use-projection.js";
import { BlockerReports } from "./views/blockers.js";
import { collect_finished, type FinishedItem, type Notice } from "./views/finished.js";
import { FinishedView } from "./views/finished-view.js";
import { Hud, HUD_PRESETS, next_preset } from "./views/hud.js";
import { LiveDrafts } from "./views/live-drafts.js";
import { PermissionDialog, type PromptAnswer } from "./views/permission-prompt.js";
import { Progress } from "./views/progress.js";
import { PromptLine } from "./views/prompt-line.js";

const EXIT_HINT = "Press Ctrl+C again to exit (the session stays resumable).";
/** Lines the live region keeps for everything but a streaming reply (HUD, progress, prompt line). */
const RESERVED_ROWS = 14;

/**
 * State whose handlers read the latest value at once: keys arriving in one burst (a paste, `tmux send-keys`,
 * two quick Ctrl+C) reach the input handler before React re-renders it with the new value.
 */
function use_synced<T>(initial: T): [T, { readonly current: T }, (next: T) => void] {
  const ref = useRef(initial);
  const [value, set_value] = useState(initial);
  const set = useCallback((next: T) => {
    ref.current = next;
    set_value(next);
  }, []);
  return [value, ref, set];
}

/** The finished items in the order they finished; the list only grows, so `<Static>` prints each once. */
function use_finished(state: ProjectionState, read_artifact: AppProps["read_artifact"]) {
  const seen = useRef(new Set<string>());
  const items = useRef<FinishedItem[]>([]);
  const last_state = useRef<ProjectionState | undefined>(undefined);
  const notices = useRef(0);
  const [, set_version] = useState(0);
  if (last_state.current !== state) {
    last_state.current = state;
    const fresh = collect_finished(state, seen.current, read_artifact);
    if (fresh.length > 0) items.current = [...items.current, ...fresh];
  }
  const add_notice = useCallback((notice: Notice) => {
    notices.current += 1;
    items.current = [...items.current, { key: `n:${notices.current}`, at: new Date().toISOString(), kind: "notice", notice }];
    set_version((version) => version + 1);
  }, []);
  return { items: items.current, add_notice };
}

function open_prompt(state: ProjectionState, answered: ReadonlySet<string>): PermissionPromptView | undefined {
  return state.permission_prompts
    .filter((prompt) => prompt.status === "pending" && !answered.has(prompt.prompt_id))
    .sort((a, b) => (a.requested_at < b.requested_at ? -1 : 1))[0];
}

function is_busy(state: ProjectionState): boolean {
  const { hud } = state;
  return hud.streaming || hud.running_tasks > 0 || hud.running_agents > 0 || hud.pending_prompts > 0;
}

function error_text(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The whole screen of `air run`/`air resume` (seeds 000 §13.2). Above: finished items in ink's `<Static>`,
 * printed once. Below: the live region — streaming reply, progress, blockers, the permission dialog, the
 * HUD and the prompt line — re-rendered at most `max_fps` times a second and kept shorter than the terminal.
 */
export function App(props: AppProps): ReactNode {
  const { client, sender } = props;
  const { exit } = useApp();
  const { stdout } = useStdout();
  const { state, tick } = use_projection(client, props.max_fps ?? MAX_FPS, is_busy);
  const { items, add_notice } = use_finished(state, props.read_artifact);
  const [draft, typed, set_draft] = use_synced(state.ui.input_draft);
  const [direct, in_direct, set_direct] = use_synced(false);
  const [exit_armed, armed, set_exit_armed] = use_synced(false);
  const [answered, answered_now, set_answered] = use_synced<ReadonlySet<string>>(new Set());
  const left = useRef(false);
  const busy = is_busy(state);
  const prompt = open_prompt(state, answered);
  const rows = stdout.rows ?? 24;
  const columns = stdout.columns ?? 80;

  useEffect(() => {
    if (client.snapshot().ui.input_draft !== draft) client.set_ui({ input_draft: draft });
  }, [client, draft]);

  const attempt = useCallback(
    (action: () => unknown): boolean => {
      try {
        action();
        return true;
      } catch (error) {
        add_notice({ tone: "error", text: error_text(error) });
        return false;
      }
    },
    [add_notice],
  );

  const leave = useCallback(() => {
    if (left.current) return;
    left.current = true;
    props.on_exit();
    exit();
  }, [props, exit]);

  const run_command = (name: SlashName, args: string): void => {
    switch (name) {
      case "help":
        return add_notice({ tone: "info", text: help_text() });
      case "compact":
        if (attempt(() => sender.compact())) add_notice({ tone: "info", text: "Compacting the context…" });
        return;
      case "direct":
        if (in_direct.current) return add_notice({ tone: "info", text: "Already in direct mode; /done leaves it." });
        if (attempt(() => sender.direct_mode(true))) {
          set_direct(true);
          add_notice({ tone: "info", text: "Direct mode: your messages go to the running agent. /done ends it." });
        }
        return;
      case "done":
        if (!in_direct.current) return add_notice({ tone: "info", text: "Not in direct mode (/direct enters it)." });
        if (attempt(() => sender.direct_mode(false))) set_direct(false);
        return;
      case "hud": {
        const wanted = HUD_PRESETS.find((preset) => preset === args.trim().toLowerCase());
        client.set_ui({ hud_preset: wanted ?? next_preset(state.ui.hud_preset) });
        return;
      }
      case "sessions":
        Promise.resolve()
          .then(() => props.list_sessions())
          .then(
            (sessions) =>
              add_notice({
                tone: "info",
                text: sessions.length === 0
                  ? "No sessions."
                  : ["Sessions:", ...sessions.map((session) => `  ${session.id}  ${session.status.padEnd(10)} ${session.created_at ?? ""}  ${session.title}`)].join("\n"),
              }),
            (error: unknown) => add_notice({ tone: "error", text: error_text(error) }),
          );
        return;
      case "exit":
        return leave();
    }
  };

  const submit = (): void => {
    const parsed = parse_input(typed.current);
    set_draft("");
    if (parsed.kind === "message") attempt(() => sender.send_message(parsed.text, in_direct.current ? { direct: true } : {}));
    else if (parsed.kind === "command") run_command(parsed.name, parsed.args);
    else if (parsed.kind === "unknown_command") add_notice({ tone: "error", text: `Unknown command /${parsed.name}; /help lists them.` });
  };

  useInput((input, key) => {
    if (key.ctrl && input === "c") {
      if (armed.current) leave();
      else set_exit_armed(true);
      return;
    }
    if (armed.current) set_exit_armed(false);
    if (key.escape) {
      if (busy) attempt(() => sender.interrupt("interrupted by the user (Esc)"));
      return;
    }
    if (prompt !== undefined) return;
    if (key.return) submit();
    else if (key.backspace || key.delete) set_draft(typed.current.slice(0, -1));
    else if (!key.ctrl && !key.meta && input !== "") type_text(input);
  });

  /** Typed or pasted text; a carriage return in it is Enter (typed text then Enter in one burst). */
  const type_text = (input: string): void => {
    const [first = "", ...after_enter] = input.split("\r");
    set_draft(typed.current + clean_text(first));
    for (const segment of after_enter) {
      submit();
      set_draft(clean_text(segment));
    }
  };

  const answer = (answer: PromptAnswer): void => {
    if (prompt === undefined || answered_now.current.has(prompt.prompt_id)) return;
    set_answered(new Set([...answered_now.current, prompt.prompt_id]));
    attempt(() => sender.answer_permission(prompt.prompt_id, answer.answer, answer.grant_scope));
  };

  return h(
    Box,
    { flexDirection: "column" },
    h(Static<FinishedItem>, { items, children: (item: FinishedItem) => h(FinishedView, { key: item.key, item }) }),
    h(LiveDrafts, { drafts: state.conversation.drafts, max_lines: Math.max(3, rows - RESERVED_ROWS), columns, tick }),
    h(Progress, { state, tick, columns }),
    h(BlockerReports, { blockers: state.blockers }),
    prompt === undefined ? null : h(PermissionDialog, { key: prompt.prompt_id, prompt, on_answer: answer }),
    h(Hud, { hud: state.hud, preset: state.ui.hud_preset }),
    h(PromptLine, { draft, direct, hint: exit_armed ? EXIT_HINT : null, disabled: prompt !== undefined }),
  );
}

import { useApp, useInput } from "ink";
import { useEffect, useRef } from "react";
import type { PermissionPromptId } from "../contracts/ids.js";
import type { PermissionPromptView, ProjectionState } from "../projection/types.js";
import { error_text, run_command, type CommandContext } from "./commands.js";
import type { AppProps } from "./props.js";
import { clean_text } from "./sanitize.js";
import { parse_input } from "./slash.js";
import { type MessageQueue, useMessageQueue } from "./use-message-queue.js";
import { useSynced } from "./use-synced.js";
import type { Notice } from "./views/finished.js";
import type { DialogKeys, PromptAnswer } from "./views/permission-prompt.js";

const UI_DRAFT_MAX = 100_000;

export function is_busy(state: ProjectionState): boolean {
  const { hud } = state;
  // A running tool run counts too: the Main Agent's own model call is one, and Esc must reach it.
  return hud.streaming || hud.running_tasks > 0 || hud.running_agents > 0 || hud.pending_prompts > 0 || state.tool_runs.some((run) => run.status === "running");
}

function open_prompt(state: ProjectionState, answered: ReadonlySet<string>): PermissionPromptView | undefined {
  return state.permission_prompts
    .filter((prompt) => prompt.status === "pending" && !answered.has(prompt.prompt_id))
    .sort((a, b) => (a.requested_at < b.requested_at ? -1 : 1))[0];
}

export type Controls = {
  readonly draft: string;
  /** Messages queued behind the running turn, and sent ones not recorded yet. */
  readonly outgoing: Pick<MessageQueue, "queued" | "echoes">;
  readonly direct: boolean;
  readonly exit_armed: boolean;
  /** The permission prompt the dialog shows (the oldest one not answered yet). */
  readonly prompt: PermissionPromptView | undefined;
  readonly answer: (prompt_id: PermissionPromptId, answer: PromptAnswer) => boolean;
  /** The key handler of the dialog on screen, offered every key first (see `DialogKeys`). */
  readonly dialog_keys: { current: DialogKeys | undefined };
};

/**
 * The keyboard: the prompt line and its slash commands, Esc (interrupt the running turn), Up and Ctrl+X (edit
 * or drop the newest queued message), Ctrl+C twice (exit through `on_exit`, the session stays resumable) and
 * the answers of the permission dialog.
 */
export function useControls(props: AppProps, state: ProjectionState, notify: (notice: Notice) => void): Controls {
  const { sender } = props;
  const { exit } = useApp();
  const [draft, typed, set_draft] = useSynced(state.ui.input_draft);
  const [direct, in_direct, set_direct] = useSynced(false);
  const [exit_armed, armed, set_exit_armed] = useSynced(false);
  const [answered, answered_now, set_answered] = useSynced<ReadonlySet<string>>(new Set());
  const left = useRef(false);
  const dialog_keys = useRef<DialogKeys | undefined>(undefined);
  const prompt = open_prompt(state, answered);

  // The unsent line survives a restart (D-053: `ui_state`, which keeps at most its first 100,000 characters);
  // written only when it changes.
  useEffect(() => {
    const kept = draft.slice(0, UI_DRAFT_MAX);
    if (props.client.snapshot().ui.input_draft !== kept) props.client.set_ui({ input_draft: kept });
  }, [props.client, draft]);

  const attempt = (action: () => unknown): boolean => {
    try {
      action();
      return true;
    } catch (error) {
      notify({ tone: "error", text: error_text(error) });
      return false;
    }
  };
  const leave = (): void => {
    if (left.current) return;
    left.current = true;
    props.on_exit();
    exit();
  };
  const context: CommandContext = {
    sender,
    client: props.client,
    list_sessions: props.list_sessions,
    notify,
    attempt,
    leave,
    direct: { get: () => in_direct.current, set: set_direct },
  };

  const queue = useMessageQueue({
    sender,
    client: props.client,
    state,
    busy: is_busy(state),
    attempt,
    restore: (text) => {
      if (typed.current === "") set_draft(text);
    },
  });

  /** Up brings the newest queued message back to an empty prompt line, out of the queue, to be edited and sent again. */
  const edit_queued = (): void => {
    if (typed.current !== "") return;
    const taken = queue.take_last();
    if (taken !== undefined) set_draft(taken.text);
  };

  const submit = (): void => {
    const line = typed.current;
    const parsed = parse_input(line);
    set_draft("");
    if (parsed.kind === "message") {
      // A refused message (the session has ended, say) stays on the line to be sent again.
      if (!queue.submit(parsed.text, in_direct.current)) set_draft(line);
    } else if (parsed.kind === "command") run_command(parsed.name, parsed.args, context);
    else if (parsed.kind === "unknown_command") notify({ tone: "error", text: `Unknown command /${parsed.name}; /help lists them.` });
  };

  /** Typed or pasted text; a carriage return in it is Enter (typed text then Enter in one burst). */
  const type_text = (input: string): void => {
    const [first = "", ...after_enter] = input.split("\r");
    set_draft(typed.current + clean_text(first));
    for (const segment of after_enter) {
      submit();
      set_draft(clean_text(segment));
    }
  };

  useInput((input, key) => {
    if (key.ctrl && input === "c") {
      if (armed.current) leave();
      else set_exit_armed(true);
      return;
    }
    if (armed.current) set_exit_armed(false);
    if (key.escape) {
      if (is_busy(props.client.snapshot())) attempt(() => sender.interrupt("interrupted by the user (Esc)"));
      return;
    }
    // The dialog on screen takes its keys; any other key, or one typed before a dialog shows, is the prompt line's.
    if (dialog_keys.current?.(input, key) === true) return;
    if (key.upArrow) edit_queued();
    else if (key.ctrl && input === "x") queue.take_last();
    else if (key.return) submit();
    else if (key.backspace || key.delete) set_draft(typed.current.slice(0, -1));
    else if (!key.ctrl && !key.meta && input !== "") type_text(input);
  });

  const answer = (prompt_id: PermissionPromptId, chosen: PromptAnswer): boolean => {
    if (answered_now.current.has(prompt_id)) return false;
    const before = answered_now.current;
    set_answered(new Set([...before, prompt_id]));
    // A refused answer (the runtime no longer waits for it, say) leaves the dialog up beside the reason.
    if (attempt(() => sender.answer_permission(prompt_id, chosen.answer, chosen.grant_scope))) return true;
    set_answered(before);
    return false;
  };

  return { draft, outgoing: { queued: queue.queued, echoes: queue.echoes }, direct, exit_armed, prompt, answer, dialog_keys };
}

import { useEffect, useRef } from "react";
import type { MessageView, ProjectionClient, ProjectionState, UiCommandSender } from "../projection/types.js";
import { useSynced } from "./use-synced.js";

/** A message on its way: queued behind a running turn, or sent and not recorded yet. */
export type Outgoing = { readonly id: number; readonly text: string; readonly direct: boolean };

/** A sent message, with how many of the user's messages and the Main Agent's replies were recorded when it went. */
export type Echo = Outgoing & { readonly users_before: number; readonly replies_before: number };

function main_messages(state: ProjectionState, role: MessageView["role"]): MessageView[] {
  return state.conversation.messages.filter(
    (message) => message.role === role && message.task_id === null && message.agent_id === null && message.text.trim() !== "",
  );
}

function counts(state: ProjectionState): Pick<Echo, "users_before" | "replies_before"> {
  return { users_before: main_messages(state, "user").length, replies_before: main_messages(state, "assistant").length };
}

/**
 * The echoes still to show. One leaves when a user message with its text is recorded after it was sent (each
 * recorded message answers one echo, oldest first) — the transcript shows that one from the same state, so a
 * message never shows twice — or when, nothing running any more, the Main Agent replied without it being
 * recorded (the send failed, and the reply says why).
 */
export function unrecorded(echoes: readonly Echo[], state: ProjectionState, busy: boolean): Echo[] {
  if (echoes.length === 0) return [];
  const users = main_messages(state, "user").map((message) => message.text);
  const replies = main_messages(state, "assistant").length;
  const claimed = new Set<number>();
  return echoes.filter((echo) => {
    const index = users.findIndex((text, at) => at >= echo.users_before && !claimed.has(at) && text === echo.text);
    if (index === -1) return busy || replies <= echo.replies_before;
    claimed.add(index);
    return false;
  });
}

export type MessageQueue = {
  /** Typed while a turn ran that could not take them, oldest first. */
  readonly queued: readonly Outgoing[];
  /** Sent and not recorded yet: shown at once, dimmed, until the transcript has them. */
  readonly echoes: readonly Outgoing[];
  /** Sends `text` now, or queues it behind the running turn and earlier queued messages; false when refused. */
  submit(text: string, direct: boolean): boolean;
  /** Takes the newest queued message out of the queue (to edit it on the prompt line). */
  take_last(): Outgoing | undefined;
};

export type MessageQueueOptions = {
  readonly sender: UiCommandSender;
  readonly client: ProjectionClient;
  readonly state: ProjectionState;
  readonly busy: boolean;
  /** Runs a send; a refusal is shown, and the answer says whether it went through. */
  readonly attempt: (action: () => unknown) => boolean;
  /** A queued message the runtime refused when its turn came: back to the prompt line if that is empty. */
  readonly restore: (text: string) => void;
};

/**
 * Messages on their way to the runtime. A message the running turn cannot take (the runtime says so through
 * `offer_message`) waits in a queue the user sees and can edit; when nothing runs and every sent message is
 * recorded, the oldest goes. Where the runtime takes a message mid-turn (the Main Agent listening while a
 * plan executes) it goes at once, as before.
 */
export function useMessageQueue(options: MessageQueueOptions): MessageQueue {
  const { sender, client, state, busy, attempt, restore } = options;
  const [queued, queued_now, set_queued] = useSynced<readonly Outgoing[]>([]);
  const [echoes, echoes_now, set_echoes] = useSynced<readonly Echo[]>([]);
  const next_id = useRef(0);
  const shown = unrecorded(echoes, state, busy);

  const outgoing = (text: string, direct: boolean): Outgoing => {
    next_id.current += 1;
    return { id: next_id.current, text, direct };
  };
  // Counted before the send: a runtime that records the message at once must not count it as recorded before.
  const echo = (message: Outgoing, before: ReturnType<typeof counts>): void => set_echoes([...echoes_now.current, { ...message, ...before }]);

  // The echoes the transcript has taken over are forgotten, and the oldest queued message goes once nothing runs.
  useEffect(() => {
    if (shown.length !== echoes_now.current.length) set_echoes(unrecorded(echoes_now.current, state, busy));
    const [head, ...rest] = queued_now.current;
    if (head === undefined || busy || shown.length > 0) return;
    set_queued(rest);
    const before = counts(client.snapshot());
    if (attempt(() => sender.send_message(head.text, { direct: head.direct, after_turn: true }))) echo(head, before);
    else restore(head.text);
  });

  const submit = (text: string, direct: boolean): boolean => {
    const message = outgoing(text, direct);
    if (queued_now.current.length > 0) {
      set_queued([...queued_now.current, message]);
      return true;
    }
    const before = counts(client.snapshot());
    let taken = false;
    if (!attempt(() => (taken = sender.offer_message(text, direct ? { direct: true } : {})))) return false;
    if (taken) echo(message, before);
    else set_queued([...queued_now.current, message]);
    return true;
  };

  const take_last = (): Outgoing | undefined => {
    const last = queued_now.current.at(-1);
    if (last !== undefined) set_queued(queued_now.current.slice(0, -1));
    return last;
  };

  return { queued, echoes: shown, submit, take_last };
}

import { text_of } from "../context/model-turn.js";
import type { EventBus } from "../event-store/event-bus.js";

export type Replies = {
  /** The text of the Main Agent's latest message since `follow_replies`; undefined while it has said nothing. */
  last(): string | undefined;
  stop(): void;
};

/**
 * The Main Agent's messages while some work runs, as the bus delivers them once committed. A request ends with
 * one — its answer, or the summary of its tasks, computed once where it is recorded — unless it failed before
 * the Main Agent could speak; so what the user is told at the end is never worked out a second time.
 */
export function follow_replies(bus: EventBus): Replies {
  let last: string | undefined;
  const stop = bus.subscribe({ types: ["assistant.message.created"] }, (event) => {
    if (event.type !== "assistant.message.created" || event.source.kind !== "main") return;
    const { content } = event.payload;
    last = typeof content === "string" ? content : text_of(content);
  });
  return { last: () => last, stop };
}

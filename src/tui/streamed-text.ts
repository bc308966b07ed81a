import { useEffect, useRef } from "react";
import type { DraftView } from "../projection/types.js";
import { settled_length } from "./markdown.js";
import { has_colors, markdown_text } from "./markdown-text.js";
import type { FinishedItem } from "./views/finished.js";

function is_main_stream(draft: DraftView): boolean {
  return draft.status === "streaming" && draft.task_id === null && draft.agent_id === null;
}

/**
 * A reply's lines go to the scrollback as soon as they are settled (whole, outside a code fence), and the
 * live region keeps only the line being written: ink redraws the whole live region on every frame, at a
 * cost that grows with its size, while lines written above it are written once. When the reply is final
 * (or fails), its finished item prints only what was not printed yet.
 */
export class StreamedText {
  /** Per streaming reply: the prefix of its text already printed. */
  readonly #printed = new Map<string, string>();

  /**
   * `finished` with the printed part of each reply taken out, and the lines of the replies that settled
   * since the last call (to print after those items).
   */
  settle(finished: readonly FinishedItem[], drafts: readonly DraftView[]): { finished: FinishedItem[]; settled: string[] } {
    const settled: string[] = [];
    for (const draft of drafts) {
      if (!is_main_stream(draft)) continue;
      const printed = this.#printed_of(draft);
      const end = settled_length(draft.text, printed.length);
      if (end === printed.length) continue;
      // The last line's break is where the next lines (or the final item) start, not a blank line.
      settled.push(draft.text.slice(printed.length, end - 1));
      this.#printed.set(draft.message_id, draft.text.slice(0, end));
    }
    return { finished: finished.map((item) => this.#rest_of(item)), settled };
  }

  /** `drafts` as the live region shows them: a streaming reply without its printed lines. */
  unprinted(drafts: readonly DraftView[]): readonly DraftView[] {
    return drafts.map((draft) => {
      const printed = this.#printed.get(draft.message_id);
      return printed === undefined || !is_main_stream(draft) || !draft.text.startsWith(printed) ? draft : { ...draft, text: draft.text.slice(printed.length) };
    });
  }

  /** What is printed of `draft`; a reply that started over (its text no longer extends it) starts again. */
  #printed_of(draft: DraftView): string {
    const printed = this.#printed.get(draft.message_id) ?? "";
    return draft.text.startsWith(printed) ? printed : "";
  }

  #rest_of(item: FinishedItem): FinishedItem {
    const id = item.kind === "message" ? item.message.id : item.kind === "failed_draft" ? item.draft.message_id : undefined;
    const printed = id === undefined ? undefined : this.#printed.get(id);
    if (id === undefined || printed === undefined) return item;
    this.#printed.delete(id);
    if (item.kind === "message" && item.message.text.startsWith(printed)) {
      return { ...item, message: { ...item.message, text: item.message.text.slice(printed.length) } };
    }
    if (item.kind === "failed_draft" && item.draft.text.startsWith(printed)) {
      return { ...item, draft: { ...item.draft, text: item.draft.text.slice(printed.length) } };
    }
    return item;
  }
}

/** Writes settled lines above the live region (ink's `write`), each batch once, as Markdown. */
export function useWriteSettled(settled: readonly string[], write: (data: string) => void, terminal: NodeJS.WriteStream): void {
  const current = useRef(terminal);
  current.current = terminal;
  useEffect(() => {
    if (settled.length === 0) return;
    const colors = has_colors(current.current);
    const text = `${settled.map((lines) => markdown_text(lines, current.current.columns ?? 80, colors)).join("\n")}\n`;
    // After the commit: ink's write redraws the live region as it last drew it, which is then this commit's.
    queueMicrotask(() => write(text));
  }, [settled, write]);
}

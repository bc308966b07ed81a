import { useInput } from "ink";
import { useRef } from "react";
import { expand_evidence, type FinishedItem, type Notice } from "./views/finished.js";

/**
 * Ctrl+O (as in Claude Code): the newest collapsed evidence of the transcript printed in full, as a new item —
 * `<Static>` prints each item once, so the collapsed one stays as it was. Each press expands the one before.
 */
export function useEvidenceKey(items: readonly FinishedItem[], append: (item: FinishedItem) => void, notify: (notice: Notice) => void): void {
  const expanded = useRef(new Set<string>());
  useInput((input, key) => {
    if (!key.ctrl || input !== "o") return;
    const item = expand_evidence(items, expanded.current);
    if (item === undefined) return notify({ tone: "info", text: "No collapsed evidence to expand." });
    expanded.current.add(item.key.slice("e:".length));
    append(item);
  });
}

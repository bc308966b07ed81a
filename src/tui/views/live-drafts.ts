import { Box, Text } from "ink";
import { createElement as h, type ReactNode } from "react";
import type { DraftView } from "../../projection/types.js";
import { markdown_text } from "../markdown-text.js";
import { clean_text, tail_lines } from "../sanitize.js";
import { StatusGlyph } from "./glyphs.js";

/**
 * The Main Agent's replies still streaming: only their last `max_lines` screen lines, so the live region
 * stays shorter than the terminal (ink clears the whole screen to redraw a region taller than it).
 * With no room at all (a permission dialog), only its status line shows. The whole reply is printed once
 * it is final.
 */
export function LiveDrafts(props: {
  readonly drafts: readonly DraftView[];
  readonly max_lines: number;
  readonly columns: number;
  readonly colors: boolean;
  readonly tick: number;
}): ReactNode {
  const streaming = props.drafts.filter((draft) => draft.status === "streaming" && draft.task_id === null && draft.agent_id === null);
  if (streaming.length === 0) return null;
  const views = streaming.map((draft) => {
    const { lines, hidden } = tail_lines(clean_text(draft.text), props.max_lines, props.columns);
    const status = [h(StatusGlyph, { key: "glyph", status: "streaming", tick: props.tick }), " writing…", lines.length === 0 ? ` (${hidden} lines)` : ""];
    if (lines.length === 0) return h(Text, { key: draft.message_id, dimColor: true }, ...status);
    const text = markdown_text(lines.join("\n"), props.columns, props.colors);
    // One text node for the reply and its status: ink lays out and draws every node of the live region on each frame.
    return h(
      Text,
      { key: draft.message_id },
      hidden > 0 ? h(Text, { dimColor: true }, `… ${hidden} lines above\n`) : "",
      text === "" ? "" : `${text}\n`,
      h(Text, { dimColor: true }, ...status),
    );
  });
  return views.length === 1 ? views[0] : h(Box, { flexDirection: "column" }, ...views);
}

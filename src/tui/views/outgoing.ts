import { Box, Text } from "ink";
import { createElement as h, type ReactNode } from "react";
import type { Outgoing } from "../use-message-queue.js";
import { clean_line } from "../sanitize.js";

/** Queued messages shown one line each; beyond this, a count (the live region stays short). */
const SHOWN_QUEUED = 3;

/** The rows `QueuedMessages` takes. */
export function queued_lines(queued: readonly Outgoing[]): number {
  if (queued.length === 0) return 0;
  return Math.min(queued.length, SHOWN_QUEUED) + (queued.length > SHOWN_QUEUED ? 1 : 0) + 1;
}

function one_line(prefix: ReactNode, text: string, suffix: string): ReactNode {
  return h(
    Box,
    { flexDirection: "row" },
    prefix,
    h(Box, { flexShrink: 1 }, h(Text, { dimColor: true, wrap: "truncate-end" }, clean_line(text))),
    h(Box, { flexShrink: 0 }, h(Text, { dimColor: true, italic: true }, suffix)),
  );
}

/** The user's messages the moment they are sent, dimmed, until the transcript has them recorded. */
export function Echoes(props: { readonly echoes: readonly Outgoing[] }): ReactNode {
  if (props.echoes.length === 0) return null;
  return h(
    Box,
    { flexDirection: "column" },
    ...props.echoes.map((echo) =>
      h(Box, { key: echo.id, flexDirection: "column" }, one_line(h(Text, { color: "green", dimColor: true, bold: true }, "› "), echo.text, "  sending…")),
    ),
  );
}

/** Messages typed while a turn runs, oldest first, with how to edit or drop them; they go when the turn ends. */
export function QueuedMessages(props: { readonly queued: readonly Outgoing[] }): ReactNode {
  const { queued } = props;
  if (queued.length === 0) return null;
  const hidden = queued.length - SHOWN_QUEUED;
  return h(
    Box,
    { flexDirection: "column" },
    ...(hidden > 0 ? [h(Text, { key: "hidden", dimColor: true }, `(${hidden} more queued before these)`)] : []),
    ...queued.slice(-SHOWN_QUEUED).map((message) => h(Box, { key: message.id }, one_line(h(Text, { color: "cyan" }, "queued: "), message.text, ""))),
    h(Text, { key: "hint", dimColor: true }, "sent when the turn ends · ↑ edits the newest · Ctrl+X drops it"),
  );
}

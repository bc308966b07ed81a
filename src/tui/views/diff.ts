import { Box, Text } from "ink";
import { createElement as h, type ReactNode } from "react";
import { clean_text, clip_lines } from "../sanitize.js";

/** A diff longer than this shows its head and says where the rest is (the artifact). */
export const DIFF_MAX_LINES = 60;

/** A unified diff line's style: headers bold, added green, removed red, hunk headers cyan, context dim. */
export function diff_line_style(line: string): { color?: string; bold?: boolean; dimColor?: boolean } {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff ") || line.startsWith("index ")) return { bold: true };
  if (line.startsWith("+")) return { color: "green" };
  if (line.startsWith("-")) return { color: "red" };
  if (line.startsWith("@@")) return { color: "cyan" };
  return { dimColor: true };
}

/** A unified diff, coloured; `artifact_id` names where the whole diff is. */
export function DiffView(props: { readonly text: string; readonly artifact_id: string }): ReactNode {
  const lines = clip_lines(clean_text(props.text).replace(/\n$/, "")).split("\n");
  const shown = lines.slice(0, DIFF_MAX_LINES);
  const more = lines.length - shown.length;
  return h(
    Box,
    { flexDirection: "column", paddingLeft: 2 },
    ...shown.map((line, index) => h(Text, { key: String(index), ...diff_line_style(line) }, line === "" ? " " : line)),
    ...(more > 0 ? [h(Text, { key: "more", dimColor: true }, `… ${more} more lines in ${props.artifact_id}`)] : []),
  );
}

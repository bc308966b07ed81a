import { Box, Text } from "ink";
import { createElement as h, type ReactNode } from "react";
import type { BlockerView } from "../../projection/types.js";
import { clean_line } from "../sanitize.js";

/** Tasks waiting for a decision: what is blocked, why, and what the user can do. */
export function BlockerReports(props: { readonly blockers: readonly BlockerView[] }): ReactNode {
  if (props.blockers.length === 0) return null;
  return h(
    Box,
    { flexDirection: "column", borderStyle: "round", borderColor: "yellow", paddingX: 1 },
    ...props.blockers.map((blocker) =>
      h(
        Box,
        { key: blocker.task_id, flexDirection: "column" },
        h(Text, { color: "yellow", bold: true }, `⏸ Blocked: ${clean_line(blocker.title)}`),
        h(Text, null, `  ${clean_line(blocker.reason)}`),
        ...(blocker.error?.user_action ? [h(Text, { key: "action", dimColor: true }, `  → ${clean_line(blocker.error.user_action)}`)] : []),
      ),
    ),
  );
}

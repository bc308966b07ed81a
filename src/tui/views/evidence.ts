import { Box, Text } from "ink";
import { createElement as h, type ReactNode } from "react";
import type { ArtifactView, EvidenceView } from "../../projection/types.js";
import { clean_line } from "../sanitize.js";

function where(location: EvidenceView["location"]): string {
  if (location === null) return "";
  if (location.line_start !== undefined) {
    return location.line_end !== undefined && location.line_end !== location.line_start
      ? ` L${location.line_start}-${location.line_end}`
      : ` L${location.line_start}`;
  }
  if (location.byte_start !== undefined) return ` @${location.byte_start}`;
  return "";
}

/** The evidence and artifacts behind a result, as references the user can open (`air` artifact ids). */
export function EvidenceList(props: { readonly evidence: readonly EvidenceView[]; readonly artifacts: readonly ArtifactView[] }): ReactNode {
  if (props.evidence.length === 0 && props.artifacts.length === 0) return null;
  return h(
    Box,
    { flexDirection: "column", paddingLeft: 2 },
    ...props.evidence.map((entry) =>
      h(
        Text,
        { key: entry.id },
        h(Text, { color: "blue" }, "◆ "),
        `${entry.kind} `,
        h(Text, { dimColor: true }, `${clean_line(entry.ref)}${where(entry.location)}`),
        ` — ${clean_line(entry.claim)}`,
      ),
    ),
    ...props.artifacts.map((artifact) =>
      h(
        Text,
        { key: artifact.id, dimColor: true },
        `▤ ${artifact.type} ${artifact.id} ${clean_line(artifact.original_name ?? artifact.path)} (${artifact.size_bytes} B)`,
      ),
    ),
  );
}

import { Box, Text } from "ink";
import { createElement as h, type ReactNode } from "react";
import type { ArtifactView, EvidenceView, ProjectionState } from "../../projection/types.js";
import { clean_line } from "../sanitize.js";

/** One piece of evidence or one artifact, named as a person reads it: its kind, what it is about, what it shows. */
export type EvidenceLine = { readonly id: string; readonly kind: string; readonly label: string; readonly claim: string };

/** The key that prints the last collapsed evidence in full (as in Claude Code). */
const EXPAND_KEY_HINT = "ctrl+o to expand";

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

function artifact_label(artifact: ArtifactView): string {
  return artifact.original_name ?? artifact.path.split("/").at(-1) ?? artifact.id;
}

/** What a reference points at, in words: the command, the tool and its input, the file — never a bare uri. */
function label_of(state: ProjectionState, entry: EvidenceView): string {
  const command = state.command_runs.find((run) => run.id === entry.command_run_id || run.id === entry.ref);
  if (command !== undefined) return `$ ${command.command}`;
  const tool = state.tool_runs.find((run) => run.id === entry.tool_run_id || run.id === entry.ref);
  if (entry.kind === "tool_run" && tool !== undefined) return `${tool.tool_name} ${tool.input_summary}`.trim();
  const artifact = state.artifacts.find((candidate) => candidate.id === entry.artifact_id || candidate.uri === entry.ref);
  if (artifact !== undefined) return artifact_label(artifact);
  // An artifact uri ends with the artifact's id; the rest (project and session) says nothing here.
  return entry.ref.startsWith("artifact://") ? (entry.ref.split("/").at(-1) ?? entry.ref) : entry.ref;
}

/** The evidence and artifacts behind a result, resolved against the state they were recorded in. */
export function evidence_lines(state: ProjectionState, evidence: readonly EvidenceView[], artifacts: readonly ArtifactView[]): EvidenceLine[] {
  return [
    ...evidence.map((entry) => {
      const label = label_of(state, entry);
      // A claim that names what it is about (`make test` exited with code 0) needs no label beside it.
      const said = entry.claim.includes(label.replace(/^\$ /, ""));
      return { id: entry.id, kind: entry.kind, label: `${said ? "" : label}${where(entry.location)}`.trim(), claim: entry.claim };
    }),
    ...artifacts.map((artifact) => ({
      id: artifact.id,
      kind: artifact.type,
      label: artifact_label(artifact),
      claim: `${artifact.size_bytes} B, ${artifact.id}`,
    })),
  ];
}

/** Evidence collapsed to its count; the expand key prints it in full. */
export function EvidenceCount(props: { readonly lines: readonly EvidenceLine[] }): ReactNode {
  const count = props.lines.length;
  if (count === 0) return null;
  return h(Text, { dimColor: true }, `evidence: ${count} item${count === 1 ? "" : "s"} (${EXPAND_KEY_HINT})`);
}

/** Evidence in full, one line each. */
export function EvidenceDetails(props: { readonly title: string; readonly lines: readonly EvidenceLine[] }): ReactNode {
  return h(
    Box,
    { flexDirection: "column" },
    h(Text, { dimColor: true }, `evidence of ${clean_line(props.title)}:`),
    ...props.lines.map((line) =>
      h(
        Text,
        { key: line.id },
        "  ",
        h(Text, { color: "blue" }, "◆ "),
        h(Text, { dimColor: true }, line.kind),
        line.label === "" ? "" : ` ${clean_line(line.label)}`,
        line.claim === "" ? "" : h(Text, { dimColor: true }, ` — ${clean_line(line.claim)}`),
      ),
    ),
  );
}

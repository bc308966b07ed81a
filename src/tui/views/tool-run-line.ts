import { Box, Text } from "ink";
import { createElement as h, type ReactNode } from "react";
import type { CommandRunView } from "../../projection/types.js";
import { clean_line, clean_text, tail_lines } from "../sanitize.js";
import { DiffView } from "./diff.js";
import { EvidenceCount } from "./evidence.js";
import type { FinishedItem } from "./finished.js";
import { format_duration, StatusGlyph } from "./glyphs.js";

const FAILED_OUTPUT_LINES = 6;

/** `+3 −1`: the lines a unified diff adds and removes (its file headers are not lines of the file). */
function diff_stat(text: string): string {
  let added = 0;
  let removed = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("+") && !line.startsWith("+++")) added += 1;
    else if (line.startsWith("-") && !line.startsWith("---")) removed += 1;
  }
  return `+${added} −${removed}`;
}

function exit_words(run: CommandRunView): string {
  if (run.signal !== null) return `signal ${run.signal}`;
  return run.exit_code === null ? "" : `exit ${run.exit_code}`;
}

function FailedOutput(props: { readonly run: CommandRunView }): ReactNode {
  const { run } = props;
  if (run.status !== "error") return null;
  const { lines } = tail_lines(clean_text(run.stderr_tail || run.stdout_tail).trimEnd(), FAILED_OUTPUT_LINES, 120);
  return h(
    Box,
    { flexDirection: "column", paddingLeft: 6 },
    ...lines.map((line, index) => h(Text, { key: String(index), color: "red" }, line === "" ? " " : line)),
  );
}

/**
 * A finished tool run folded beneath the words that led to it, on one line: its status, the tool and what it
 * acted on, the diff's size or the command's exit, the duration. A diff follows it; evidence is collapsed to
 * a count.
 */
export function ToolRunLine(props: { readonly item: Extract<FinishedItem, { kind: "tool_run" }> }): ReactNode {
  const { run, diffs, commands, evidence } = props.item;
  const facts = [
    ...diffs.flatMap((diff) => (diff.text === null ? [] : [diff_stat(diff.text)])),
    ...commands.map(exit_words).filter((words) => words !== ""),
    format_duration(run.duration_ms),
  ].filter((fact) => fact !== "");
  return h(
    Box,
    { flexDirection: "column", paddingLeft: 2 },
    h(
      Text,
      null,
      h(Text, { dimColor: true }, "⎿ "),
      h(StatusGlyph, { status: run.status, tick: 0 }),
      " ",
      h(Text, { color: "cyan" }, run.tool_name),
      ` ${clean_line(run.input_summary)}`,
      h(Text, { dimColor: true }, facts.length === 0 ? "" : `  ${facts.join(" · ")}`),
    ),
    ...(run.error === null ? [] : [h(Text, { key: "error", color: "red" }, `    ${clean_line(run.error.message)}`)]),
    ...commands.map((command) => h(FailedOutput, { key: command.id, run: command })),
    ...diffs.map((diff) =>
      diff.text === null
        ? h(Text, { key: diff.artifact_id, dimColor: true }, `    (diff ${diff.artifact_id} unavailable)`)
        : h(Box, { key: diff.artifact_id, paddingLeft: 2 }, h(DiffView, { text: diff.text, artifact_id: diff.artifact_id })),
    ),
    evidence.length === 0 ? null : h(Box, { key: "evidence", paddingLeft: 4 }, h(EvidenceCount, { lines: evidence })),
  );
}

/** A command no tool ran (the merge queue's checks, say): its own line, with its exit and duration. */
export function CommandLine(props: { readonly run: CommandRunView }): ReactNode {
  const { run } = props;
  return h(
    Box,
    { flexDirection: "column" },
    h(
      Text,
      null,
      h(StatusGlyph, { status: run.status, tick: 0 }),
      h(Text, { bold: true }, ` $ ${clean_line(run.command)}`),
      h(Text, { dimColor: true }, ` ${exit_words(run)} ${format_duration(run.duration_ms)}`),
    ),
    h(FailedOutput, { run }),
  );
}

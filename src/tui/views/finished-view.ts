import { Box, Text } from "ink";
import { createElement as h, type ReactNode } from "react";
import { Markdown } from "../markdown.js";
import { clean_line, clean_text, clip_lines, tail_lines } from "../sanitize.js";
import { DiffView } from "./diff.js";
import { EvidenceList } from "./evidence.js";
import type { FinishedItem } from "./finished.js";
import { format_duration, StatusGlyph } from "./glyphs.js";

const FAILED_OUTPUT_LINES = 6;

function scope_words(scope: string | null): string {
  return scope === "once" || scope === null ? "once" : `for the ${scope}`;
}

function body(item: FinishedItem): ReactNode {
  switch (item.kind) {
    case "message":
      return item.message.role === "user"
        ? h(Text, null, h(Text, { color: "green", bold: true }, "› "), clip_lines(clean_text(item.message.text)))
        : h(Markdown, { text: item.message.text });
    case "failed_draft":
      return h(
        Box,
        { flexDirection: "column" },
        h(Markdown, { text: item.draft.text }),
        h(Text, { color: "red" }, `✗ the reply stopped: ${clean_line(item.draft.error?.message ?? "stream failed")}`),
      );
    case "tool_run": {
      const { run } = item;
      return h(
        Box,
        { flexDirection: "column" },
        h(
          Text,
          null,
          h(StatusGlyph, { status: run.status, tick: 0 }),
          " ",
          h(Text, { color: "cyan" }, run.tool_name),
          ` ${clean_line(run.input_summary)}`,
          h(Text, { dimColor: true }, ` ${format_duration(run.duration_ms)}`),
        ),
        ...(run.error === null ? [] : [h(Text, { key: "error", color: "red" }, `  ${clean_line(run.error.message)}`)]),
        ...item.diffs.map((diff) =>
          diff.text === null
            ? h(Text, { key: diff.artifact_id, dimColor: true }, `  (diff ${diff.artifact_id} unavailable)`)
            : h(DiffView, { key: diff.artifact_id, text: diff.text, artifact_id: diff.artifact_id }),
        ),
        h(EvidenceList, { evidence: item.evidence, artifacts: item.artifacts }),
      );
    }
    case "command_run": {
      const { run } = item;
      const failed = run.status === "error" ? tail_lines(clean_text(run.stderr_tail || run.stdout_tail).trimEnd(), FAILED_OUTPUT_LINES, 120).lines : [];
      const exit = run.signal !== null ? `signal ${run.signal}` : run.exit_code === null ? "" : `exit ${run.exit_code}`;
      return h(
        Box,
        { flexDirection: "column" },
        h(
          Text,
          null,
          h(StatusGlyph, { status: run.status, tick: 0 }),
          h(Text, { bold: true }, ` $ ${clean_line(run.command)}`),
          h(Text, { dimColor: true }, ` ${exit} ${format_duration(run.duration_ms)}`),
        ),
        ...failed.map((line, index) => h(Text, { key: String(index), color: "red" }, `    ${line}`)),
      );
    }
    case "task": {
      const { task } = item;
      const detail = task.summary ?? task.error?.message ?? task.status_reason;
      return h(
        Box,
        { flexDirection: "column" },
        h(Text, { bold: true }, h(StatusGlyph, { status: task.status, tick: 0 }), ` Task ${task.status}: ${clean_line(task.title)}`),
        ...(detail === null ? [] : [h(Box, { key: "detail", paddingLeft: 2 }, h(Markdown, { text: detail }))]),
        h(EvidenceList, { evidence: item.evidence, artifacts: [] }),
      );
    }
    case "prompt": {
      const { prompt } = item;
      const allowed = prompt.answer === "allow";
      return h(
        Text,
        { color: allowed ? "green" : "yellow" },
        `${allowed ? "✓ allowed" : "✗ denied"} ${allowed ? scope_words(prompt.grant_scope) : ""}: ${clean_line(prompt.tool_name)} — ${clean_line(prompt.question)}`,
        prompt.resolved_by === "policy" ? h(Text, { dimColor: true }, " (by policy)") : "",
      );
    }
    case "notice":
      return h(Text, { color: item.notice.tone === "error" ? "red" : "gray" }, clip_lines(clean_text(item.notice.text)));
  }
}

/** One finished item, as `<Static>` prints it. */
export function FinishedView(props: { readonly item: FinishedItem }): ReactNode {
  return h(Box, { flexDirection: "column", marginBottom: props.item.kind === "message" ? 1 : 0 }, body(props.item));
}

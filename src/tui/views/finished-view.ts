import { Box, Text } from "ink";
import { createElement as h, type ReactNode } from "react";
import { Markdown } from "../markdown.js";
import { clean_line, clean_text, clip_lines } from "../sanitize.js";
import { EvidenceCount, EvidenceDetails } from "./evidence.js";
import type { FinishedItem } from "./finished.js";
import { StatusGlyph } from "./glyphs.js";
import { CommandLine, ToolRunLine } from "./tool-run-line.js";

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
    case "agent_message":
      return h(
        Box,
        { flexDirection: "column" },
        h(Text, null, h(Text, { color: "magenta" }, "⏺ "), h(Text, { dimColor: true }, clean_line(item.label))),
        h(Box, { paddingLeft: 2 }, h(Markdown, { text: item.message.text })),
      );
    case "tool_run":
      return h(ToolRunLine, { item });
    case "command_run":
      return h(CommandLine, { run: item.run });
    case "task": {
      const { task } = item;
      // A completed task's summary is the final message's; a task that did not complete says why here.
      const detail = task.status === "completed" ? null : (task.error?.message ?? task.status_reason ?? task.summary);
      return h(
        Box,
        { flexDirection: "column" },
        h(
          Text,
          null,
          h(Text, { bold: true }, h(StatusGlyph, { status: task.status, tick: 0 }), ` Task ${task.status}: ${clean_line(task.title)}`),
          item.evidence.length === 0 ? "" : "  ",
          h(EvidenceCount, { lines: item.evidence }),
        ),
        ...(detail === null ? [] : [h(Box, { key: "detail", paddingLeft: 2 }, h(Markdown, { text: detail }))]),
      );
    }
    case "evidence":
      return h(EvidenceDetails, { title: item.title, lines: item.evidence });
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
  // Every message opens a block, set apart by a blank line; tool runs, tasks and notices fold beneath it.
  const opens = props.item.kind === "message" || props.item.kind === "agent_message";
  return h(Box, { flexDirection: "column", marginTop: opens ? 1 : 0 }, body(props.item));
}

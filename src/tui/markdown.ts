import { Box, Text } from "ink";
import { createElement as h, type ReactNode } from "react";
import { clean_text, clip_lines } from "./sanitize.js";

/**
 * A small Markdown renderer for the terminal: the subset models write (headings, emphasis, inline code,
 * fenced code, lists, quotes, rules, links). Text is cleaned first, so Markdown can style but never
 * inject escape codes. An unclosed fence (a reply still streaming) renders the rest as code.
 */
export type Span = { readonly text: string; readonly style: "plain" | "bold" | "italic" | "code" | "link" | "url" };

export type MarkdownBlock =
  | { readonly kind: "heading"; readonly level: number; readonly spans: readonly Span[] }
  | { readonly kind: "paragraph"; readonly spans: readonly Span[] }
  | { readonly kind: "item"; readonly indent: number; readonly bullet: string; readonly spans: readonly Span[] }
  | { readonly kind: "quote"; readonly spans: readonly Span[] }
  | { readonly kind: "code"; readonly language: string; readonly lines: readonly string[] }
  | { readonly kind: "rule" }
  | { readonly kind: "blank" };

const INLINE = /(`[^`\n]+`)|(\*\*[^*\n]+\*\*|__[^_\n]+__)|(\*[^*\s][^*\n]*\*|\b_[^_\s][^_\n]*_\b)|(\[[^\]\n]+\]\([^)\s]+\))/g;

export function parse_inline(text: string): Span[] {
  const spans: Span[] = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const index = match.index;
    if (index > last) spans.push({ text: text.slice(last, index), style: "plain" });
    const token = match[0];
    if (match[1] !== undefined) spans.push({ text: token.slice(1, -1), style: "code" });
    else if (match[2] !== undefined) spans.push({ text: token.slice(2, -2), style: "bold" });
    else if (match[3] !== undefined) spans.push({ text: token.slice(1, -1), style: "italic" });
    else {
      const close = token.indexOf("](");
      spans.push({ text: token.slice(1, close), style: "link" }, { text: ` (${token.slice(close + 2, -1)})`, style: "url" });
    }
    last = index + token.length;
  }
  if (last < text.length) spans.push({ text: text.slice(last), style: "plain" });
  return spans;
}

const FENCE = /^\s*(```|~~~)\s*([\w+#.-]*)/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const ITEM = /^(\s*)([-*+]|\d{1,3}[.)])\s+(.*)$/;
const RULE = /^\s*([-*_])(\s*\1){2,}\s*$/;

/**
 * Where the settled part of a reply still streaming ends: after its last whole line that is outside a code
 * fence. Lines before it render the same whatever follows (the parser works line by line; a fence changes
 * the lines up to its close). `from` must be such an end, or 0: the scan starts there.
 */
export function settled_length(text: string, from = 0): number {
  let settled = from;
  let fence: { marker: string } | undefined;
  let start = from;
  for (let end = text.indexOf("\n", start); end !== -1; start = end + 1, end = text.indexOf("\n", start)) {
    const match = FENCE.exec(text.slice(start, end));
    if (fence === undefined && match !== null) fence = { marker: match[1] ?? "" };
    else if (fence !== undefined && match !== null && match[1] === fence.marker && match[2] === "") fence = undefined;
    if (fence === undefined) settled = end + 1;
  }
  return settled;
}

export function parse_markdown(source: string): MarkdownBlock[] {
  const blocks: MarkdownBlock[] = [];
  let fence: { marker: string; language: string; lines: string[] } | undefined;
  for (const line of clip_lines(clean_text(source)).split("\n")) {
    const fence_match = FENCE.exec(line);
    if (fence !== undefined) {
      if (fence_match !== null && fence_match[1] === fence.marker && fence_match[2] === "") {
        blocks.push({ kind: "code", language: fence.language, lines: fence.lines });
        fence = undefined;
      } else fence.lines.push(line);
      continue;
    }
    if (fence_match !== null) {
      // biome-ignore lint/style/noNonNullAssertion: FENCE's first group is not optional
      fence = { marker: fence_match[1]!, language: fence_match[2] ?? "", lines: [] };
      continue;
    }
    blocks.push(parse_line(line));
  }
  if (fence !== undefined) blocks.push({ kind: "code", language: fence.language, lines: fence.lines });
  return blocks;
}

function parse_line(line: string): MarkdownBlock {
  if (line.trim() === "") return { kind: "blank" };
  const heading = HEADING.exec(line);
  // biome-ignore lint/style/noNonNullAssertion: HEADING's groups are not optional
  if (heading !== null) return { kind: "heading", level: heading[1]!.length, spans: parse_inline(heading[2]!) };
  if (RULE.test(line)) return { kind: "rule" };
  const item = ITEM.exec(line);
  if (item !== null) {
    // biome-ignore lint/style/noNonNullAssertion: ITEM's groups are not optional
    const marker = item[2]!;
    const bullet = /^\d/.test(marker) ? marker : "•";
    // biome-ignore lint/style/noNonNullAssertion: ITEM's groups are not optional
    return { kind: "item", indent: Math.floor(item[1]!.length / 2), bullet, spans: parse_inline(item[3]!) };
  }
  if (line.startsWith(">")) return { kind: "quote", spans: parse_inline(line.replace(/^>\s?/, "")) };
  return { kind: "paragraph", spans: parse_inline(line) };
}

function render_span(span: Span, index: number): ReactNode {
  const key = String(index);
  switch (span.style) {
    case "bold":
      return h(Text, { key, bold: true }, span.text);
    case "italic":
      return h(Text, { key, italic: true }, span.text);
    case "code":
      return h(Text, { key, color: "cyan" }, span.text);
    case "link":
      return h(Text, { key, underline: true, color: "blue" }, span.text);
    case "url":
      return h(Text, { key, dimColor: true }, span.text);
    case "plain":
      return span.text;
  }
}

function render_block(block: MarkdownBlock, index: number): ReactNode {
  const key = String(index);
  switch (block.kind) {
    case "heading":
      return h(Text, { key, bold: true, color: "magenta", underline: block.level === 1 }, ...block.spans.map(render_span));
    case "paragraph":
      return h(Text, { key }, ...block.spans.map(render_span));
    case "item":
      return h(Text, { key }, "  ".repeat(block.indent + 1), block.bullet, " ", ...block.spans.map(render_span));
    case "quote":
      return h(Text, { key, dimColor: true }, "│ ", ...block.spans.map(render_span));
    case "code":
      return h(
        Box,
        { key, flexDirection: "column", paddingLeft: 2 },
        ...(block.language === "" ? [] : [h(Text, { key: "lang", dimColor: true }, block.language)]),
        ...block.lines.map((line, line_index) => h(Text, { key: String(line_index), color: "yellow" }, line === "" ? " " : line)),
      );
    case "rule":
      return h(Text, { key, dimColor: true }, "─".repeat(40));
    case "blank":
      return h(Text, { key }, " ");
  }
}

export function Markdown(props: { readonly text: string }): ReactNode {
  if (props.text === "") return null;
  return h(Box, { flexDirection: "column" }, ...parse_markdown(props.text).map(render_block));
}

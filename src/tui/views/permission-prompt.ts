import { Box, type Key, Text } from "ink";
import { createElement as h, type ReactNode, type RefObject, useLayoutEffect, useRef, useState } from "react";
import type { PermissionPromptId } from "../../contracts/ids.js";
import type { PermissionPromptView } from "../../projection/types.js";
import { clean_line } from "../sanitize.js";
import { diff_line_style } from "./diff.js";
import { type DialogLayout, dialog_layout, describe_tool, type Option, type PromptAnswer } from "./prompt-layout.js";

export type { PromptAnswer } from "./prompt-layout.js";
export { dialog_lines } from "./prompt-layout.js";

/**
 * A key offered to the dialog on screen, by the App's one input handler: true when the dialog took it (an
 * answer, a choice, a scroll). A key it does not take stays with the prompt line, so none is lost.
 */
export type DialogKeys = (input: string, key: Key) => boolean;

const RISK_COLOR: Record<string, string> = { none: "gray", low: "green", medium: "yellow", high: "red", critical: "redBright" };

type DialogProps = {
  readonly prompt: PermissionPromptView;
  /** The rows the dialog may take (see `dialog_lines`). */
  readonly max_lines: number;
  /** Where the dialog puts its key handler while it is on screen. */
  readonly keys: RefObject<DialogKeys | undefined>;
  /** Sends the answer; false when it was refused (the dialog then stays up to be answered again). */
  readonly on_answer: (prompt_id: PermissionPromptId, answer: PromptAnswer) => boolean;
};

/**
 * The dialog's keys. The keys of one input burst all reach the handler before React renders again, so each
 * reads the selection, scroll and answer the previous one left: refs hold them, the state only redraws.
 */
function useDialogKeys(props: DialogProps, layout: DialogLayout) {
  const { options, rows, window } = layout;
  const [selected, set_selected] = useState(0);
  const [offset, set_offset] = useState(0);
  const selection = useRef(0);
  const scrolled = useRef(0);
  const answered = useRef(false);
  const select = (step: number): void => {
    selection.current = (selection.current + options.length + step) % options.length;
    set_selected(selection.current);
  };
  const scroll = (step: number): void => {
    scrolled.current = Math.max(0, Math.min(rows.length - window, scrolled.current + step));
    set_offset(scrolled.current);
  };
  const choose = (option: Option): void => {
    answered.current = props.on_answer(props.prompt.prompt_id, option);
  };
  const handle: DialogKeys = (input, key) => {
    // After its answer the dialog takes nothing: a key typed before the next dialog shows is the prompt line's.
    if (answered.current) return false;
    const scrollable = rows.length > window;
    // A held key or a quick burst arrives as one chunk ("jjj"): each letter scrolls a line.
    if (scrollable && (key.upArrow || key.downArrow || /^[jk]+$/.test(input))) scroll(key.upArrow ? -1 : key.downArrow ? 1 : scroll_steps(input));
    else if (scrollable && (key.pageUp || key.pageDown)) scroll(key.pageUp ? -Math.max(1, window) : Math.max(1, window));
    else if (key.upArrow || key.leftArrow || (key.tab && key.shift)) select(-1);
    else if (key.downArrow || key.rightArrow || key.tab) select(1);
    // biome-ignore lint/style/noNonNullAssertion: the selection moves modulo options.length, and options always holds deny
    else if (key.return) choose(options[selection.current]!);
    else {
      const chosen = key.ctrl || key.meta ? undefined : options.find((option) => option.key === input.toLowerCase());
      if (chosen === undefined) return false;
      choose(chosen);
    }
    return true;
  };
  // Set while the dialog is on screen (layout effects run as the frame is committed), cleared as it goes.
  useLayoutEffect(() => {
    props.keys.current = handle;
    return () => {
      if (props.keys.current === handle) props.keys.current = undefined;
    };
  });
  return { selected, offset: Math.min(offset, Math.max(0, rows.length - window)) };
}

/** Lines down (j) minus lines up (k). */
function scroll_steps(input: string): number {
  return [...input].reduce((steps, letter) => steps + (letter === "j" ? 1 : -1), 0);
}

function ChangeView(props: { readonly layout: DialogLayout; readonly offset: number }): ReactNode {
  const { rows, window, size } = props.layout;
  if (size === null) return null;
  const shown = rows.slice(props.offset, props.offset + window);
  const place =
    rows.length > window
      ? ` · ${window === 0 ? "no room to show it" : `lines ${props.offset + 1}–${props.offset + shown.length} of ${rows.length}`} · ↑↓ j/k PgUp/PgDn scroll`
      : "";
  return h(
    Box,
    { flexDirection: "column" },
    h(Text, { bold: true, wrap: "truncate-end" }, size, h(Text, { dimColor: true }, place)),
    ...shown.map((row, index) => h(Text, { key: `d${props.offset + index}`, wrap: "truncate-end", ...diff_line_style(row) }, row === "" ? " " : row)),
  );
}

/**
 * The permission dialog (seeds 000 §9): the tool, the risk, the categories, every command with what the
 * analyzer found in it, the paths, and the change the call would make as a coloured diff that scrolls; then
 * the answers — by their key (y/s/p/n) or ←/→ (↑/↓ when there is nothing to scroll) and Enter. Everything
 * shown comes from the projection and is cleaned, so a command cannot draw a fake dialog of its own.
 */
export function PermissionDialog(props: DialogProps): ReactNode {
  const { prompt } = props;
  const layout = dialog_layout(prompt, props.max_lines);
  const { selected, offset } = useDialogKeys(props, layout);
  return h(
    Box,
    { flexDirection: "column", borderStyle: "double", borderColor: RISK_COLOR[prompt.risk_level] ?? "yellow", paddingX: 1 },
    h(
      Text,
      { bold: true, wrap: "truncate-end" },
      "Permission needed: ",
      h(Text, { color: "cyan" }, describe_tool(prompt.tool_name)),
      "  risk ",
      h(Text, { color: RISK_COLOR[prompt.risk_level] ?? "yellow", bold: true }, prompt.risk_level),
    ),
    h(Text, { wrap: "truncate-end" }, clean_line(prompt.question)),
    ...layout.details.map((line, index) =>
      h(Text, { key: `l${index}`, wrap: "truncate-end", ...(line.dim ? { dimColor: true } : { color: "white" }) }, `  ${line.text}`),
    ),
    h(ChangeView, { layout, offset }),
    h(Text, null, " "),
    ...layout.options.map((option, index) =>
      h(
        Text,
        { key: option.key, ...(index === selected ? { color: "cyan", bold: true } : {}) },
        `${index === selected ? "›" : " "} [${option.key}] ${option.label}`,
      ),
    ),
  );
}

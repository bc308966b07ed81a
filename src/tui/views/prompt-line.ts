import { Box, Text } from "ink";
import { createElement as h, type ReactNode } from "react";

/** How much of a long (pasted) line is drawn: laying out all of it on every keystroke would stall the screen. */
const SHOWN_CHARS = 1000;

function visible(draft: string): string {
  return draft.length <= SHOWN_CHARS ? draft : `…(${draft.length} characters) ${draft.slice(-SHOWN_CHARS)}`;
}

/** The line the user types into; in direct mode it says so (messages go to the Main Agent, which uses the tools itself). */
export function PromptLine(props: { readonly draft: string; readonly direct: boolean; readonly hint: string | null; readonly disabled: boolean }): ReactNode {
  const line = h(
    Text,
    null,
    props.direct ? h(Text, { color: "magenta", bold: true }, "direct › ") : h(Text, { color: "green", bold: true }, "› "),
    visible(props.draft),
    h(Text, { inverse: true }, " "),
    // What is typed while a dialog is up stays here (sent once it is answered): only a dialog's keys go to it.
    props.disabled ? h(Text, { dimColor: true }, "  (answer the permission prompt first)") : "",
  );
  // Without a hint, no box around the line: ink lays out every box of the live region on each frame.
  return props.hint === null ? line : h(Box, { flexDirection: "column" }, line, h(Text, { color: "yellow" }, props.hint));
}

import { Text } from "ink";
import { createElement as h, type ReactNode } from "react";

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

type Tone = { readonly glyph: string; readonly color: string };

/** Every status the projection's views carry, as one glyph and colour; `running`-like ones spin. */
const TONES: Record<string, Tone> = {
  pending: { glyph: "·", color: "gray" },
  starting: { glyph: "·", color: "gray" },
  ok: { glyph: "✓", color: "green" },
  completed: { glyph: "✓", color: "green" },
  error: { glyph: "✗", color: "red" },
  failed: { glyph: "✗", color: "red" },
  lost: { glyph: "✗", color: "red" },
  cancelled: { glyph: "⊘", color: "yellow" },
  interrupted: { glyph: "⊘", color: "yellow" },
  blocked: { glyph: "⏸", color: "yellow" },
  unknown: { glyph: "?", color: "gray" },
};

const SPINNING = new Set(["running", "streaming"]);

export function StatusGlyph(props: { readonly status: string; readonly tick: number }): ReactNode {
  if (SPINNING.has(props.status)) return h(Text, { color: "cyan" }, SPINNER[props.tick % SPINNER.length]);
  const tone = TONES[props.status] ?? { glyph: "•", color: "white" };
  return h(Text, { color: tone.color }, tone.glyph);
}

export function format_duration(ms: number | null): string {
  if (ms === null) return "";
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

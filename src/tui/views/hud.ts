import { Text } from "ink";
import { createElement as h, type ReactNode } from "react";
import type { HudPreset, HudSummary } from "../../projection/types.js";
import { hud_rows } from "../hud-rows.js";
import { clean_line } from "../sanitize.js";

export const HUD_PRESETS: readonly HudPreset[] = ["full", "essential", "minimal"];

export function next_preset(preset: HudPreset): HudPreset {
  // biome-ignore lint/style/noNonNullAssertion: an index modulo the length of a non-empty list is in it
  return HUD_PRESETS[(HUD_PRESETS.indexOf(preset) + 1) % HUD_PRESETS.length]!;
}

export function compact_number(count: number): string {
  if (count >= 1_000_000) return `${(count / 1_000_000).toFixed(1)}M`;
  if (count >= 10_000) return `${Math.round(count / 1000)}k`;
  return String(count);
}

/**
 * The HUD's fields for a preset: presets only choose among the same fields (D-056).
 * Minimal: model and context. Essential: adds tokens, cost and permission mode. Full: adds agents,
 * tasks, prompts, blockers and the session id.
 */
export function hud_fields(hud: HudSummary, preset: HudPreset): string[] {
  const context = hud.context_used_percent === null ? "ctx –" : `ctx ${Math.round(hud.context_used_percent)}%`;
  const minimal = [clean_line(hud.model_id ?? "no model"), context];
  if (preset === "minimal") return minimal;
  const cost = hud.cost_usd === null ? "cost –" : `$${hud.cost_usd.toFixed(hud.cost_usd < 1 ? 4 : 2)}`;
  const essential = [
    ...minimal,
    `${compact_number(hud.total_tokens)} tok (↑${compact_number(hud.input_tokens)} ↓${compact_number(hud.output_tokens)})`,
    cost,
    `mode ${hud.permission_mode ?? "default"}`,
  ];
  if (preset === "essential") return essential;
  return [
    ...essential,
    `agents ${hud.running_agents}`,
    `tasks ${hud.running_tasks}`,
    ...(hud.pending_prompts > 0 ? [`prompts ${hud.pending_prompts}`] : []),
    ...(hud.blocked_tasks > 0 ? [`blocked ${hud.blocked_tasks}`] : []),
    `session ${hud.session_id}`,
  ];
}

/**
 * The HUD as dimmed text under the live region, no bordered box: ink would lay out and draw a border on
 * every frame of the live region. Memoized by the App, so a frame that changes none of its fields skips it.
 */
export function Hud(props: { readonly hud: HudSummary; readonly preset: HudPreset; readonly columns: number }): ReactNode {
  return h(Text, { dimColor: true }, hud_rows(hud_fields(props.hud, props.preset), props.columns));
}

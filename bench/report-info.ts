import { met, type Line } from "./report.js";

/**
 * Printed lines without a goal, in the columns of report.ts `format_line`: a figure beside its ceiling
 * with the ratio, marked `(info)`; and the e2e wall-time split.
 */
const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1, minimumFractionDigits: 1 });

const hundredths = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2, minimumFractionDigits: 2 });

/**
 * report.ts `format_line` for a `×` goal, with the ratio to two decimals: at one decimal a ratio of 1.53
 * against a goal of 1.5 prints as "1.5× (goal ≤ 1.5×, MISSED)".
 */
export function format_goal_line(line: Line & { readonly goal: { readonly unit: "×" } }): string {
  const sign = line.goal.kind === "at_least" ? "≥" : "≤";
  return [
    line.name.padEnd(22),
    `air ${line.ours}`.padEnd(20),
    `${line.ceiling_name} ${line.ceiling}`.padEnd(28),
    `${hundredths.format(line.ratio)}×`.padEnd(7),
    `(goal ${sign} ${line.goal.value}×${met(line) ? "" : ", MISSED"})`,
  ].join(" ");
}

export type InfoLine = {
  readonly name: string;
  readonly ours: string;
  readonly ceiling_name: string;
  readonly ceiling: string;
  /** ours / ceiling. */
  readonly ratio: number;
  readonly note?: string;
};

export function us(microseconds: number): string {
  return `${integer.format(microseconds)} µs`;
}

function whole_ms(milliseconds: number): string {
  return `${integer.format(milliseconds)} ms`;
}

export function format_info_line(line: InfoLine): string {
  return [
    line.name.padEnd(22),
    `air ${line.ours}`.padEnd(20),
    `${line.ceiling_name} ${line.ceiling}`.padEnd(28),
    `${decimal.format(line.ratio)}×`.padEnd(7),
    `(info${line.note === undefined ? "" : `: ${line.note}`})`,
  ].join(" ");
}

export type SplitLine = {
  readonly name: string;
  readonly overhead_ms: number;
  readonly commands_ms: number;
  readonly model_ms: number;
  readonly wall_ms: number;
  /** overhead / wall, 0–1. */
  readonly overhead_share: number;
};

export function format_split_line(line: SplitLine): string {
  return [
    line.name.padEnd(22),
    `air overhead ${whole_ms(line.overhead_ms)}`.padEnd(20),
    `cmake/ctest ${whole_ms(line.commands_ms)}`.padEnd(28),
    `scripted model ${whole_ms(line.model_ms)}`,
    ` wall ${whole_ms(line.wall_ms)}`,
    ` (info: air overhead ${integer.format(100 * line.overhead_share)} % of wall)`,
  ].join(" ");
}

export function format_skip_line(name: string, reason: string): string {
  return `${name.padEnd(22)} skipped: ${reason}`;
}

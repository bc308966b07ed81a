/**
 * A printed line for a figure whose goal is a fixed time rather than a ratio: the figure, the ceiling
 * measured in the same run and their ratio, in the columns of report.ts `format_line`.
 */
const decimal = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1, minimumFractionDigits: 1 });

export type LimitLine = {
  readonly name: string;
  readonly ours_ms: number;
  readonly ceiling_name: string;
  readonly ceiling_ms: number;
  /** ours / ceiling (a median of paired ratios, so not always the quotient of the two medians). */
  readonly ratio: number;
  readonly limit_ms: number;
};

const ms = (value: number) => `${decimal.format(value)} ms`;

export function format_limit_line(line: LimitLine): string {
  const met = line.ours_ms <= line.limit_ms;
  return [
    line.name.padEnd(22),
    `air ${ms(line.ours_ms)}`.padEnd(20),
    `${line.ceiling_name} ${ms(line.ceiling_ms)}`.padEnd(28),
    `${decimal.format(line.ratio)}×`.padEnd(7),
    `(goal ≤ ${line.limit_ms} ms${met ? "" : ", MISSED"})`,
  ].join(" ");
}

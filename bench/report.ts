/** The printed lines: our figure, the ceiling measured in the same run, the ratio and the goal. */
const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1, minimumFractionDigits: 1 });

type Goal = { readonly kind: "at_least" | "at_most"; readonly value: number; readonly unit: "%" | "×" };

export type Line = {
  readonly name: string;
  readonly ours: string;
  readonly ceiling_name: string;
  readonly ceiling: string;
  readonly ratio: number;
  readonly goal: Goal;
};

export function rate(events_per_second: number): string {
  return `${integer.format(events_per_second)} ev/s`;
}

export function ms(milliseconds: number): string {
  return `${decimal.format(milliseconds)} ms`;
}

export function met(line: Line): boolean {
  return line.goal.kind === "at_least" ? line.ratio >= line.goal.value : line.ratio <= line.goal.value;
}

function ratio_text(ratio: number, unit: Goal["unit"]): string {
  return unit === "%" ? `${integer.format(ratio)} %` : `${decimal.format(ratio)}×`;
}

export function format_line(line: Line): string {
  const sign = line.goal.kind === "at_least" ? "≥" : "≤";
  const goal = `goal ${sign} ${line.goal.unit === "%" ? `${line.goal.value} %` : `${line.goal.value}×`}`;
  return [
    line.name.padEnd(22),
    `air ${line.ours}`.padEnd(20),
    `${line.ceiling_name} ${line.ceiling}`.padEnd(28),
    ratio_text(line.ratio, line.goal.unit).padEnd(7),
    `(${goal}${met(line) ? "" : ", MISSED"})`,
  ].join(" ");
}

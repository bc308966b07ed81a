import vm from "node:vm";
import v8 from "node:v8";

/** The median; NaN for no values. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const upper = sorted[mid] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? Number.NaN) + upper) / 2;
}

/** `ours[i] / ceiling[i]` for runs measured in pairs; NaN where a pair lacks its ceiling. */
export function ratios(ours: readonly number[], ceiling: readonly number[]): number[] {
  return ours.map((value, index) => value / (ceiling[index] ?? Number.NaN));
}

/** Milliseconds taken by `work`. */
export function time_ms(work: () => void): number {
  const start = process.hrtime.bigint();
  work();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

/** A full collection between runs, so one run's garbage is not collected on the next one's clock. */
export function collect_garbage(): void {
  gc();
}

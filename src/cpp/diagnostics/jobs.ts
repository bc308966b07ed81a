/** One build job's output and the target its framing named (null for text outside any framed job). */
export interface BuildJob {
  readonly target: string | null;
  readonly text: string;
}

const NINJA_FAILED = /^FAILED: (.+?)\s*$/;
const NINJA_PROGRESS = /^\[\d+\/\d+\] |^ninja: /;
const MAKE_ERROR = /^g?make(?:\[\d+\])?: \*\*\* \[(?:.+?:\d+: )?(.+?)\] Error \d+/;
const MAKE_NOISE = /^\[\s*\d+%\] |^g?make(?:\[\d+\])?: (?:Target .* not remade|Entering directory|Leaving directory)/;

/**
 * Splits a build log into jobs: ninja prints `FAILED: target`, the command, then that job's buffered output;
 * make prints a job's output first and `*** [target] Error N` after it. Progress lines are dropped; make's
 * outer `Error 2` lines, which follow no output of their own, name no job.
 */
export function split_jobs(text: string): BuildJob[] {
  const jobs: BuildJob[] = [];
  let target: string | null = null;
  let lines: string[] = [];
  let skip_command = false;
  const flush = (named: string | null): void => {
    if (lines.some((line) => line.trim() !== "")) jobs.push({ target: named, text: lines.join("\n") });
    lines = [];
  };
  for (const line of text.split(/\r?\n/)) {
    const failed = NINJA_FAILED.exec(line);
    if (failed !== null) {
      flush(target);
      target = failed[1] ?? null;
      skip_command = true;
    } else if (skip_command) {
      skip_command = false;
    } else if (NINJA_PROGRESS.test(line)) {
      flush(target);
      target = null;
    } else {
      const make_error = MAKE_ERROR.exec(line);
      if (make_error !== null) flush(make_error[1] ?? null);
      else if (!MAKE_NOISE.test(line)) lines.push(line);
    }
  }
  flush(target);
  return jobs;
}

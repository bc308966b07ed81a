import { spawnSync } from "node:child_process";
import type { VersionSource } from "./detect.js";

const VERSION_TIMEOUT_MS = 5_000;

/**
 * Runs the program for its version line: stdout's first line, or stderr's for programs that print it there.
 * `LC_ALL=C` so the line reads the same whatever the user's locale.
 */
export const probe_version: VersionSource = (program, args) => {
  const result = spawnSync(program, [...args], {
    encoding: "utf8",
    timeout: VERSION_TIMEOUT_MS,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, LC_ALL: "C" },
  });
  if (result.error !== undefined || result.status !== 0) return undefined;
  const line = (text: string) => text.split("\n")[0]?.trim() ?? "";
  return line(result.stdout) || line(result.stderr) || undefined;
};

function numbers_of(dotted: string): number[] {
  return dotted.split(".").map(Number);
}

/** The first dotted number of a version line (`cmake version 3.25.1` → `3.25.1`), else its first number. */
function version_number(line: string): string | undefined {
  return /\d+(?:\.\d+)+/.exec(line)?.[0] ?? /\d+/.exec(line)?.[0];
}

/** Whether the version line shows at least `minimum`; a line without a number does not. */
export function meets_minimum(line: string | null, minimum: string): boolean {
  const found = line === null ? undefined : version_number(line);
  if (found === undefined) return false;
  const have = numbers_of(found);
  const want = numbers_of(minimum);
  for (let index = 0; index < want.length; index++) {
    const a = have[index] ?? 0;
    const b = want[index] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

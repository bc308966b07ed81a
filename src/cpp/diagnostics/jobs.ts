import { posix } from "node:path";

/** One build job's output, the target its framing named (null outside any framed job) and the folder it ran in. */
export interface BuildJob {
  readonly target: string | null;
  readonly lines: readonly string[];
  /** Where its relative paths resolve: make's `Entering directory`, ninja's, and a `cd DIR &&` command prefix. */
  readonly cwd: string | null;
}

const NINJA_FAILED = /^FAILED: (.+?)\s*$/;
const NINJA_PROGRESS = /^\[\d+\/\d+\] |^ninja: /;
const NINJA_ENTERING = /^ninja: Entering directory [`'](.+)'$/;
const COMMAND_CD = /^cd (?:"([^"]+)"|'([^']+)'|(\S+)) && /;
const MAKE_ERROR = /^g?make(?:\[\d+\])?: \*\*\* \[(?:.+?:\d+: )?(.+?)\] Error \d+/;
const MAKE_DIRECTORY = /^g?make(?:\[\d+\])?: (Entering|Leaving) directory [`'‘](.+)['’]$/;
const MAKE_NOISE = /^\[\s*\d+%\] |^g?make(?:\[\d+\])?: Target .* not remade/;

function joined(base: string | null, folder: string): string {
  return base === null || folder.startsWith("/") ? folder : posix.join(base, folder);
}

interface Framing {
  readonly jobs: BuildJob[];
  target: string | null;
  lines: string[];
  skip_command: boolean;
  /** make's directory stack, innermost last. */
  readonly make_dirs: string[];
  ninja_dir: string | null;
  command_dir: string | null;
}

function flush(state: Framing, target: string | null): void {
  if (state.lines.some((line) => line.trim() !== "")) {
    const cwd = state.command_dir ?? state.make_dirs.at(-1) ?? state.ninja_dir;
    state.jobs.push({ target, lines: state.lines, cwd });
  }
  state.lines = [];
}

/** make's framing lines: true when the line was one (and is not job output). */
function read_make(state: Framing, line: string): boolean {
  if (!line.startsWith("make") && !line.startsWith("gmake") && !line.startsWith("[")) return false;
  const make_error = MAKE_ERROR.exec(line);
  if (make_error !== null) {
    flush(state, make_error[1] ?? null);
    return true;
  }
  const directory = MAKE_DIRECTORY.exec(line);
  if (directory?.[2] !== undefined) {
    flush(state, state.target);
    if (directory[1] === "Entering") state.make_dirs.push(directory[2]);
    else state.make_dirs.pop();
    return true;
  }
  return MAKE_NOISE.test(line);
}

/** ninja's framing lines: `FAILED: target` (its command follows), progress and `ninja:` lines. */
function read_ninja(state: Framing, line: string): boolean {
  if (state.skip_command) {
    state.skip_command = false;
    const cd = COMMAND_CD.exec(line);
    state.command_dir = cd === null ? null : joined(state.ninja_dir, cd[1] ?? cd[2] ?? cd[3] ?? "");
    return true;
  }
  if (!line.startsWith("FAILED: ") && !line.startsWith("[") && !line.startsWith("ninja: ")) return false;
  const failed = NINJA_FAILED.exec(line);
  if (failed !== null) {
    flush(state, state.target);
    state.target = failed[1] ?? null;
    state.skip_command = true;
    return true;
  }
  if (!NINJA_PROGRESS.test(line)) return false;
  flush(state, state.target);
  state.target = null;
  // Without a description, ninja's status line is the command itself: `[1/2] cd src && g++ -c a.cpp`.
  const cd = line.startsWith("[") ? COMMAND_CD.exec(line.slice(line.indexOf("] ") + 2)) : null;
  state.command_dir = cd === null ? null : joined(state.ninja_dir, cd[1] ?? cd[2] ?? cd[3] ?? "");
  const entering = NINJA_ENTERING.exec(line);
  if (entering?.[1] !== undefined) state.ninja_dir = entering[1];
  return true;
}

/**
 * Splits a build log into jobs: ninja prints `FAILED: target`, the command, then that job's buffered output;
 * make prints a job's output first and `*** [target] Error N` after it. Progress lines are dropped; make's
 * outer `Error 2` lines, which follow no output of their own, name no job.
 */
export function split_jobs(lines: readonly string[]): BuildJob[] {
  const state: Framing = { jobs: [], target: null, lines: [], skip_command: false, make_dirs: [], ninja_dir: null, command_dir: null };
  for (const line of lines) {
    if (!read_ninja(state, line) && !read_make(state, line)) state.lines.push(line);
  }
  flush(state, state.target);
  return state.jobs;
}

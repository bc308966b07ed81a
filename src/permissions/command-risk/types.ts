import type { PermissionAction } from "../../contracts/events/permission.js";
import type { PathMemo } from "../paths.js";

/** Command risk categories of seeds 003 §12. */
const COMMAND_CATEGORIES = [
  "read_only",
  "build",
  "test",
  "static_analysis",
  "git_read",
  "git_write",
  "destructive",
  "network",
  "system_sensitive",
  "credential_sensitive",
] as const;
export type CommandCategory = (typeof COMMAND_CATEGORIES)[number];

/** What a finding is about: a command category, or something the analyzer could not see through. */
export type FindingCategory = CommandCategory | "unparseable" | "unknown_execution" | "outside_project" | "air_internal";

/** The PermissionEngine's actions but `block`, which only the task scope (layer 3) gives. */
export type AnalyzerAction = Exclude<PermissionAction, "block">;

export type CommandFinding = {
  readonly action: AnalyzerAction;
  readonly category: FindingCategory;
  readonly reason: string;
};

export type AnalyzedCommand = {
  /** The command bash runs once wrappers are stripped; dynamic words keep their source text (`$X`). */
  readonly argv: readonly string[];
  readonly categories: readonly CommandCategory[];
  /** How it is reached when not directly: `bash -c`, `eval`, `find -exec`, `xargs`, `sudo` … */
  readonly executes_via?: string;
  /** The argument grammar the command matched (`git log`), and the manual that grammar follows. */
  readonly rule?: string;
  readonly manual?: string;
};

export type CommandAnalysis = {
  readonly commands: readonly AnalyzedCommand[];
  /** Real paths the command writes through redirections and write arguments (`tee`, `sed w`, `cp` targets …). */
  readonly writes: readonly string[];
  /**
   * Real paths of existing files and folders the command reads (`cat x`, `< x`, `grep p file`, `cp src dst`'s
   * sources, scripts run, `source file` …), for scope and credential checks. Every word judged as a path is
   * listed when it exists, so an operand that is not a path (a grep pattern) may appear when a file has its
   * name; words only known at run time are not listed.
   */
  readonly reads: readonly string[];
  readonly findings: readonly CommandFinding[];
  /**
   * Real folders its commands may run in besides the working folder: `cd`/`pushd` targets, `env -C`, and the
   * folders programs are pointed at (`git -C`, `--git-dir`, `--work-tree`, `make -C`).
   */
  readonly folders: readonly string[];
  /** Names of the variables it sets: before a program, through `env`, on their own, or with `export`/`declare`. */
  readonly assigned: readonly string[];
  /** The strictest finding's action (`allow` when nothing runs). */
  readonly verdict: AnalyzerAction;
};

export type AnalyzerContext = {
  readonly cwd_real: string;
  readonly root_real: string;
  readonly home?: string;
  /** The file system's answers so far in this check, shared by every path it judges. */
  readonly memo?: PathMemo;
};

export { STRICTNESS } from "../../contracts/events/permission.js";

/** A word as bash would see it before running: its literal value, or `literal: false` when it expands at run time. */
export type ShellWord = {
  readonly value: string;
  readonly literal: boolean;
  readonly glob: boolean;
  /**
   * A literal word with unquoted braces, glob characters or extglob groups, as the pattern bash expands
   * (its other characters escaped with `\`, see pattern.ts); `value` is then the word as written.
   */
  readonly pattern?: string;
};

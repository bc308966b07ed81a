import { path_candidates } from "./expand.js";
import type { Globs } from "./glob.js";
import type { ReadDepth } from "./grammar/matched.js";
import { awk_arguments, git_arguments, sed_arguments, type FileArguments } from "./file-arguments.js";
import type { AnalyzerAction, CommandCategory, FindingCategory, ShellWord } from "./types.js";
import type { Variables } from "./variables.js";

/** Where the path judgements of one command go: the analysis collecting findings, reads and writes. */
export interface PathSink {
  /** Where the command's globs expand. */
  readonly globs: Globs;
  add(action: AnalyzerAction, category: FindingCategory, reason: string): void;
  /** `depth`: the path alone, or every entry below it (a tree read). */
  read(word: string, depth?: ReadDepth): void;
  /** `children`: the word is a glob's base folder, so what is written is inside it, not the folder itself. */
  write(word: string, destructive: boolean, children: boolean): void;
}

/** Commands whose every path argument is written (`tee`, `rm` …) or whose last one is (`cp`, `mv` …). */
const WRITES_ALL = new Set(["rm", "rmdir", "unlink", "shred", "touch", "mkdir", "truncate", "tee", "chmod", "chown", "chgrp"]);
const WRITES_LAST = new Set(["cp", "mv", "ln", "install", "rsync"]);
/** The first operand of these is a mode or an owner, not a path. */
const MODE_FIRST = new Set(["chmod", "chown", "chgrp"]);
const NO_PATH_ARGS = new Set(["echo", "printf", "test", "[", "export", "declare", "local"]);
/** Commands with a script or program word among their arguments: their file arguments are found by `file_arguments`. */
const FILE_ARGUMENTS: Record<string, (args: readonly ShellWord[]) => FileArguments> = {
  sed: sed_arguments,
  awk: awk_arguments,
  gawk: awk_arguments,
  mawk: awk_arguments,
  nawk: awk_arguments,
  git: git_arguments,
};

/**
 * Judges one word read: every spelling it may have. A word only known at run time (`$(echo ~/.ssh/id_rsa)`,
 * a variable the script never sets) may name any file, a credential included, so it is asked about — even
 * where it is only a pattern or a message: the analyzer cannot tell.
 */
export function read_word(sink: PathSink, word: ShellWord, variables: Variables, depth: ReadDepth = "path"): void {
  const candidates = path_candidates(word, variables, sink.globs);
  if (candidates === undefined) {
    if (/^"?\$(HOME\b|\{HOME\})/.test(word.value)) sink.add("ask_user", "outside_project", `${word.value} is in the home folder`);
    else sink.add("ask_user", "unknown_execution", `${word.value} is a path only known at run time, so what it reads cannot be checked`);
    return;
  }
  for (const candidate of candidates) sink.read(candidate.path, depth);
}

/** Judges one word written: every spelling it may have, or a prompt when it is only known at run time. */
export function write_word(sink: PathSink, word: ShellWord, variables: Variables, how: string, destructive = false): void {
  const candidates = path_candidates(word, variables, sink.globs);
  if (candidates === undefined) {
    sink.add("ask_user", "unknown_execution", `${how} writes ${word.value}, which is only known at run time, so it cannot be checked`);
    return;
  }
  for (const candidate of candidates) sink.write(candidate.path, destructive, candidate.base);
}

/** Path arguments: credentials and outside reads; writes for the commands that write their arguments. */
export function judge_arguments(
  sink: PathSink,
  name: string,
  args: readonly ShellWord[],
  categories: ReadonlySet<CommandCategory>,
  variables: Variables,
): void {
  if (NO_PATH_ARGS.has(name)) return;
  const file_arguments = FILE_ARGUMENTS[name];
  if (file_arguments !== undefined) {
    const found = file_arguments(args);
    for (const word of [...found.program_files, ...found.reads]) read_word(sink, word, variables);
    for (const word of found.writes) write_word(sink, word, variables, name);
    return;
  }
  const operands = args.filter((word) => !(word.literal && word.value.startsWith("-") && word.value.length > 1));
  const destructive = categories.has("destructive");
  operands.forEach((word, index) => {
    const written = WRITES_ALL.has(name) || (WRITES_LAST.has(name) && index === operands.length - 1 && operands.length > 1);
    if (written && !(MODE_FIRST.has(name) && index === 0)) write_word(sink, word, variables, name, destructive);
    else read_word(sink, word, variables);
  });
  for (const word of args) {
    const equals = word.value.indexOf("=");
    if (!word.literal || equals === -1 || name === "dd") continue;
    const value = word.value.slice(equals + 1);
    if (value.startsWith("/") || value.startsWith("~") || value.startsWith(".")) sink.read(value);
  }
}

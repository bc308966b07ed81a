import { path_candidates } from "./expand.js";
import type { Globs } from "./glob.js";
import type { ReadDepth } from "./grammar/matched.js";
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

/**
 * Programs without an argument grammar that write their operands: `chown`/`chgrp` (whose first operand is
 * an owner). Any other program without one has its operands judged as reads.
 */
const OWNER_FIRST = new Set(["chown", "chgrp"]);

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

/** The path arguments of a program without a grammar: credentials and outside reads; the files chown and chgrp change. */
export function judge_arguments(
  sink: PathSink,
  name: string,
  args: readonly ShellWord[],
  categories: ReadonlySet<CommandCategory>,
  variables: Variables,
): void {
  const operands = args.filter((word) => !(word.literal && word.value.startsWith("-") && word.value.length > 1));
  const destructive = categories.has("destructive");
  operands.forEach((word, index) => {
    if (OWNER_FIRST.has(name) && index > 0) write_word(sink, word, variables, name, destructive);
    else if (!OWNER_FIRST.has(name)) read_word(sink, word, variables);
  });
  for (const word of args) {
    const equals = word.value.indexOf("=");
    if (!word.literal || equals === -1) continue;
    const value = word.value.slice(equals + 1);
    if (value.startsWith("/") || value.startsWith("~") || value.startsWith(".")) sink.read(value);
  }
}

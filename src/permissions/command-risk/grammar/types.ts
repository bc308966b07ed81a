import type { CommandCategory, ShellWord } from "../types.js";
import type { Matched } from "./matched.js";

/**
 * What an option's value or an operand is to the program, which decides how the analyzer judges it
 * (Codex's execpolicy `ArgType` is the anchor):
 * - `text`: opaque to the program's safety: a pattern, a message, a name, a revision;
 * - `number`: a count, a size or a duration; anything else asks;
 * - `read` / `write` / `delete`: a path read, written, or removed;
 * - `tree` / `linked_tree`: a folder read recursively, without / with following the symlinks inside it;
 * - `visible_tree`: a folder read recursively, skipping hidden (dot) entries, as rg and fd do by default;
 * - `folder`: a folder the program works in (`make -C`, `git -C`);
 * - `script`: a file the program runs as code (a project file is announced, any other asks);
 * - `command`: a shell command line or a program the tool runs (asks; a literal one is analysed too);
 * - `code`: text in a language that can run commands, read the environment or open files (asks);
 * - `one_of`: one of the listed literal values, anything else asks;
 * - `judge`: judged by the rule's own function (make's `VAR=value`, cmake's `-E` commands).
 */
export type ValueKind =
  | "text"
  | "number"
  | "read"
  | "write"
  | "delete"
  | "tree"
  | "linked_tree"
  | "visible_tree"
  | "folder"
  | "script"
  | "command"
  | "code"
  | { readonly one_of: readonly string[] }
  | { readonly judge: (word: ShellWord, matched: Matched) => void };

export type OptionSpec = {
  /** The value the option takes (`-o FILE`, `--output=FILE`, `-oFILE`); a flag has none. */
  readonly value?: ValueKind;
  /** The value is taken only when attached (`--color=always`, `-j4`): `--color` alone is a flag. */
  readonly optional_value?: true;
  /** `single_dash` style: the value may be attached to the option (`-Iinclude`, `-O2`, `-L.`). */
  readonly attached?: true;
  /** The category the option gives the command (`-delete` is destructive, `--push` network). */
  readonly category?: CommandCategory;
  /** The option itself makes the command ask, for this reason (it runs a program, opens a socket …). */
  readonly ask?: string;
  /** The option itself is clear harm, for this reason. */
  readonly deny?: string;
};

/** Positional operands: `first` in order, then every further one is `rest`, except the `last` (of two or more). */
export type Operands = {
  readonly first?: readonly ValueKind[];
  readonly rest?: ValueKind;
  readonly last?: ValueKind;
};

/**
 * The options a command was given, by canonical name (the first spelling in its spec), with their values;
 * `--` when the arguments end their options with it (`git checkout -- FILE` discards changes to FILE).
 */
export type Seen = ReadonlyMap<string, readonly ShellWord[]>;

/**
 * A program's argument grammar, as its manual documents it. `options` keys list every spelling of an
 * option separated by `|` (`"-n|--line-number"`), the first being its canonical name.
 */
export type ProgramSpec = {
  /** The rule's name in decisions and reports: the program and subcommand (`git log`). */
  readonly rule: string;
  /** The manual the grammar follows (`grep(1), GNU grep 3.11`). */
  readonly manual: string;
  readonly category: CommandCategory;
  readonly options?: Readonly<Record<string, OptionSpec>>;
  readonly operands?: Operands | ((seen: Seen) => Operands);
  /** Subcommands by name: the first operand picks one; an unknown one asks. */
  readonly subcommands?: Readonly<Record<string, ProgramSpec>>;
  /**
   * `getopt` (default): `-abc` clusters, `--long[=value]`, options after operands (GNU permutation).
   * `single_dash`: whole words (`-name`, `-Wall`); keys ending in `=` or marked `attached` take the rest
   * of the word (`-std=c++17`, `-Iinclude`).
   */
  readonly style?: "getopt" | "single_dash";
  /** Options end at the first operand (POSIX `getopt`, and programs that run a command after theirs). */
  readonly options_first?: true;
  /** `head -5`: a dash and digits is this option with that value. */
  readonly number_option?: string;
  /** Cross-argument rules, after the arguments are matched (`grep -r` with no operand reads `.`). */
  readonly check?: (matched: Matched, seen: Seen, operands: readonly ShellWord[]) => void;
};

/** A program's rule: the names it answers to and how it reads their arguments. */
export type ProgramRule = {
  readonly names: readonly string[];
  readonly match: (args: readonly ShellWord[]) => Matched;
};

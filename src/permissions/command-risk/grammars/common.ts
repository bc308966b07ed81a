import type { Matched } from "../grammar/matched.js";
import type { OptionSpec, ValueKind } from "../grammar/types.js";
import type { ShellWord } from "../types.js";

// Options, value kinds and spec helpers the grammars share.

/** `--help` and `--version`, which every GNU program takes and which print and exit. */
export const INFO: Readonly<Record<string, OptionSpec>> = { "--help": {}, "--version": {} };

/**
 * `--files0-from=F`: F is read, and so is every file named in it, names this analyzer never sees. wc and du
 * print only counts and sizes of those files; sort prints them, so there it asks.
 */
export const FILES0_FROM: OptionSpec = { value: "read" };

/** Options that take no value, by their spellings (`flags("-q|--quiet", "-v")`). */
export const flags = (...names: string[]): Record<string, OptionSpec> => Object.fromEntries(names.map((name) => [name, {}]));

/** A value that must be one of these words (`--color=WHEN`). */
export const one_of = (...values: string[]): ValueKind => ({ one_of: values });

/**
 * A suffix added to an output file's name (`cp -S`, `sed -i`, `split --additional-suffix`): the file is
 * written beside the one it is named after, unless a slash in the suffix puts it in another folder.
 */
export const SUFFIX: ValueKind = {
  judge: (word: ShellWord, matched: Matched) => {
    if (!word.literal || word.value.includes("/")) matched.ask(`the file name suffix ${word.value} may put a file in another folder`);
  },
};

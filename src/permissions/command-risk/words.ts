import type { ShellWord } from "./types.js";

/** A word air made itself (an option's attached value): literal text, no glob. */
export function literal_word(value: string): ShellWord {
  return { value, literal: true, glob: false };
}

/** `--name=value` split into the option and its attached value; `--name` alone has none. */
export function split_option(value: string): { option: string; attached: ShellWord | undefined } {
  const equals = value.indexOf("=");
  return equals === -1
    ? { option: value, attached: undefined }
    : { option: value.slice(0, equals), attached: literal_word(value.slice(equals + 1)) };
}

import type { Word, WordPart } from "unbash";
import { word_pattern } from "./pattern.js";
import type { ShellWord } from "./types.js";

/** A word air made itself (an option's attached value): literal text, no glob. */
export function literal_word(value: string): ShellWord {
  return { value, literal: true, glob: false };
}

/** `--name=value` split into the option and its attached value; `--name` alone has none. */
export function split_option(value: string): { option: string; attached: ShellWord | undefined } {
  const equals = value.indexOf("=");
  return equals === -1 ? { option: value, attached: undefined } : { option: value.slice(0, equals), attached: literal_word(value.slice(equals + 1)) };
}

const LITERAL_PARTS = new Set(["Literal", "SingleQuoted", "AnsiCQuoted", "Glob", "BraceExpansion", "ExtendedGlob"]);

export function part_literal(part: WordPart): boolean {
  if (LITERAL_PARTS.has(part.type))
    return part.type === "Glob" || part.type === "BraceExpansion" || part.type === "ExtendedGlob" ? !/[$`]/.test(part.text) : true;
  if (part.type === "DoubleQuoted" || part.type === "LocaleString") return part.parts.every((child) => child.type === "Literal");
  return false;
}

export function shell_word(word: Word): ShellWord {
  const parts = word.parts ?? [];
  const literal =
    parts.every(part_literal) && !(parts.length === 0 && /[$`]/.test(word.text) && word.value === word.text && /\$[({A-Za-z_@*#?!$0-9]|`/.test(word.text));
  const glob = parts.some((part) => part.type === "Glob" || part.type === "ExtendedGlob");
  const pattern = literal ? word_pattern(parts) : undefined;
  return { value: literal ? word.value : word.text, literal, glob, ...(pattern === undefined ? {} : { pattern }) };
}

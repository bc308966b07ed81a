import type { ShellWord } from "../types.js";
import { literal_word } from "../words.js";
import { Matched } from "./matched.js";
import type { OptionSpec, Operands, ProgramRule, ProgramSpec, ValueKind } from "./types.js";

type Option = { readonly canonical: string; readonly spelling: string; readonly spec: OptionSpec };

/** A spec with its option spellings indexed, compiled once per rule. */
type Compiled = {
  readonly spec: ProgramSpec;
  readonly options: ReadonlyMap<string, Option>;
  /** `single_dash` spellings that take an attached value (`-I`, `-std=`), longest first. */
  readonly prefixes: readonly Option[];
  readonly subcommands: ReadonlyMap<string, Compiled>;
  /** Whether some option runs code or is harm: then a word only known at run time may be that option. */
  readonly dangerous: boolean;
};

/** Runs code, or is harm: what an option or value must never be mistaken for. */
function is_dangerous(option: OptionSpec): boolean {
  const kind = option.value;
  return option.ask !== undefined || option.deny !== undefined || kind === "command" || kind === "code" || kind === "script";
}

function compile(spec: ProgramSpec): Compiled {
  const options = new Map<string, Option>();
  for (const [spellings, option] of Object.entries(spec.options ?? {})) {
    const names = spellings.split("|");
    // biome-ignore lint/style/noNonNullAssertion: split always yields at least one element
    const canonical = names[0]!;
    for (const spelling of names) options.set(spelling, { canonical, spelling, spec: option });
  }
  const prefixes = [...options.values()]
    .filter((option) => option.spelling.endsWith("=") || option.spec.attached === true)
    .sort((a, b) => b.spelling.length - a.spelling.length);
  const subcommands = new Map(Object.entries(spec.subcommands ?? {}).map(([name, sub]) => [name, compile(sub)]));
  return { spec, options, prefixes, subcommands, dangerous: [...options.values()].some((option) => is_dangerous(option.spec)) };
}

const NUMBER = /^[+-]?\d+(\.\d+)?[A-Za-z%]*$/;

/** Judges one option value or operand by its kind, into `matched`; `via` names it in reasons (`grep --file`). */
export function judge_value(kind: ValueKind, word: ShellWord, via: string, matched: Matched): void {
  if (typeof kind === "object") {
    if ("judge" in kind) kind.judge(word, matched);
    else if (!word.literal || !kind.one_of.includes(word.value)) matched.ask(`${via} ${word.value} is not a value this analyzer knows`);
    return;
  }
  switch (kind) {
    case "text":
      return;
    case "number":
      if (word.literal && !NUMBER.test(word.value)) matched.ask(`${via} takes a number, not ${word.value}`);
      return;
    case "read":
      matched.read(word);
      return;
    case "folder":
      matched.folder(word);
      return;
    case "tree":
    case "linked_tree":
    case "visible_tree":
      matched.read(word, kind);
      return;
    case "write":
    case "delete":
      matched.write(word, kind === "delete");
      return;
    case "script":
      matched.scripts.push(word);
      return;
    case "command":
      matched.ask(`${via} runs ${word.value}`);
      if (word.literal) matched.code.push({ word, via });
      return;
    case "code":
      matched.ask(`${via} evaluates ${word.value}, code this analyzer does not read`);
      return;
  }
}

/** One option as written, with the value it takes, into `matched` and `seen`. */
function take(option: Option, value: ShellWord | undefined, rule: string, matched: Matched, seen: Map<string, ShellWord[]>): void {
  const values = seen.get(option.canonical) ?? [];
  if (value !== undefined) values.push(value);
  seen.set(option.canonical, values);
  const via = `${rule} ${option.spelling}`;
  if (option.spec.category !== undefined) matched.categories.add(option.spec.category);
  if (option.spec.ask !== undefined) matched.ask(`${via} ${option.spec.ask}`);
  if (option.spec.deny !== undefined) matched.deny(`${via} ${option.spec.deny}`, option.spec.category ?? "unknown_execution");
  if (value !== undefined && option.spec.value !== undefined) judge_value(option.spec.value, value, via, matched);
}

const unknown_option = (rule: string, text: string, matched: Matched): void =>
  matched.ask(`${rule} ${text} is not an option this analyzer knows, so what it does cannot be checked`);

/** Reads the option at `args[index]`; returns the index of the last word it took. */
function read_option(compiled: Compiled, args: readonly ShellWord[], index: number, matched: Matched, seen: Map<string, ShellWord[]>): number {
  // biome-ignore lint/style/noNonNullAssertion: the caller passes an index inside args
  const text = args[index]!.value;
  const rule = compiled.spec.rule;
  const next = (): ShellWord | undefined => args[++index];
  if (compiled.spec.style === "single_dash" || text.startsWith("--")) {
    const equals = text.indexOf("=");
    const exact = compiled.options.get(text) ?? (equals === -1 ? undefined : compiled.options.get(text.slice(0, equals)));
    if (exact !== undefined) {
      const attached = exact.spelling === text ? undefined : literal_word(text.slice(exact.spelling.length + 1));
      if (exact.spec.value === undefined && attached !== undefined) matched.ask(`${rule} ${exact.spelling} takes no value, not ${text}`);
      const value = exact.spec.value === undefined ? undefined : (attached ?? (exact.spec.optional_value === true ? undefined : next()));
      take(exact, value, rule, matched, seen);
      return index;
    }
    const prefix = compiled.prefixes.find((option) => text.startsWith(option.spelling));
    if (prefix !== undefined) take(prefix, literal_word(text.slice(prefix.spelling.length)), rule, matched, seen);
    else unknown_option(rule, text, matched);
    return index;
  }
  const number = compiled.spec.number_option;
  if (number !== undefined && /^-\d+$/.test(text)) {
    const option = compiled.options.get(number);
    if (option !== undefined) take(option, literal_word(text.slice(1)), rule, matched, seen);
    return index;
  }
  for (let at = 1; at < text.length; at += 1) {
    const option = compiled.options.get(`-${text.charAt(at)}`);
    if (option === undefined) {
      unknown_option(rule, `-${text.charAt(at)}`, matched);
      return index;
    }
    if (option.spec.value === undefined) {
      take(option, undefined, rule, matched, seen);
      continue;
    }
    const rest = text.slice(at + 1);
    const value = rest !== "" ? literal_word(rest) : option.spec.optional_value === true ? undefined : next();
    take(option, value, rule, matched, seen);
    // getopt reads `-o=FILE` as `=FILE`, cac, mri and argparse as FILE: both are judged
    if (rest.length > 1 && rest.startsWith("=")) take(option, literal_word(rest.slice(1)), rule, matched, seen);
    return index;
  }
  return index;
}

/** The kind of the operand at `index` of `count`, by the spec's shape; `undefined` when the shape has none there. */
function operand_kind(shape: Operands, index: number, count: number): ValueKind | undefined {
  const first = shape.first ?? [];
  if (index < first.length) return first[index];
  if (shape.last !== undefined && index === count - 1 && index >= Math.max(first.length, 1)) return shape.last;
  return shape.rest;
}

function match_compiled(compiled: Compiled, args: readonly ShellWord[], matched: Matched): void {
  const { spec } = compiled;
  matched.rule = spec.rule;
  matched.manual = spec.manual;
  const seen = new Map<string, ShellWord[]>();
  const operands: ShellWord[] = [];
  let options_done = false;
  for (let index = 0; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const word = args[index]!;
    if (!options_done && word.literal && word.value === "--") {
      options_done = true;
      seen.set("--", []);
      continue;
    }
    if (!options_done && word.literal && word.value.startsWith("-") && word.value !== "-") {
      index = read_option(compiled, args, index, matched, seen);
      continue;
    }
    if (!options_done && !word.literal && compiled.dangerous)
      matched.ask(`${word.value} is only known at run time, and may be an option of ${spec.rule} that runs code`);
    if (compiled.subcommands.size > 0 && operands.length === 0) {
      const sub = word.literal ? compiled.subcommands.get(word.value) : undefined;
      if (sub !== undefined) {
        match_compiled(sub, args.slice(index + 1), matched);
        return;
      }
      if (spec.operands === undefined) {
        matched.ask(`${spec.rule} ${word.value} is not a subcommand this analyzer knows`);
        return;
      }
    }
    operands.push(word);
    if (spec.options_first === true) options_done = true;
  }
  matched.categories.add(spec.category);
  const shape = typeof spec.operands === "function" ? spec.operands(seen) : (spec.operands ?? {});
  operands.forEach((word, index) => {
    const kind = operand_kind(shape, index, operands.length);
    if (kind === undefined) matched.ask(`${spec.rule} takes no operand ${word.value} in the grammar this analyzer knows`);
    else judge_value(kind, word, spec.rule, matched);
  });
  spec.check?.(matched, seen, operands);
}

/**
 * A program's rule from its declared grammar; `names` it answers to default to the rule's name. The grammar
 * is compiled at the rule's first match: every grammar is declared as its module loads, on the way to the
 * TUI's first frame, and most programs are never run in a session.
 */
export function program_rule(spec: ProgramSpec, names: readonly string[] = [spec.rule]): ProgramRule {
  let compiled: Compiled | undefined;
  return {
    names,
    match: (args) => {
      const matched = new Matched(spec.rule, spec.manual);
      compiled ??= compile(spec);
      match_compiled(compiled, args, matched);
      return matched;
    },
  };
}

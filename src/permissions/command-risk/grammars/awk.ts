import { program_rule } from "../grammar/declarative.js";
import type { Matched } from "../grammar/matched.js";
import type { ProgramRule, Seen, ValueKind } from "../grammar/types.js";
import type { ShellWord } from "../types.js";
import { literal_word } from "../words.js";
import { one_of } from "./common.js";

type Token = { readonly kind: "word" | "string" | "regex" | "punct" | "newline"; readonly text: string };

/** An awk program as far as this analyzer reads it: its tokens, or why they cannot be trusted. */
type Lexed = { readonly tokens: readonly Token[]; readonly unreadable?: string };

/** Keywords after which `/` opens a regular expression rather than dividing. */
const BEFORE_EXPRESSION = new Set(["print", "printf", "return", "case", "do", "else", "in", "exit"]);
const CONTROL = new Set(["if", "while", "for", "switch"]);
const PUNCTUATION = ["**=", "|&", "||", "&&", ">>", ">=", "<=", "==", "!=", "!~", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "**"];

/**
 * Splits an awk program into tokens (POSIX awk, gawk 5.2): strings, regular expressions, words, operators,
 * newlines; comments dropped. Whether `/` starts a regular expression is decided from the token before it,
 * as awk's grammar does; a `)` closing an `if`/`while`/`for` condition is followed by a statement, so by one.
 * A bracket expression holding `/` (`/[/]/`) is read differently by gawk and mawk, so it makes the program
 * unreadable here, as does an unterminated string or expression.
 */
function lex(program: string): Lexed {
  const tokens: Token[] = [];
  /** For each open `(`: whether it opened a control statement's condition. */
  const parens: boolean[] = [];
  let after_control = false;
  let i = 0;
  const n = program.length;
  const push = (kind: Token["kind"], text: string): void => {
    tokens.push({ kind, text });
  };
  const expression_expected = (): boolean => {
    const last = tokens.at(-1);
    if (last === undefined || last.kind === "newline") return true;
    if (last.kind === "word") return BEFORE_EXPRESSION.has(last.text);
    if (last.kind !== "punct") return false;
    if (last.text === ")") return after_control;
    return !["]", "++", "--"].includes(last.text);
  };
  while (i < n) {
    const c = program.charAt(i);
    if (c === "\\" && program[i + 1] === "\n") i += 2;
    else if (c === " " || c === "\t" || c === "\r") i += 1;
    else if (c === "\n") {
      push("newline", c);
      i += 1;
    } else if (c === "#") {
      while (i < n && program[i] !== "\n") i += 1;
    } else if (c === '"') {
      const start = i;
      i += 1;
      while (i < n && program[i] !== '"' && program[i] !== "\n") i += program[i] === "\\" ? 2 : 1;
      if (program[i] !== '"') return { tokens, unreadable: "it has an unterminated string" };
      i += 1;
      push("string", program.slice(start + 1, i - 1));
    } else if (c === "/" && expression_expected()) {
      const start = i;
      let bracket = false;
      i += 1;
      while (i < n && (bracket || program[i] !== "/") && program[i] !== "\n") {
        if (program[i] === "\\") i += 1;
        else if (program[i] === "[" && !bracket) {
          bracket = true;
          if (program[i + 1] === "^") i += 1;
          if (program[i + 1] === "]") i += 1;
        } else if (program[i] === "]") bracket = false;
        else if (program[i] === "/" && bracket) return { tokens, unreadable: "a / inside a bracket expression is read differently by different awks" };
        i += 1;
      }
      if (program[i] !== "/") return { tokens, unreadable: "it has an unterminated regular expression" };
      i += 1;
      push("regex", program.slice(start, i));
    } else if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(program.slice(i))?.[0] ?? c;
      push("word", word);
      i += word.length;
    } else if (/[0-9.]/.test(c)) {
      const number = /^(?:0[xX][0-9a-fA-F]+|[0-9]*\.?[0-9]*(?:[eE][+-]?[0-9]+)?)/.exec(program.slice(i))?.[0] || c;
      push("word", number);
      i += number.length;
    } else {
      const text = PUNCTUATION.find((candidate) => program.startsWith(candidate, i)) ?? c;
      const previous = tokens.at(-1);
      after_control = false;
      if (text === "(") parens.push(previous?.kind === "word" && CONTROL.has(previous.text));
      if (text === ")") after_control = parens.pop() === true;
      push("punct", text);
      i += text.length;
    }
  }
  return { tokens };
}

/** Tokens that continue a statement over a newline. */
const CONTINUES = new Set([",", "&&", "||", "{", "do", "else"]);

/**
 * The output redirections of `print` and `printf` statements (`print > "out"`, `printf … >> f`): a `>` at
 * the statement's own level is one, inside parentheses a comparison. Returns each target's tokens.
 */
function redirections(tokens: readonly Token[]): Token[][] {
  const targets: Token[][] = [];
  tokens.forEach((token, start) => {
    if (token.kind !== "word" || (token.text !== "print" && token.text !== "printf")) return;
    let depth = 0;
    let target: Token[] | undefined;
    for (let at = start + 1; at < tokens.length; at += 1) {
      // biome-ignore lint/style/noNonNullAssertion: at < tokens.length
      const next = tokens[at]!;
      const previous = tokens[at - 1];
      if (next.kind === "newline" && previous !== undefined && CONTINUES.has(previous.text)) continue;
      if (depth === 0 && (next.kind === "newline" || next.text === ";" || next.text === "}")) break;
      if (next.kind === "punct" && (next.text === "(" || next.text === "[")) depth += 1;
      else if (next.kind === "punct" && (next.text === ")" || next.text === "]")) depth -= 1;
      if (target !== undefined) target.push(next);
      else if (depth === 0 && next.kind === "punct" && (next.text === ">" || next.text === ">>")) target = [];
    }
    if (target !== undefined) targets.push(target);
  });
  return targets;
}

/**
 * Judges an awk program: `system()`, pipes (`print | cmd`, `cmd | getline`, `|&`), `getline` (which opens
 * files and commands), gawk's `@load`, `@include` and indirect calls, and `ARGV` (which changes the files
 * read) ask; `ENVIRON` is an environment dump, which asks; `print > "file"` writes that file.
 */
function judge_program(word: ShellWord, matched: Matched): void {
  if (!word.literal) {
    matched.ask(`the awk program ${word.value} is only known at run time`);
    return;
  }
  const program = word.value;
  // Looked for in the whole text, strings included, so no misreading of the program can hide them.
  if (/\bsystem\b/.test(program)) matched.ask("the awk program calls system(), which runs a shell command");
  if (/\bgetline\b/.test(program)) matched.ask("the awk program uses getline, which reads files and runs commands");
  if (/\bARGV\b/.test(program)) matched.ask("the awk program changes ARGV, the files it reads");
  if (/\bENVIRON\b/.test(program)) matched.ask("the awk program reads ENVIRON, the environment, which may hold secrets", "credential_sensitive");
  const { tokens, unreadable } = lex(program);
  if (unreadable !== undefined) {
    matched.ask(`the awk program cannot be read: ${unreadable}`);
    return;
  }
  if (tokens.some((token) => token.kind === "punct" && (token.text === "|" || token.text === "|&")))
    matched.ask("the awk program pipes to or from a shell command");
  if (tokens.some((token, at) => token.text === "@" && tokens[at + 1]?.kind !== "regex"))
    matched.ask("the awk program loads an extension, includes a file or calls a function by name");
  for (const target of redirections(tokens)) {
    const [file] = target;
    if (target.length === 1 && file?.kind === "string" && !file.text.includes("\\")) matched.write(literal_word(file.text));
    else matched.ask("the awk program writes to a file whose name this analyzer cannot read");
  }
}

const PROGRAM: ValueKind = { judge: judge_program };

const PROGRAM_FILE: ValueKind = {
  judge: (word: ShellWord, matched: Matched) => {
    matched.read(word);
    matched.ask(`awk runs the program file ${word.value}, which this analyzer does not read`);
  },
};

/** An operand after the program: a file, or a `var=value` assignment made before the next file is read. */
const INPUT: ValueKind = {
  judge: (word: ShellWord, matched: Matched) => {
    if (!(word.literal && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word.value))) matched.read(word);
  },
};

const program_operand = (seen: Seen): boolean => !seen.has("-f") && !seen.has("-e") && !seen.has("-E");

/**
 * awk(1), POSIX: `awk [-F sepstring] [-v assignment]... program [argument...]`, `awk [-F sepstring] -f progfile
 * [-f progfile]... [-v assignment]... [argument...]`, with gawk's options (gawk(1), GNU Awk 5.2), one grammar
 * for awk, gawk, mawk and nawk: an option one of them lacks makes it fail, not run anything else.
 */
export const AWK_RULE: ProgramRule = program_rule(
  {
    rule: "awk",
    manual: "awk(1p), POSIX.1-2017; gawk(1), GNU Awk 5.2",
    category: "read_only",
    options: {
      "-f|--file": { value: PROGRAM_FILE },
      "-F|--field-separator": { value: "text" },
      "-v|--assign": { value: "text" },
      "-b|--characters-as-bytes": {},
      "-c|--traditional": {},
      "-C|--copyright": {},
      "-e|--source": { value: PROGRAM },
      "-E|--exec": { value: PROGRAM_FILE },
      "-h|--usage|--help": {},
      "-i|--include": { value: PROGRAM_FILE },
      "-l|--load": { value: "read", ask: "loads a compiled extension, which runs code" },
      "-L|--lint": { value: one_of("fatal", "invalid", "no-ext"), optional_value: true },
      "-M|--bignum": {},
      "-n|--non-decimal-data": {},
      "-N|--use-lc-numeric": {},
      "-O|--optimize": {},
      "-P|--posix": {},
      "-r|--re-interval": {},
      "-s|--no-optimize": {},
      "-S|--sandbox": {},
      "-t|--lint-old": {},
      "-V|--version": {},
    },
    operands: (seen) => (program_operand(seen) ? { first: [PROGRAM], rest: INPUT } : { rest: INPUT }),
  },
  ["awk", "gawk", "mawk", "nawk"],
);

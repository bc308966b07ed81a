import { program_rule } from "../grammar/declarative.js";
import type { Matched } from "../grammar/matched.js";
import type { ProgramRule, Seen, ValueKind } from "../grammar/types.js";
import type { ShellWord } from "../types.js";
import { literal_word } from "../words.js";
import { INFO, SUFFIX } from "./common.js";

/** What a sed script does besides editing its input. */
export type SedEffects = {
  /** Shell commands of `e COMMAND`; `""` for a bare `e`, which runs the pattern space. */
  readonly commands: string[];
  /** `s///e`: the pattern space after the substitution is run as a shell command. */
  runs_pattern_space: boolean;
  /** Files of `r`, `R`. */
  readonly reads: string[];
  /** Files of `w`, `W`, `s///w`. */
  readonly writes: string[];
};

/** Commands whose argument runs to the end of the line: text (`a`, `i`, `c`), a file, a command, a comment. */
const LINE_ARGUMENT = /[aic#rRwWe]/;
/** Commands whose label ends at `;` or at the end of the line (GNU sed 4.9). */
const LABELLED = /[:btT]/;

/**
 * Reads a sed script (GNU sed 4.9, "sed scripts") for the commands that reach outside the stream: `e`,
 * `s///e`, `r`/`R` files and `w`/`W`/`s///w` files. Addresses (`3`, `$`, `/re/`, `\%re%`, `1,5`, `0~2`)
 * and the other commands are stepped over.
 */
export function sed_script_effects(script: string): SedEffects {
  const effects: SedEffects = { commands: [], runs_pattern_space: false, reads: [], writes: [] };
  const n = script.length;
  let i = 0;
  const rest_of_line = (): string => {
    const end = script.indexOf("\n", i);
    const text = script.slice(i, end === -1 ? n : end).trim();
    i = end === -1 ? n : end + 1;
    return text;
  };
  /** Steps over a `/…/` section ending at `delimiter`, escapes included. */
  const section = (delimiter: string): void => {
    while (i < n && script[i] !== delimiter) i += script[i] === "\\" ? 2 : 1;
    i += 1;
  };
  while (i < n) {
    while (i < n && /[\s;{}]/.test(script.charAt(i))) i += 1;
    while (i < n && /[0-9$,~+/\\]/.test(script.charAt(i))) {
      if (script[i] === "/" || script[i] === "\\") {
        // past the end of the script (a trailing `\`) the delimiter is "", and the scan stops at n anyway
        const delimiter = script[i] === "\\" ? script.charAt(i + 1) : "/";
        i += script[i] === "\\" ? 2 : 1;
        section(delimiter);
      } else i += 1;
      while (i < n && /[IM]/.test(script.charAt(i))) i += 1;
    }
    while (i < n && /[\s!]/.test(script.charAt(i))) i += 1;
    const command = script[i];
    if (command === undefined) break;
    i += 1;
    if (command === "s" || command === "y") substitution(command, effects);
    else if (LABELLED.test(command)) {
      while (i < n && !/[;\n]/.test(script.charAt(i))) i += 1;
    } else if (LINE_ARGUMENT.test(command)) {
      const argument = rest_of_line();
      if (command === "e") effects.commands.push(argument);
      else if (command === "w" || command === "W") effects.writes.push(argument);
      else if (command === "r" || command === "R") effects.reads.push(argument);
    }
  }
  return effects;

  /** `s/re/replacement/flags` and `y/source/dest/`, with `s`'s `e` and `w FILE` flags. */
  function substitution(command: string, out: SedEffects): void {
    // "" when the script ends at the command: the sections below then stop at n
    const delimiter = script.charAt(i);
    i += 1;
    section(delimiter);
    section(delimiter);
    if (command === "y") return;
    const flags = /^[gpiImMe0-9]*/.exec(script.slice(i))?.[0] ?? "";
    i += flags.length;
    if (flags.includes("e")) out.runs_pattern_space = true;
    if (script[i] === "w") {
      i += 1;
      out.writes.push(rest_of_line());
    }
  }
}

/** A sed script given on the command line: what it runs asks (a literal `e COMMAND` is analysed too), what it opens is judged. */
function judge_script(word: ShellWord, matched: Matched): void {
  if (!word.literal) {
    matched.ask(`the sed script ${word.value} is only known at run time`);
    return;
  }
  const effects = sed_script_effects(word.value);
  for (const command of effects.commands) {
    matched.ask("sed e runs a shell command");
    if (command !== "") matched.code.push({ word: literal_word(command), via: "sed e" });
  }
  if (effects.runs_pattern_space) matched.ask("sed s///e runs the pattern space as a shell command");
  for (const file of effects.reads) matched.read(literal_word(file));
  for (const file of effects.writes) matched.write(literal_word(file));
}

const SCRIPT: ValueKind = { judge: judge_script };

const SCRIPT_FILE: ValueKind = {
  judge: (word: ShellWord, matched: Matched) => {
    matched.read(word);
    matched.ask(`sed -f runs the script file ${word.value}, which this analyzer does not read`);
  },
};

const script_operand = (seen: Seen): boolean => !seen.has("-e") && !seen.has("-f");

/**
 * sed(1): `sed [OPTION]... {script-only-if-no-other-script} [input-file]...`. The files are read, or written
 * with `-i`. BSD's `sed -i '' SCRIPT FILE` puts the script where GNU sed reads a file: both readings are judged.
 */
export const SED_RULE: ProgramRule = program_rule({
  rule: "sed",
  manual: "sed(1), GNU sed 4.9",
  category: "read_only",
  options: {
    "-n|--quiet|--silent": {},
    "--debug": {},
    "-e|--expression": { value: SCRIPT },
    "-f|--file": { value: SCRIPT_FILE },
    "--follow-symlinks": {},
    "-i|--in-place": { value: SUFFIX, optional_value: true },
    "-l|--line-length": { value: "number" },
    "--posix": {},
    "-E|-r|--regexp-extended": {},
    "-s|--separate": {},
    "--sandbox": {},
    "-u|--unbuffered": {},
    "-z|--null-data": {},
    ...INFO,
  },
  operands: (seen) => {
    const files = seen.has("-i") ? "write" : "read";
    return script_operand(seen) ? { first: [SCRIPT], rest: files } : { rest: files };
  },
  check: (matched, seen, operands) => {
    const [first, second] = operands;
    if (seen.has("-i") && script_operand(seen) && first?.literal === true && first.value === "" && second !== undefined) judge_script(second, matched);
  },
});

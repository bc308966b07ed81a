import { program_rule } from "../grammar/declarative.js";
import { Matched } from "../grammar/matched.js";
import type { ProgramRule, ValueKind } from "../grammar/types.js";
import { EXECUTING_VARIABLES, expanded_names } from "../environment.js";
import { BINARY_FILE_TESTS, SET_LETTERS, set_option_risk, shopt_risk, UNARY_FILE_TESTS } from "../shells.js";
import type { ShellWord } from "../types.js";
import { literal_word } from "../words.js";

/**
 * The shell builtins (bash(1) 5.2, "Shell Builtin Commands"): moving between folders, variables and
 * options, reading input, tests and printing. Names given to builtins that take variable names are
 * checked: a subscript (`a[$(id)]`) is evaluated as arithmetic, which runs the substitutions in it.
 * Listing every variable (`set`, `declare -p`, `export -p` …) is an environment dump and asks.
 */

const bash = (builtin: string): string => `bash(1), GNU Bash 5.2: ${builtin}`;
const DUMP = "prints every variable with its value, and the environment may still hold the user's secrets";

/** A rule read by hand, for the builtins whose words are not getopt options (`echo -x` prints `-x`). */
function by_hand(rule: string, names: readonly string[], read: (args: readonly ShellWord[], matched: Matched) => void): ProgramRule {
  return {
    names,
    match: (args) => {
      const matched = new Matched(rule, bash(rule));
      matched.categories.add("read_only");
      read(args, matched);
      return matched;
    },
  };
}

const NAME = /^[A-Za-z_]\w*$/;

/** A word a builtin takes as a variable name: plain, or with a numeric subscript; anything else can run code. */
function variable_name(word: ShellWord, via: string, matched: Matched): void {
  if (!word.literal) matched.ask(`${via} takes a variable name, and ${word.value} is only known at run time (a name like a[$(cmd)] runs cmd)`);
  else if (!/^[A-Za-z_]\w*(\[\d+\])?$/.test(word.value))
    matched.ask(`${via} ${word.value} is not a plain variable name: its subscript is evaluated as arithmetic, which runs the substitutions in it`);
}

const name_kind = (via: string): ValueKind => ({ judge: (word, matched) => variable_name(word, via, matched) });

/** `NAME`, `NAME=value`, `NAME+=value`, `NAME[i]=value` as `export`, `declare` and their kin take them. */
function assignment_operand(word: ShellWord, via: string, matched: Matched, nameref: boolean): void {
  const [, name, subscript, equals] = /^([A-Za-z_]\w*)(\[[^\]]*\])?(\+?=)?/s.exec(word.value) ?? [];
  if (name === undefined || (equals === undefined && !word.literal)) {
    variable_name(word, via, matched);
    return;
  }
  if (subscript !== undefined && !/^\[\d*\]$/.test(subscript))
    matched.ask(`${via} ${word.value}: the subscript is evaluated as arithmetic, which runs the substitutions in it`);
  if (equals !== undefined && EXECUTING_VARIABLES.test(name)) matched.ask(`${via} sets ${name}, which changes what the next program runs`);
  const value = word.value.slice(word.value.indexOf("=") + 1);
  if (nameref && equals !== undefined && !(word.literal && NAME.test(value)))
    matched.ask(`${via} -n makes ${name} a reference to ${value}, a name whose subscript runs code when evaluated`);
}

/** Leading `-abc` / `+abc` option words, each letter one of `letters`; the rest are operands. */
function attribute_options(args: readonly ShellWord[], letters: string, via: string, matched: Matched): { seen: Set<string>; operands: ShellWord[] } {
  const seen = new Set<string>();
  let index = 0;
  for (; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const word = args[index]!;
    if (!word.literal || !/^[-+]./.test(word.value)) break;
    if (word.value === "--") {
      index += 1;
      break;
    }
    for (const letter of word.value.slice(1)) {
      if (letters.includes(letter)) seen.add(letter);
      else matched.ask(`${via} ${word.value.charAt(0)}${letter} is not an option this analyzer knows`);
    }
  }
  return { seen, operands: args.slice(index) };
}

/**
 * `declare [-aAfFgiIlnrtux] [-p] [name[=value] …]` (and typeset, local, readonly, export): attributes and
 * assignments. With no names (or `-p` alone) they print every variable: a dump.
 */
function declaration(rule: string, names: readonly string[], letters: string): ProgramRule {
  return by_hand(rule, names, (args, matched) => {
    const { seen, operands } = attribute_options(args, letters, rule, matched);
    const functions = seen.has("f") || seen.has("F");
    if (operands.length === 0 && !functions) matched.ask(`${rule}${seen.size > 0 ? ` -${[...seen].join("")}` : ""} ${DUMP}`, "credential_sensitive");
    for (const word of operands) {
      if (functions) continue;
      assignment_operand(word, rule, matched, seen.has("n"));
      const name = /^[A-Za-z_]\w*/.exec(word.value)?.[0];
      if (name !== undefined && !seen.has("p")) matched.assigned.push(name);
      if (seen.has("p") && name !== undefined) matched.shown.push({ name, via: `${rule} -p` });
    }
  });
}

/** Values of echo and printf that expand variables: what they print may be a variable of the environment. */
function printed(args: readonly ShellWord[], via: string, matched: Matched): void {
  for (const word of args) if (!word.literal) for (const name of expanded_names(word.value)) matched.shown.push({ name, via });
}

/** After these, a test operator is unary: at the start, after `!`, `(`, and the `-a`/`-o` connectives. */
const UNARY_POSITION = new Set(["!", "(", "-a", "-o"]);

/** `test EXPR` / `[ EXPR ]`: the operands of file tests are paths read (their metadata), the rest text. */
function test_expression(args: readonly ShellWord[], matched: Matched): void {
  for (let index = 0; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const word = args[index]!;
    const next = args[index + 1];
    const unary = index === 0 || UNARY_POSITION.has(args[index - 1]?.value ?? "");
    if (next !== undefined && BINARY_FILE_TESTS.has(next.value) && args[index + 2] !== undefined) {
      matched.read(word);
      // biome-ignore lint/style/noNonNullAssertion: checked just above
      matched.read(args[index + 2]!);
      index += 2;
    } else if (unary && word.literal && UNARY_FILE_TESTS.has(word.value) && next !== undefined) {
      matched.read(next);
      index += 1;
    } else if (unary && word.literal && word.value === "-v" && next !== undefined) {
      variable_name(next, "test -v", matched);
      index += 1;
    }
  }
}

/** `set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [argument …]`, and the same with `+`. */
function set_words(args: readonly ShellWord[], matched: Matched): void {
  if (args.length === 0) matched.ask(`set with no arguments ${DUMP}, and every function`, "credential_sensitive");
  for (let index = 0; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const word = args[index]!;
    if (!word.literal) {
      matched.ask(`set ${word.value} is only known at run time, and may be an option`);
      return;
    }
    if (word.value === "--" || word.value === "-" || !/^[-+]./.test(word.value)) return;
    for (const letter of word.value.slice(1)) {
      const name = letter === "o" ? args[index + 1] : undefined;
      if (letter === "o") index += 1;
      const option = letter === "o" ? name?.value : SET_LETTERS.get(letter);
      // `set -o` and `set +o` alone list the options
      if (letter === "o" && name === undefined) continue;
      const risk = option === undefined ? `-${letter} is not a set option this analyzer knows` : set_option_risk(option);
      if (risk !== undefined) matched.ask(`set ${word.value.charAt(0)}${letter === "o" ? `o ${option ?? ""}` : letter}: ${risk}`);
    }
  }
}

/** `shopt [-pqsu] [-o] [optname …]`: setting or unsetting an option that changes what later commands run asks. */
function shopt_words(args: readonly ShellWord[], matched: Matched): void {
  const { seen, operands } = attribute_options(args, "pqsuo", "shopt", matched);
  const changes = seen.has("s") || seen.has("u");
  for (const word of operands) {
    if (!word.literal) matched.ask(`shopt ${word.value} is only known at run time`);
    else if (changes) {
      const risk = seen.has("o") ? set_option_risk(word.value) : shopt_risk(word.value, seen.has("s"));
      if (risk !== undefined) matched.ask(`shopt -${seen.has("s") ? "s" : "u"} ${word.value} ${risk}`);
    }
  }
}

/** `alias [-p] [name[=value] …]`: a definition's value is code (it runs when aliases expand), analysed for what it runs. */
function alias_words(args: readonly ShellWord[], matched: Matched): void {
  for (const word of args) {
    const equals = word.value.indexOf("=");
    if (word.literal && word.value === "-p") continue;
    if (equals <= 0) continue;
    const via = `alias ${word.value.slice(0, equals)}`;
    if (word.literal) matched.code.push({ word: literal_word(word.value.slice(equals + 1)), via });
    else matched.ask(`${via} is code only known at run time`);
  }
}

/** `pushd [-n] [+N | -N | dir]`, `popd [-n] [+N | -N]`, `dirs [-clpv] [+N | -N]`: the folder stack. */
function stack_words(rule: string, flags: string, folder: boolean): (args: readonly ShellWord[], matched: Matched) => void {
  return (args, matched) => {
    for (const word of args) {
      if (word.literal && /^[+-]\d+$/.test(word.value)) continue;
      if (word.literal && /^-./.test(word.value)) {
        for (const letter of word.value.slice(1)) if (!flags.includes(letter)) matched.ask(`${rule} -${letter} is not an option this analyzer knows`);
      } else if (folder) matched.read(word);
      else matched.ask(`${rule} takes no operand ${word.value}`);
    }
  };
}

const NUMBER_OPERAND = { first: ["number"] } as const;

export const BUILTIN_RULES: readonly ProgramRule[] = [
  // cd [-L|[-P [-e]] [-@]] [directory]; no directory goes to $HOME, `-` back to $OLDPWD
  program_rule({
    rule: "cd",
    manual: bash("cd"),
    category: "read_only",
    options: { "-L": {}, "-P": {}, "-e": {}, "-@": {} },
    operands: { first: ["folder"] },
    check: (matched, _seen, operands) => {
      if (operands.length === 0) matched.read(literal_word("~"));
      if (operands[0]?.literal === true && operands[0].value === "-") matched.ask("cd - goes back to $OLDPWD, a folder only known at run time");
    },
  }),
  // pushd [-n] [+N | -N | dir]; popd [-n] [+N | -N]; dirs [-clpv] [+N | -N]
  by_hand("pushd", ["pushd"], stack_words("pushd", "n", true)),
  by_hand("popd", ["popd"], stack_words("popd", "n", false)),
  by_hand("dirs", ["dirs"], stack_words("dirs", "clpv", false)),
  // export [-fn] [-p] [name[=value]]; declare/typeset [-aAfFgiIlnrtux] [-p] [name[=value] …]; local; readonly [-aAf] [-p]
  declaration("export", ["export"], "fnp"),
  declaration("declare", ["declare", "typeset"], "aAfFgiIlnrtuxp"),
  declaration("local", ["local"], "aAfFiIlnprtux"),
  declaration("readonly", ["readonly"], "aAfp"),
  // set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [argument …]
  by_hand("set", ["set"], set_words),
  // shopt [-pqsu] [-o] [optname …]
  by_hand("shopt", ["shopt"], shopt_words),
  // unset [-fnv] [name …]
  program_rule({
    rule: "unset",
    manual: bash("unset"),
    category: "read_only",
    options: { "-f": {}, "-n": {}, "-v": {} },
    operands: (seen) => ({ rest: seen.has("-f") ? "text" : name_kind("unset") }),
  }),
  // read [-ers] [-a aname] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name …]
  program_rule({
    rule: "read",
    manual: bash("read"),
    category: "read_only",
    options: {
      "-a": { value: name_kind("read -a") },
      "-d": { value: "text" },
      "-e": {},
      "-i": { value: "text" },
      "-n": { value: "number" },
      "-N": { value: "number" },
      "-p": { value: "text" },
      "-r": {},
      "-s": {},
      "-t": { value: "number" },
      "-u": { value: "number" },
    },
    operands: { rest: name_kind("read") },
  }),
  // mapfile [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]
  program_rule(
    {
      rule: "mapfile",
      manual: bash("mapfile"),
      category: "read_only",
      options: {
        "-d": { value: "text" },
        "-n": { value: "number" },
        "-O": { value: "number" },
        "-s": { value: "number" },
        "-t": {},
        "-u": { value: "number" },
        "-C": { value: "command" },
        "-c": { value: "number" },
      },
      operands: { first: [name_kind("mapfile")] },
    },
    ["mapfile", "readarray"],
  ),
  // getopts optstring name [arg …]
  program_rule({ rule: "getopts", manual: bash("getopts"), category: "read_only", operands: { first: ["text", name_kind("getopts")], rest: "text" } }),
  // wait [-fn] [-p varname] [id …]
  program_rule({
    rule: "wait",
    manual: bash("wait"),
    category: "read_only",
    options: { "-f": {}, "-n": {}, "-p": { value: name_kind("wait -p") } },
    operands: { rest: "text" },
  }),
  // let expression [expression …]: arithmetic, where a subscript's substitutions run
  by_hand("let", ["let"], (args, matched) => {
    for (const word of args)
      if (word.literal && /\$\(|`|\$\{/.test(word.value)) matched.ask(`let ${word.value} evaluates arithmetic whose substitutions run commands`);
  }),
  // shift [n]; exit [n]; return [n]; break [n]; continue [n]
  ...["shift", "exit", "return", "break", "continue"].map((name) =>
    program_rule({ rule: name, manual: bash(name), category: "read_only", operands: NUMBER_OPERAND }),
  ),
  // : [arguments]; true; false: the arguments are expanded and ignored
  by_hand(":", [":"], () => undefined),
  by_hand("true", ["true", "false"], () => undefined),
  // echo [-neE] [arg …]: any other word, dashes and all, is printed
  by_hand("echo", ["echo"], (args, matched) => printed(args, "echo", matched)),
  // printf [-v var] format [arguments]
  by_hand("printf", ["printf"], (args, matched) => {
    if (args[0]?.literal === true && args[0].value === "-v" && args[1] !== undefined) {
      variable_name(args[1], "printf -v", matched);
      printed(args.slice(2), "printf", matched);
    } else printed(args, "printf", matched);
  }),
  // test expr; [ expr ]
  by_hand("test", ["test"], test_expression),
  by_hand("[", ["["], (args, matched) => test_expression(args.at(-1)?.value === "]" ? args.slice(0, -1) : args, matched)),
  // umask [-p] [-S] [mode]
  program_rule({ rule: "umask", manual: bash("umask"), category: "read_only", options: { "-p": {}, "-S": {} }, operands: { first: ["text"] } }),
  // hash [-r] [-p filename] [-dt] [name]
  program_rule({
    rule: "hash",
    manual: bash("hash"),
    category: "read_only",
    options: { "-r": {}, "-p": { value: "text", ask: "makes the name run the program at that path, whatever PATH says" }, "-d": {}, "-t": {}, "-l": {} },
    operands: { rest: "text" },
  }),
  // type [-afptP] [name …]
  program_rule({
    rule: "type",
    manual: bash("type"),
    category: "read_only",
    options: { "-a": {}, "-f": {}, "-p": {}, "-t": {}, "-P": {} },
    operands: { rest: "text" },
  }),
  // command -v|-V [-p] name …: only looks the names up (without -v/-V it runs a command, as a wrapper)
  program_rule({
    rule: "command",
    manual: bash("command"),
    category: "read_only",
    options: { "-p": {}, "-v": {}, "-V": {} },
    operands: { rest: "text" },
    check: (matched, seen) => {
      if (!seen.has("-v") && !seen.has("-V")) matched.ask("command runs a command this analyzer did not find");
    },
  }),
  // alias [-p] [name[=value] …]
  by_hand("alias", ["alias"], alias_words),
  // jobs [-lnprs] [jobspec …]; jobs -x command [arguments]
  program_rule({
    rule: "jobs",
    manual: bash("jobs"),
    category: "read_only",
    options: { "-l": {}, "-n": {}, "-p": {}, "-r": {}, "-s": {}, "-x": { ask: "runs a command" } },
    operands: { rest: "text" },
  }),
  // times
  program_rule({ rule: "times", manual: bash("times"), category: "read_only" }),
  // pwd [-LP]
  program_rule({ rule: "pwd", manual: bash("pwd"), category: "read_only", options: { "-L": {}, "-P": {} } }),
  // ulimit [-HS] [-bcdefiklmnpqrstuvxPRT] [limit]; ulimit -a
  program_rule({
    rule: "ulimit",
    manual: bash("ulimit"),
    category: "read_only",
    options: Object.fromEntries([..."HSabcdefiklmnpqrstuvxPRT"].map((letter) => [`-${letter}`, {}])),
    operands: { first: ["text"] },
  }),
  // unalias [-a] [name …]
  program_rule({ rule: "unalias", manual: bash("unalias"), category: "read_only", options: { "-a": {} }, operands: { rest: "text" } }),
  // help [-dms] [pattern …]
  program_rule({ rule: "help", manual: bash("help"), category: "read_only", options: { "-d": {}, "-m": {}, "-s": {} }, operands: { rest: "text" } }),
];

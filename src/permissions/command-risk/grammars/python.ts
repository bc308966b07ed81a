import { program_rule } from "../grammar/declarative.js";
import { Matched } from "../grammar/matched.js";
import type { OptionSpec, ProgramRule, ProgramSpec, ValueKind } from "../grammar/types.js";
import type { ShellWord } from "../types.js";
import { literal_word } from "../words.js";
import { address_kind, categorize, judge_script, listening, served_folder_kind } from "./runtime-values.js";
import { flags } from "./common.js";

const PYTHON_MANUAL = "python(1), CPython 3.12 command line and environment (docs.python.org/3.12/using/cmdline.html)";
const LIBRARY_MANUAL = "The Python 3.12 standard library (docs.python.org/3.12/library)";

/** CPython's one-letter flags that take no value; `i` also reads code from standard input after the script. */
const PYTHON_FLAGS = new Set("bBdEiIOPqsSuvVxh?");
const INFO_FLAGS = new Set("Vh?");
const PYTHON_LONG_INFO = new Set(["--version", "--help", "--help-env", "--help-xoptions", "--help-all"]);
/** `-X` options of CPython 3.12 that only change diagnostics or runtime tuning. */
const X_OPTIONS = new Set([
  "importtime",
  "dev",
  "faulthandler",
  "showrefcount",
  "tracemalloc",
  "warn_default_encoding",
  "no_debug_ranges",
  "perf",
  "utf8",
  "utf8=0",
  "utf8=1",
  "frozen_modules=on",
  "frozen_modules=off",
]);
const X_NUMBERED = /^(tracemalloc|int_max_str_digits)=\d+$/;

/**
 * A warning filter, `action:message:category:module:lineno` (python -W, pytest -W): a category with a dot names
 * a class in a module, which Python imports to resolve it.
 */
export function judge_warning_filter(word: ShellWord, matched: Matched): void {
  const category = word.value.split(":")[2] ?? "";
  if (!word.literal || category.includes(".")) matched.ask(`the warning filter ${word.value} imports the module of its category, which runs it`);
}

function judge_x_option(word: ShellWord, matched: Matched): void {
  if (word.literal && word.value.startsWith("pycache_prefix=")) matched.write(literal_word(word.value.slice("pycache_prefix=".length)));
  else if (!word.literal || !(X_OPTIONS.has(word.value) || X_NUMBERED.test(word.value)))
    matched.ask(`python -X ${word.value} is not an -X option this analyzer knows`);
}

/** `python -m http.server`: binds every interface unless `--bind` says otherwise, and serves the current folder. */
const HTTP_SERVER: ProgramSpec = {
  rule: "python -m http.server",
  manual: `${LIBRARY_MANUAL}: http.server`,
  category: "read_only",
  options: {
    "-h|--help": {},
    "--cgi": { ask: "runs the CGI scripts under cgi-bin/ for whoever connects" },
    "-b|--bind": { value: address_kind("python -m http.server --bind", true) },
    "-d|--directory": { value: served_folder_kind("python -m http.server --directory") },
    "-p|--protocol": { value: "text" },
  },
  operands: { first: ["number"] },
  check: (matched, seen) => {
    if (!seen.has("-b") && !seen.has("-h")) listening(undefined, "python -m http.server", matched, true);
  },
};

/** A test `python -m unittest` loads: a file path is a script; a dotted name, a test module of the project. */
const TEST_NAME: ValueKind = {
  judge: (word, matched) => {
    if (word.literal && (word.value.includes("/") || word.value.endsWith(".py"))) judge_script(word, "python -m unittest", matched);
    else if (!word.literal || !/^tests?([._]|$)/.test(word.value))
      matched.ask(`python -m unittest ${word.value} imports the module ${word.value}, which this analyzer does not know`);
  },
};

const UNITTEST_OPTIONS: Record<string, OptionSpec> = {
  ...flags("-h|--help", "-v|--verbose", "-q|--quiet", "--locals", "-f|--failfast", "-c|--catch", "-b|--buffer"),
  "-k": { value: "text" },
  "--durations": { value: "number" },
};

/** The standard-library modules `python -m` runs that air has a grammar for. */
const MODULES: Readonly<Record<string, ProgramRule>> = {
  "http.server": program_rule(HTTP_SERVER),
  // `python -m unittest [options] [tests...]`, `python -m unittest discover [-s START] [-p PATTERN] [-t TOP]`
  unittest: program_rule({
    rule: "python -m unittest",
    manual: `${LIBRARY_MANUAL}: unittest`,
    category: "test",
    options: UNITTEST_OPTIONS,
    operands: { rest: TEST_NAME },
    subcommands: {
      discover: {
        rule: "python -m unittest discover",
        manual: `${LIBRARY_MANUAL}: unittest`,
        category: "test",
        options: {
          ...UNITTEST_OPTIONS,
          "-s|--start-directory": { value: "script" },
          "-p|--pattern": { value: "text" },
          "-t|--top-level-directory": { value: "folder" },
        },
        operands: { first: ["script", "text", "folder"] },
      },
    },
  }),
  // `python -m venv [options] ENV_DIR...`: writes the environment folders (--clear empties them first)
  venv: program_rule({
    rule: "python -m venv",
    manual: `${LIBRARY_MANUAL}: venv`,
    category: "build",
    options: {
      ...flags("-h|--help", "--system-site-packages", "--symlinks", "--copies", "--clear", "--upgrade", "--without-pip", "--without-scm-ignore-files"),
      "--prompt": { value: "text" },
      "--upgrade-deps": { category: "network" },
    },
    operands: (seen) => ({ rest: seen.has("--clear") ? "delete" : "write" }),
  }),
  // `python -m py_compile [-q] [FILE...]`: byte-compiles each file into the __pycache__ beside it
  py_compile: program_rule({
    rule: "python -m py_compile",
    manual: `${LIBRARY_MANUAL}: py_compile`,
    category: "build",
    options: flags("-h|--help", "-q|--quiet"),
    operands: { rest: "read" },
  }),
  // `python -m compileall [options] [FILE|DIR...]`; with no operand it compiles every folder of sys.path
  compileall: program_rule({
    rule: "python -m compileall",
    manual: `${LIBRARY_MANUAL}: compileall`,
    category: "build",
    options: {
      ...flags("-h|--help", "-l", "-f", "-q", "-b", "--hardlink-dupes"),
      "-r|-j|-o": { value: "number" },
      "-d|-s|-p|-x": { value: "text" },
      "-i": { value: "read" },
      "-e": { value: "folder" },
      "--invalidation-mode": { value: { one_of: ["checked-hash", "timestamp", "unchecked-hash"] } },
    },
    operands: { rest: "tree" },
    check: (matched, seen, operands) => {
      if (operands.length === 0 && !seen.has("-i") && !seen.has("-h"))
        matched.ask("python -m compileall with no folder compiles every folder on sys.path, outside the project");
    },
  }),
  // `python -m json.tool [options] [infile [outfile]]`
  "json.tool": program_rule({
    rule: "python -m json.tool",
    manual: `${LIBRARY_MANUAL}: json.tool`,
    category: "read_only",
    options: {
      ...flags("-h|--help", "--sort-keys", "--no-ensure-ascii", "--json-lines", "--tab", "--no-indent", "--compact"),
      "--indent": { value: "number" },
    },
    operands: { first: ["read", "write"] },
  }),
};

/** Modules run as their command-line program, whose grammar judges them (`python -m pytest` is `pytest`). */
const MODULE_PROGRAMS: Readonly<Record<string, string>> = {
  pytest: "pytest",
  pip: "pip",
  mypy: "mypy",
  ruff: "ruff",
  black: "black",
  flake8: "flake8",
  pylint: "pylint",
};

/** `python -m MODULE [args]`: a module with a grammar is judged by it; any other may be anything installed. */
function run_module(module: ShellWord | undefined, args: readonly ShellWord[], matched: Matched): void {
  if (module === undefined) {
    matched.ask("python -m names no module");
    return;
  }
  matched.rule = `python -m ${module.value}`;
  const program = module.literal ? MODULE_PROGRAMS[module.value] : undefined;
  const rule = module.literal ? MODULES[module.value] : undefined;
  if (program !== undefined) matched.argv.push({ words: [literal_word(program), ...args], via: `python -m ${module.value}` });
  else if (rule !== undefined) {
    matched.categories.clear();
    matched.absorb(rule.match(args), true);
  } else matched.ask(`python -m ${module.value} runs the module ${module.value}, which this analyzer does not know (installed, or a file of the project)`);
}

/** The value of a one-letter option: the rest of its word, or the next word. */
type Taken = { readonly value: ShellWord | undefined; readonly next: number };
const value_of = (args: readonly ShellWord[], index: number, rest: string): Taken =>
  rest !== "" ? { value: literal_word(rest), next: index + 1 } : { value: args[index + 1], next: index + 2 };

/**
 * python(1): `python [option]... [-c cmd | -m mod | file | -] [arg]...`. One-letter options cluster (`-IBc`),
 * `-c` and `-m` end the options and take the rest of their word or the next one, `-W` and `-X` take a value.
 */
function match_python(args: readonly ShellWord[]): Matched {
  const matched = new Matched("python", PYTHON_MANUAL);
  matched.categories.add("build");
  let info = false;
  let index = 0;
  while (index < args.length) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const word = args[index]!;
    const text = word.value;
    if (!word.literal || text === "-" || !text.startsWith("-")) break;
    if (text === "--") {
      index += 1;
      break;
    }
    if (text.startsWith("--")) {
      if (text === "--check-hash-based-pycs") index += 1;
      else if (PYTHON_LONG_INFO.has(text)) info = true;
      else matched.ask(`python ${text} is not an option this analyzer knows`);
      index += 1;
      continue;
    }
    let next = index + 1;
    for (let at = 1; at < text.length; at += 1) {
      const flag = text.charAt(at);
      if (flag === "c" || flag === "m") {
        const taken = value_of(args, index, text.slice(at + 1));
        if (flag === "m") run_module(taken.value, args.slice(taken.next), matched);
        else {
          matched.rule = "python -c";
          matched.ask(`python -c runs ${taken.value?.value ?? "inline code"}, code this analyzer does not read`);
        }
        return matched;
      }
      if (flag === "W" || flag === "X") {
        const taken = value_of(args, index, text.slice(at + 1));
        if (taken.value !== undefined) (flag === "W" ? judge_warning_filter : judge_x_option)(taken.value, matched);
        next = taken.next;
        break;
      }
      if (!PYTHON_FLAGS.has(flag)) matched.ask(`python -${flag} is not an option this analyzer knows`);
      if (INFO_FLAGS.has(flag)) info = true;
      if (flag === "i") matched.stdin_code = true;
    }
    index = next;
  }
  const script = args[index];
  if (script !== undefined) judge_script(script, "python", matched);
  else if (info) categorize(matched, "build", "read_only");
  else matched.stdin_code = true;
  return matched;
}

export const PYTHON_RULES: readonly ProgramRule[] = [
  {
    names: ["python", "python3", "python2", "python3.9", "python3.10", "python3.11", "python3.12", "python3.13"],
    match: match_python,
  },
];

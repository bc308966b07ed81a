import { program_rule } from "../grammar/declarative.js";
import type { Matched } from "../grammar/matched.js";
import type { OptionSpec, ProgramRule, ProgramSpec, Seen } from "../grammar/types.js";
import type { ShellWord } from "../types.js";
import { literal_word } from "../words.js";
import { ARCHIVE_RULES } from "./archives.js";
import { ask_dynamic, INSTALL_TARGET, plain_value, script_file, under_folders, type VariableJudge, written_path } from "./build-common.js";
import { CMAKE_RULES } from "./cmake.js";
import { COMPILER_RULES, judge_compiler_flags } from "./compilers.js";
import { CPPCHECK_RULES } from "./cppcheck.js";

const MAKE_MANUAL = "make(1), GNU make 4.3";

/**
 * Variables a makefile runs as a program or a shell (GNU make 4.3, "Variables Used by Implicit Rules",
 * "Choosing the Shell", "Options/Recursion"): an override asks, and its value is analysed as a command line.
 */
const PROGRAM_VARIABLES =
  /^(SHELL|MAKESHELL|CC|CXX|CPP|FC|LD|AR|AS|RANLIB|STRIP|NM|OBJCOPY|OBJDUMP|INSTALL|INSTALL_PROGRAM|INSTALL_DATA|MAKE|RM|CP|MV|LN|MKDIR|PYTHON|PERL|.*_COMMAND|.*_PROGRAM)$/;
/** Variables that give make or its shell options, or more makefiles to read: asked about, but not command lines. */
const OPTION_VARIABLES = /^(\.SHELLFLAGS|MAKEFLAGS|MFLAGS|GNUMAKEFLAGS|MAKEFILES|MAKEOVERRIDES)$/;

/**
 * Command-line variables conventional makefiles only test or pass on (automake's and the GNU coding standards'
 * DESTDIR, prefix, CFLAGS …; kbuild's V and O): a switch, a build type, an install path (written), or compiler
 * flags that pass the compiler grammar. A makefile pastes them into recipes, so their values must be plain text.
 */
const MAKE_VARIABLES: Readonly<Record<string, VariableJudge>> = {
  V: plain_value(/^\d*$/, "a verbosity level"),
  VERBOSE: plain_value(/^\d*$/, "a verbosity level"),
  DEBUG: plain_value(/^\d*$/, "a debug level"),
  BUILD_TYPE: plain_value(/^[A-Za-z0-9_-]*$/, "a build type"),
  CONFIG: plain_value(/^[A-Za-z0-9_-]*$/, "a configuration name"),
  DESTDIR: written_path,
  PREFIX: written_path,
  prefix: written_path,
  BUILD_DIR: written_path,
  BUILDDIR: written_path,
  O: written_path,
  CFLAGS: judge_compiler_flags,
  CXXFLAGS: judge_compiler_flags,
  CPPFLAGS: judge_compiler_flags,
  LDFLAGS: judge_compiler_flags,
  LDLIBS: judge_compiler_flags,
};
/** Install paths that keep `make install` inside the project when they are. */
const INSTALL_ROOTS = new Set(["DESTDIR", "PREFIX", "prefix"]);

/** `NAME=value`, `NAME:=value`, `NAME ::= value`, `NAME+=value`, `NAME?=value`, `NAME!=command` (GNU make 4.3, "Flavors"). */
function make_assignment(text: string): { name: string; operator: string; value: string } | undefined {
  const equals = text.indexOf("=");
  if (equals === -1) return undefined;
  const head = text.slice(0, equals);
  const operator = /[:+?!]*$/.exec(head)?.[0] ?? "";
  return { name: head.slice(0, head.length - operator.length).trim(), operator: `${operator}=`, value: text.slice(equals + 1).trimStart() };
}

/** An operand of make: a target, or a variable override (which the makefile may run). */
function make_operand(word: ShellWord, matched: Matched): void {
  if (!word.literal) {
    matched.ask(`make ${word.value} is only known at run time, and may set a variable the makefile runs`);
    return;
  }
  const assignment = make_assignment(word.value);
  if (assignment === undefined) {
    if (/^(test|check)$/.test(word.value)) matched.categories.add("test");
    return;
  }
  const { name, operator, value } = assignment;
  const via = `make ${name}`;
  if (!/^\.?[A-Za-z0-9_]+$/.test(name)) matched.ask(`make ${word.value} sets a variable this analyzer cannot name`);
  else if (operator === "!=") {
    matched.ask(`${via} != runs ${value} in the shell`);
    matched.code.push({ word: literal_word(value), via });
  } else if (OPTION_VARIABLES.test(name)) matched.ask(`${via}=${value} gives make or its shell options or makefiles of the command's choosing`);
  else if (PROGRAM_VARIABLES.test(name)) {
    matched.ask(`${via}=${value} chooses a program or the shell the makefile runs`);
    matched.code.push({ word: literal_word(value), via });
  } else {
    const judge = MAKE_VARIABLES[name];
    if (judge === undefined) matched.ask(`${via}= is not a variable this analyzer knows; a makefile may run its value`);
    else judge(literal_word(value), matched, via);
  }
}

function make_check(matched: Matched, seen: Seen, operands: readonly ShellWord[]): void {
  const folders = seen.get("-C");
  for (const makefile of seen.get("-f") ?? []) for (const word of under_folders(makefile, folders)) matched.scripts.push(word);
  for (const include of seen.get("-I") ?? []) for (const word of under_folders(include, folders)) matched.read(word);
  const assigned = operands.map((word) => make_assignment(word.value)?.name);
  const rooted = assigned.some((name) => name !== undefined && INSTALL_ROOTS.has(name));
  const install = operands.find((word, index) => assigned[index] === undefined && INSTALL_TARGET.test(word.value));
  if (install !== undefined && !rooted) matched.ask(`make ${install.value} installs wherever the makefile says, usually outside the project`);
}

// make(1): `make [OPTION]... [TARGET | NAME=VALUE]...`
const MAKE = program_rule({
  rule: "make",
  manual: MAKE_MANUAL,
  category: "build",
  options: {
    "-b|-m": {},
    "-B|--always-make": {},
    "-C|--directory": { value: "folder" },
    "-d": {},
    "--debug": { value: "text", optional_value: true },
    "-e|--environment-overrides": {},
    "-E|--eval": { value: "code" },
    "-f|--file|--makefile": { value: script_file("make -f") },
    "-h|--help": {},
    "-i|--ignore-errors": {},
    "-I|--include-dir": { value: "folder" },
    "-j|--jobs": { value: "number", optional_value: true },
    "-k|--keep-going": {},
    "-l|--load-average|--max-load": { value: "number", optional_value: true },
    "-L|--check-symlink-times": {},
    "-n|--just-print|--dry-run|--recon": {},
    "-o|--old-file|--assume-old": { value: "text" },
    "-O|--output-sync": { value: { one_of: ["none", "line", "target", "recurse"] }, optional_value: true },
    "-p|--print-data-base": { ask: "prints every variable, the environment's included, which may hold secrets" },
    "-q|--question": {},
    "-r|--no-builtin-rules": {},
    "-R|--no-builtin-variables": {},
    "-s|--silent|--quiet": {},
    "-S|--no-keep-going|--stop": {},
    "-t|--touch": {},
    "--trace": {},
    "-v|--version": {},
    "-w|--print-directory": {},
    "--no-print-directory": {},
    "-W|--what-if|--new-file|--assume-new": { value: "text" },
    "--warn-undefined-variables": {},
  },
  operands: { rest: { judge: make_operand } },
  check: make_check,
});

/** Ninja's options that take a value (`getopt` string "d:f:j:k:l:nt:vw:C:h", ninja 1.11 src/ninja.cc). */
const NINJA_VALUED = new Set(["d", "f", "j", "k", "l", "t", "w", "C"]);

/**
 * Ninja stops reading its options at `-t TOOL`: what follows is the tool's. Splits the arguments there
 * (`-t` may be attached, `-tclean`, or end a cluster, `-nt clean`).
 */
function ninja_tool(args: readonly ShellWord[]): { main: ShellWord[]; found: boolean; tool?: ShellWord; rest: ShellWord[] } {
  for (let index = 0; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const word = args[index]!;
    if (word.literal && word.value === "--") break;
    if (!word.literal || !/^-[^-]/.test(word.value)) continue;
    const letters = word.value.slice(1);
    for (let at = 0; at < letters.length; at += 1) {
      const letter = letters.charAt(at);
      if (letter === "t") {
        const attached = letters.slice(at + 1);
        const before = at > 0 ? [literal_word(`-${letters.slice(0, at)}`)] : [];
        const tool = attached !== "" ? literal_word(attached) : args[index + 1];
        const rest = args.slice(index + (attached !== "" ? 1 : 2));
        return { main: [...args.slice(0, index), ...before], found: true, ...(tool === undefined ? {} : { tool }), rest };
      }
      if (NINJA_VALUED.has(letter)) {
        if (at === letters.length - 1) index += 1;
        break;
      }
    }
  }
  return { main: [...args], found: false, rest: [] };
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

// ninja -t browse [--port=PORT] [--hostname=HOST] [--no-browser] [TARGET]: a Python HTTP server (misc/browse.py)
function browse_check(matched: Matched, seen: Seen): void {
  const host = seen.get("--hostname")?.at(-1)?.value ?? "localhost";
  if (LOOPBACK.has(host)) matched.ask(`ninja -t browse serves the build graph over HTTP on ${host}`, "network");
  else matched.deny(`ninja -t browse serves the build graph over HTTP on ${host || "every interface"}, reachable from other machines`, "network");
}

const tool = (name: string, options: Readonly<Record<string, OptionSpec>> = {}, operands = true): ProgramSpec => ({
  rule: `ninja -t ${name}`,
  manual: 'ninja(1), Ninja 1.11 manual, "Extra tools"',
  category: "build",
  options,
  operands: operands ? { rest: "text" } : {},
});

// ninja -t TOOL [TOOL OPTIONS] [ARGS]: the tools that only print the build graph or clean its outputs
const NINJA_TOOLS = program_rule({
  rule: "ninja -t",
  manual: 'ninja(1), Ninja 1.11 manual, "Extra tools"',
  category: "build",
  subcommands: {
    clean: tool("clean", { "-g": {}, "-r": {} }),
    cleandead: tool("cleandead", {}, false),
    commands: tool("commands", { "-s": {} }),
    compdb: tool("compdb", { "-x": {} }),
    deps: tool("deps"),
    graph: tool("graph"),
    inputs: tool("inputs"),
    list: tool("list", {}, false),
    missingdeps: tool("missingdeps"),
    query: tool("query"),
    recompact: tool("recompact", {}, false),
    restat: tool("restat"),
    rules: tool("rules", { "-d": {} }, false),
    targets: tool("targets"),
    browse: {
      ...tool("browse", { "--port|-p": { value: "number" }, "--hostname|-a": { value: "text" }, "--no-browser": {} }),
      category: "network",
      check: browse_check,
    },
  },
});

// ninja(1): `ninja [OPTION]... [TARGET]...` and `ninja [OPTION]... -t TOOL [ARG]...`
const NINJA_MAIN = program_rule({
  rule: "ninja",
  manual: "ninja(1), Ninja 1.11 manual",
  category: "build",
  options: {
    "--version": {},
    "-v|--verbose": {},
    "--quiet": {},
    "-C": { value: "folder" },
    "-f": { value: script_file("ninja -f") },
    "-j": { value: "number" },
    "-k": { value: "number" },
    "-l": { value: "number" },
    "-n": {},
    "-d": { value: { one_of: ["stats", "explain", "keepdepfile", "keeprsp", "list"] } },
    "-w": { value: { one_of: ["dupbuild=err", "dupbuild=warn", "phonycycle=err", "phonycycle=warn"] } },
    "-h|--help": {},
  },
  operands: { rest: "text" },
  check: (matched, seen, operands) => {
    for (const file of seen.get("-f") ?? []) for (const word of under_folders(file, seen.get("-C"))) matched.scripts.push(word);
    const install = operands.find((word) => INSTALL_TARGET.test(word.value));
    if (install !== undefined) matched.ask(`ninja ${install.value} installs wherever the build was configured to, usually outside the project`);
  },
});

const NINJA: ProgramRule = {
  names: ["ninja", "ninja-build"],
  match: (args) => {
    const { main, found, tool: chosen, rest } = ninja_tool(args);
    const matched = NINJA_MAIN.match(main);
    ask_dynamic(args, matched, "ninja");
    if (chosen === undefined) {
      if (found) matched.ask("ninja -t names no tool");
      return matched;
    }
    if (chosen.value === "msvc") {
      // ninja -t msvc [-e ENVFILE] [-o FILE] [-p STRING] -- COMMAND: runs COMMAND (with the environment of ENVFILE)
      matched.rule = "ninja -t msvc";
      matched.ask("ninja -t msvc runs the command after --");
      const dashes = rest.findIndex((word) => word.literal && word.value === "--");
      if (dashes !== -1 && dashes + 1 < rest.length) matched.argv.push({ words: rest.slice(dashes + 1), via: "ninja -t msvc" });
      return matched;
    }
    const used = NINJA_TOOLS.match([chosen, ...rest]);
    matched.absorb(used);
    matched.rule = used.rule;
    return matched;
  },
};

/** Build systems, compilers, linkers and archivers. */
export const BUILD_RULES: readonly ProgramRule[] = [MAKE, NINJA, ...CMAKE_RULES, ...COMPILER_RULES, ...CPPCHECK_RULES, ...ARCHIVE_RULES];

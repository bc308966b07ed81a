import { program_rule } from "../grammar/declarative.js";
import type { Matched } from "../grammar/matched.js";
import type { OptionSpec, ProgramRule, ProgramSpec, ValueKind } from "../grammar/types.js";
import type { ShellWord } from "../types.js";
import { literal_word } from "../words.js";
import { PLAIN_VALUE } from "./build-common.js";

/** A value judged by a pattern: anything else asks, naming what was expected. */
function matching(what: string, pattern: RegExp): ValueKind {
  return {
    judge: (word, matched) => {
      if (!word.literal || !pattern.test(word.value)) matched.ask(`${word.value} is not ${what} this analyzer knows`);
    },
  };
}

/** `-z KEYWORD`, given to the linker (GNU ld 2.41, "-z keyword"): the keywords that only harden or order the output. */
const Z_KEYWORDS = {
  one_of: ["now", "lazy", "relro", "norelro", "noexecstack", "defs", "origin", "text", "nodelete", "nodlopen", "separate-code", "noseparate-code"],
};
const read_not_response: ValueKind = {
  judge: (word, matched) => {
    if (word.literal && word.value.startsWith("@")) matched.ask(`${word.value} is a response file: options read from a file this analyzer does not see`);
    else matched.read(word);
  },
};

/**
 * Linker options that only choose libraries, search paths, sections and hardening (GNU ld 2.41, "Command-line
 * Options"; ld takes long options with one dash or two). Shared by `ld` and gcc's `-Wl,`; what loads code into
 * the linker (`-plugin`), rewrites calls (`--wrap`), reads a linker script (`-T`) or writes elsewhere (`-o`) is
 * not here.
 */
const LINKER_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  "-rpath|--rpath": { value: "text" },
  "-rpath-link|--rpath-link": { value: "read" },
  "--as-needed|-as-needed": {},
  "--no-as-needed|-no-as-needed": {},
  "--gc-sections|-gc-sections": {},
  "--no-gc-sections": {},
  "--print-gc-sections": {},
  "-z": { value: Z_KEYWORDS },
  "--no-undefined|-no-undefined": {},
  "--allow-shlib-undefined": {},
  "--no-allow-shlib-undefined": {},
  "-O": { value: "number", attached: true },
  "-s|--strip-all": {},
  "-S|--strip-debug": {},
  "--start-group|-(": {},
  "--end-group|-)": {},
  "--whole-archive": {},
  "--no-whole-archive": {},
  "-Bstatic|-dn|-non_shared": {},
  "-Bdynamic|-dy|-call_shared": {},
  "-Bsymbolic": {},
  "-Bsymbolic-functions": {},
  "-E|--export-dynamic": {},
  "--no-export-dynamic": {},
  "--build-id": { value: matching("a build-id style", /^(none|md5|sha1|uuid|fast|0x[0-9a-fA-F]+)$/), optional_value: true },
  "--hash-style": { value: { one_of: ["sysv", "gnu", "both"] } },
  "-soname|--soname|-h": { value: "text" },
  "--version-script": { value: "read" },
  "-Map|--Map": { value: "write" },
  "--icf": { value: { one_of: ["all", "safe", "none"] } },
  "--sort-common": {},
  "--warn-common": {},
  "--fatal-warnings": {},
  "--no-fatal-warnings": {},
  "--enable-new-dtags": {},
  "--disable-new-dtags": {},
  "--eh-frame-hdr": {},
  "--push-state": {},
  "--pop-state": {},
  "-L|--library-path": { value: "read", attached: true },
  "-l|--library": { value: "text", attached: true },
  "-u|--undefined": { value: "text" },
  "--defsym": { value: "text" },
  "--exclude-libs": { value: "text" },
  "-pie|--pie|-pic-executable": {},
  "-no-pie|--no-pie": {},
  "-shared|-Bshareable": {},
};

// gcc's `-Wl,OPTION,VALUE…`: the option words, split at the commas, as the linker reads them
const LINKER_FLAGS = program_rule({
  rule: "gcc -Wl",
  manual: "ld(1), GNU binutils 2.41",
  category: "build",
  style: "single_dash",
  options: LINKER_OPTIONS,
  operands: {},
});

const linker_flags: ValueKind = {
  judge: (word, matched) => matched.absorb(LINKER_FLAGS.match(word.value.split(",").map(literal_word))),
};

/** The assembler options `-Wa,` may pass: only the one that marks the stack non-executable. */
const assembler_flags = matching("an assembler option", /^--noexecstack$/);

/** `-f` options whose value is a path (GCC 13 "Instrumentation Options", Clang 17 "Profile Guided Optimization" …). */
const FEATURE_PATHS: Readonly<Record<string, "read" | "write">> = {
  "profile-generate": "write",
  "profile-instr-generate": "write",
  "cs-profile-generate": "write",
  "profile-dir": "write",
  "profile-note": "write",
  "profile-use": "read",
  "profile-instr-use": "read",
  "profile-sample-use": "read",
  "auto-profile": "read",
  "profile-list": "read",
  "sanitize-ignorelist": "read",
  "sanitize-blacklist": "read",
  "sanitize-coverage-allowlist": "read",
  "sanitize-coverage-ignorelist": "read",
  "crash-diagnostics-dir": "write",
  "modules-cache-path": "write",
  "module-output": "write",
  "module-map-file": "read",
  "prebuilt-module-path": "read",
  "time-trace": "write",
  "optimization-record-file": "write",
  "dump-final-insns": "write",
};
/** `-f` options with a value that names no file and runs nothing, though their names look like the path ones. */
const FEATURE_TEXT = new Set([
  "debug-prefix-map",
  "file-prefix-map",
  "macro-prefix-map",
  "profile-prefix-map",
  "profile-prefix-path",
  "coverage-prefix-map",
  "debug-compilation-dir",
  "coverage-compilation-dir",
  "file-compilation-dir",
  "profile-update",
  "sanitize-coverage",
  "save-optimization-record",
  "time-trace-granularity",
  "diagnostics-format",
]);

/**
 * `-fNAME` and `-fNAME=VALUE` (GCC 13 "Option Summary", Clang 17 "Command Line Argument Reference"): features
 * and diagnostics, whose values are names and numbers. A plugin (`-fplugin=`, `-fplugin-arg-…`, clang's
 * `-fpass-plugin=`) or a module mapper (`-fmodule-mapper=|program`) loads or runs code; an unknown option whose
 * name says it takes a path, or whose value looks like one, asks.
 */
function judge_feature(word: ShellWord, matched: Matched): void {
  const equals = word.value.indexOf("=");
  const name = equals === -1 ? word.value : word.value.slice(0, equals);
  const value = equals === -1 ? undefined : word.value.slice(equals + 1);
  if (/^(plugin|pass-plugin|module-mapper)/.test(name)) matched.ask(`-f${name} makes the compiler load or run another program`);
  else if (!word.literal || !/^[A-Za-z0-9][A-Za-z0-9+_.-]*$/.test(name)) matched.ask(`-f${word.value} is not a feature option this analyzer knows`);
  else if (value === undefined || FEATURE_TEXT.has(name)) return;
  else if (FEATURE_PATHS[name] === "read") matched.read(literal_word(value));
  else if (FEATURE_PATHS[name] === "write") matched.write(literal_word(value));
  else if (/profile|coverage|dump|record|trace|output|file|dir|path|list|mapper/.test(name))
    matched.ask(`-f${name}= takes a path this analyzer does not know what it does with`);
  else if (!/^[A-Za-z0-9_,+:=-][A-Za-z0-9_.,+:=-]*$/.test(value)) matched.ask(`-f${name}=${value} is not a value this analyzer reads`);
}

const ASK_PLUGIN = "passes an option to a part of the toolchain this analyzer does not check (it can load a plugin)";

/**
 * The driver options of gcc (GCC 13 manual, "GCC Command Options") and clang (Clang 17, "Command Line
 * Argument Reference"), one dash each (`-Wall`, `-std=c++17`, `-Isrc`, `-o out`). Options that make the driver
 * run another program (`-wrapper`, `-B`, `--prefix`, `-fuse-ld=PATH`, `--ld-path=`), read more options from a
 * file (`-specs=`, clang's `--config`, `@file`), load plugins (`-fplugin=`, `-Xclang -load`, `-mllvm`), or pass
 * options unchecked to other tools (`-Xlinker`, `-Xassembler`, `-Xpreprocessor`, `-Wp,`, `-Wa,` but one) ask.
 */
const COMPILER_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  "-c": {},
  "-S": {},
  "-E": {},
  "-o": { value: "write", attached: true },
  "-v|--verbose": {},
  "--version": {},
  "--help": {},
  "-###": {},
  "-pipe": {},
  "-x": { value: "text", attached: true },
  "-std=|--std=": { value: matching("a language standard", /^[a-z0-9+]+$/) },
  "-O": { value: matching("an optimisation level", /^([0-4]|s|z|g|fast)$/), attached: true, optional_value: true },
  "-g": { value: matching("a debug-information option", /^(no-)?[a-z0-9][a-z0-9=-]*$/), attached: true, optional_value: true },
  "-W": { value: matching("a warning option", /^[A-Za-z0-9_+=.-]*$/), attached: true, optional_value: true },
  "-w": {},
  "-pedantic|--pedantic": {},
  "-pedantic-errors": {},
  "-ansi": {},
  "-f": { value: { judge: judge_feature }, attached: true, optional_value: true },
  "-fuse-ld": { value: { one_of: ["bfd", "gold", "lld", "mold"] } },
  "-m": { value: matching("a target option", /^[A-Za-z0-9][A-Za-z0-9_.,=+-]*$/), attached: true, optional_value: true },
  "-D": { value: "text", attached: true },
  "-U": { value: "text", attached: true },
  "-I": { value: "read", attached: true },
  "-isystem": { value: "read", attached: true },
  "-iquote": { value: "read", attached: true },
  "-idirafter": { value: "read", attached: true },
  "-isysroot": { value: "read", attached: true },
  "--sysroot": { value: "read" },
  "-include": { value: "read" },
  "-include-pch": { value: "read" },
  "-imacros": { value: "read" },
  "-L": { value: "read", attached: true },
  "-l": { value: "text", attached: true },
  "-shared|--shared": {},
  "-static|--static": {},
  "-static-pie": {},
  "-static-libgcc": {},
  "-static-libstdc++": {},
  "-shared-libgcc": {},
  "-pthread": {},
  "-pie": {},
  "-no-pie": {},
  "-rdynamic": {},
  "-r": {},
  "-s": {},
  "-nostdlib": {},
  "-nostdlib++": {},
  "-nostdinc": {},
  "-nostdinc++": {},
  "-nodefaultlibs": {},
  "-nostartfiles": {},
  "-nolibc": {},
  "-M": {},
  "-MM": {},
  "-MD": {},
  "-MMD": {},
  "-MP": {},
  "-MG": {},
  "-MF": { value: "write", attached: true },
  "-MJ": { value: "write", attached: true },
  "-MT": { value: "text", attached: true },
  "-MQ": { value: "text", attached: true },
  "-C": {},
  "-CC": {},
  "-P": {},
  "-H": {},
  "-dM": {},
  "-dD": {},
  "-dN": {},
  "-dI": {},
  "-dU": {},
  "-undef": {},
  "-trigraphs": {},
  "-traditional-cpp": {},
  "-p": {},
  "-pg": {},
  "--coverage": {},
  "-time": {},
  "-save-temps|--save-temps": { value: { one_of: ["cwd", "obj"] }, optional_value: true },
  "-print-|--print-": { value: "text", attached: true, optional_value: true },
  "-dumpversion": {},
  "-dumpfullversion": {},
  "-dumpmachine": {},
  "-dumpspecs": {},
  "-dumpdir": { value: "write" },
  "-dumpbase": { value: "text" },
  "-dumpbase-ext": { value: "text" },
  "--param": { value: "text" },
  "-z": { value: Z_KEYWORDS },
  "-u": { value: "text" },
  "-Wl,": { value: linker_flags, attached: true, optional_value: true },
  "-Wa,": { value: assembler_flags, attached: true, optional_value: true },
  "-Wp,": { value: "text", attached: true, optional_value: true, ask: "passes options to the preprocessor (-Wp,-MD,FILE writes FILE)" },
  "-Xlinker": { value: "text", ask: ASK_PLUGIN },
  "-Xassembler": { value: "text", ask: ASK_PLUGIN },
  "-Xpreprocessor": { value: "text", ask: ASK_PLUGIN },
  "-wrapper": { value: "text", ask: "runs a program around every compilation step" },
  "-B|--prefix": { value: "text", attached: true, ask: "makes the driver run the compiler, assembler and linker programs it finds there" },
  "-specs|--specs": { value: "text", ask: "reads a specs file, which can make the driver run any program" },
  "-T": { value: "text", attached: true, ask: "links with a linker script this analyzer does not read" },
  "--ld-path": { value: "text", ask: "links with a program of the command's choosing" },
  // clang
  "-Xclang": { value: "text", ask: ASK_PLUGIN },
  "-Xanalyzer": { value: "text", ask: ASK_PLUGIN },
  "-mllvm": { value: "text", ask: ASK_PLUGIN },
  "-cc1|-cc1as": { ask: "runs the compiler front end directly, with options the driver does not check" },
  "--config": { value: "text", ask: "reads options from a configuration file" },
  "--no-default-config": {},
  "--gcc-toolchain|-gcc-toolchain|--gcc-install-dir": { value: "text", ask: "makes the driver use the programs of another toolchain" },
  "-ccc-": { value: "text", attached: true, ask: "changes how the driver finds and runs its programs" },
  "--analyze": { category: "static_analysis" },
  "-emit-llvm": {},
  "-integrated-as": {},
  "-no-integrated-as": {},
  "-Qunused-arguments": {},
  "-resource-dir": { value: "read" },
  "-target|--target": { value: "text" },
  "-arch": { value: "text" },
  "-framework": { value: "text" },
  "-F": { value: "read", attached: true },
  "-stdlib|--stdlib": { value: { one_of: ["libc++", "libstdc++", "platform"] } },
  "-rtlib|--rtlib": { value: { one_of: ["libgcc", "compiler-rt", "platform"] } },
  "-unwindlib|--unwindlib": { value: { one_of: ["libgcc", "libunwind", "platform", "none"] } },
};

const compiler = (rule: string, manual: string): ProgramSpec => ({
  rule,
  manual,
  category: "build",
  style: "single_dash",
  options: COMPILER_OPTIONS,
  operands: { rest: read_not_response },
});

// The flags a make or cmake variable passes to the compiler (CFLAGS, CMAKE_CXX_FLAGS): options only
const COMPILER_FLAGS = program_rule({ ...compiler("compiler flags", "gcc(1), GCC 13"), operands: {} });

/**
 * A variable's value that a build tool splits into compiler flags and pastes into its recipes: plain text
 * (no expansion, quote or command separator) whose every flag passes the compiler grammar.
 */
export function judge_compiler_flags(value: ShellWord, matched: Matched, via: string): void {
  if (!value.literal || !PLAIN_VALUE.test(value.value)) {
    matched.ask(`${via}=${value.value} is not a list of plain compiler flags`);
    return;
  }
  const flags = value.value.split(" ").filter((flag) => flag !== "");
  matched.absorb(COMPILER_FLAGS.match(flags.map(literal_word)));
}

const versions = (name: string, from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, index) => `${name}-${from + index}`);

/**
 * A compiler driver's rule. GCC's driver gives `--` no meaning (the options after it are still options), so a
 * `--` asks rather than letting the grammar read what follows as files.
 */
function driver(spec: ProgramSpec, names: readonly string[]): ProgramRule {
  const rule = program_rule(spec, names);
  return {
    names,
    match: (args) => {
      const matched = rule.match(args);
      if (args.some((word) => word.literal && word.value === "--")) matched.ask(`${spec.rule} does not end its options at --`);
      return matched;
    },
  };
}

/**
 * ld(1): `ld [OPTION]... OBJFILE...` (GNU binutils 2.41). Linker scripts (`-T`) are read: they lay out the
 * output and cannot run programs; plugins and symbol wrapping ask.
 */
const LD = program_rule(
  {
    rule: "ld",
    manual: "ld(1), GNU binutils 2.41",
    category: "build",
    style: "single_dash",
    options: {
      ...LINKER_OPTIONS,
      "-o|--output": { value: "write", attached: true },
      "-T|--script": { value: "read", attached: true },
      "-plugin|--plugin": { value: "text", ask: "loads a plugin into the linker" },
      "-plugin-opt|--plugin-opt": { value: "text", ask: "passes an option to a linker plugin" },
      "--wrap|-wrap": { value: "text", ask: "redirects every call of a symbol to another function" },
      "-e|--entry": { value: "text" },
      "-m": { value: "text", attached: true },
      "-dynamic-linker|--dynamic-linker|-I": { value: "text" },
      "-r|-i|--relocatable": {},
      "-x|--discard-all": {},
      "-X|--discard-locals": {},
      "-M|--print-map": {},
      "-v|-V|--version": {},
      "--verbose": {},
      "--help": {},
      "-static": {},
    },
    operands: { rest: read_not_response },
  },
  ["ld", "ld.bfd", "ld.gold"],
);

/** C and C++ compilers, and the linker (their drivers share the option grammar of COMPILER_OPTIONS). */
export const COMPILER_RULES: readonly ProgramRule[] = [
  // gcc(1): `gcc [OPTION]... FILE...`; `cc`/`c++` are GCC's on the systems air runs on
  driver(compiler("gcc", "gcc(1), GCC 13"), ["gcc", "g++", "cc", "c++", ...versions("gcc", 9, 14), ...versions("g++", 9, 14)]),
  // clang(1): `clang [OPTION]... FILE...`
  driver(compiler("clang", "clang(1), Clang 17"), ["clang", "clang++", ...versions("clang", 14, 19), ...versions("clang++", 14, 19)]),
  LD,
];

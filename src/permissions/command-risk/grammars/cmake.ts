import { judge_value, program_rule } from "../grammar/declarative.js";
import { Matched } from "../grammar/matched.js";
import type { Operands, ProgramRule, ProgramSpec, Seen } from "../grammar/types.js";
import type { ShellWord } from "../types.js";
import { literal_word } from "../words.js";
import { ask_dynamic, INSTALL_TARGET, plain_value, script_file, type VariableJudge, written_path } from "./build-common.js";
import { judge_compiler_flags } from "./compilers.js";

const CMAKE_MANUAL = "cmake(1), CMake 3.28";
const E_MANUAL = 'cmake(1), CMake 3.28, "Run a Command-Line Tool"';

const boolean = plain_value(/^(ON|OFF|TRUE|FALSE|YES|NO|Y|N|0|1)$/i, "a boolean");
const whole_number = plain_value(/^\d+$/, "a number");

/**
 * Cache variables that only choose a build type, a standard, a switch, an output or install folder, or
 * compiler flags (cmake-variables(7), CMake 3.28). Everything else — a project's own options included — asks:
 * the project's CMakeLists.txt decides what a variable does.
 */
const CACHE_VARIABLES: Readonly<Record<string, VariableJudge>> = {
  CMAKE_BUILD_TYPE: plain_value(/^[A-Za-z0-9_]*$/, "a build type"),
  CMAKE_MESSAGE_LOG_LEVEL: plain_value(/^(ERROR|WARNING|NOTICE|STATUS|VERBOSE|DEBUG|TRACE)$/, "a log level"),
  CMAKE_OSX_ARCHITECTURES: plain_value(/^[A-Za-z0-9_;]+$/, "a list of architectures"),
  CMAKE_OSX_DEPLOYMENT_TARGET: plain_value(/^[0-9.]+$/, "a version"),
  ...Object.fromEntries(
    [
      "CMAKE_EXPORT_COMPILE_COMMANDS",
      "BUILD_TESTING",
      "BUILD_SHARED_LIBS",
      "CMAKE_C_STANDARD_REQUIRED",
      "CMAKE_CXX_STANDARD_REQUIRED",
      "CMAKE_C_EXTENSIONS",
      "CMAKE_CXX_EXTENSIONS",
      "CMAKE_POSITION_INDEPENDENT_CODE",
      "CMAKE_VERBOSE_MAKEFILE",
      "CMAKE_COLOR_DIAGNOSTICS",
      "CMAKE_INTERPROCEDURAL_OPTIMIZATION",
      "CMAKE_UNITY_BUILD",
      "CMAKE_COMPILE_WARNING_AS_ERROR",
      "CMAKE_SKIP_RPATH",
      "CMAKE_SKIP_INSTALL_RULES",
    ].map((name) => [name, boolean]),
  ),
  ...Object.fromEntries(["CMAKE_C_STANDARD", "CMAKE_CXX_STANDARD", "CMAKE_CUDA_STANDARD"].map((name) => [name, whole_number])),
  ...Object.fromEntries(
    ["CMAKE_INSTALL_PREFIX", "CMAKE_RUNTIME_OUTPUT_DIRECTORY", "CMAKE_LIBRARY_OUTPUT_DIRECTORY", "CMAKE_ARCHIVE_OUTPUT_DIRECTORY"].map((name) => [
      name,
      written_path,
    ]),
  ),
  ...Object.fromEntries(
    ["C", "CXX"]
      .flatMap((language) => ["", "_DEBUG", "_RELEASE", "_RELWITHDEBINFO", "_MINSIZEREL"].map((config) => `CMAKE_${language}_FLAGS${config}`))
      .concat(["CMAKE_EXE_LINKER_FLAGS", "CMAKE_SHARED_LINKER_FLAGS", "CMAKE_MODULE_LINKER_FLAGS"])
      .map((name) => [name, judge_compiler_flags]),
  ),
};
/** Cache variables that name a program cmake or the build runs, or a script or package folder cmake reads as code. */
const CACHE_PROGRAMS =
  /(_COMPILER|_LAUNCHER|_LINKER|_PROGRAM|_CLANG_TIDY|_CPPCHECK|_CPPLINT|_INCLUDE_WHAT_YOU_USE|_EMULATOR|_TOOLCHAIN_FILE|_INCLUDE|_INCLUDE_BEFORE|_INCLUDES|_MODULE_PATH|_PREFIX_PATH|_DIR|_OVERRIDE)$|^CMAKE_(AR|RANLIB|NM|OBJCOPY|OBJDUMP|STRIP|ADDR2LINE|READELF|DLLTOOL)$/;
const CACHE_TYPES = new Set(["BOOL", "FILEPATH", "PATH", "STRING", "INTERNAL", "STATIC", "UNINITIALIZED"]);

/** `-D <var>[:<type>]=<value>`: a cache entry, judged by the variable it sets. */
function cache_entry(word: ShellWord, matched: Matched): void {
  const entry = /^([A-Za-z0-9_.+-]+)(?::([A-Za-z]+))?=(.*)$/s.exec(word.value);
  const [, name, type, value] = entry ?? [];
  if (!word.literal || name === undefined || value === undefined) {
    matched.ask(`cmake -D ${word.value} is not a cache entry this analyzer reads`);
    return;
  }
  const via = `cmake -D${name}`;
  const judge = CACHE_VARIABLES[name];
  if (type !== undefined && !CACHE_TYPES.has(type.toUpperCase())) matched.ask(`${via}:${type} is not a cache entry type`);
  if (CACHE_PROGRAMS.test(name)) matched.ask(`${via} chooses a program or a script cmake or the build runs`);
  else if (judge === undefined) matched.ask(`${via} is not a cache variable this analyzer knows, and the project decides what it does`);
  else judge(literal_word(value), matched, via);
}

/** `-W<dev|deprecated>` and their `no-`, `error=` and `no-error=` forms (cmake(1), "-Wdev" …). */
const DIAGNOSTICS = { one_of: ["dev", "no-dev", "error=dev", "no-error=dev", "deprecated", "no-deprecated", "error=deprecated", "no-error=deprecated"] };
const PRESET_TYPES = { one_of: ["all", "configure", "build", "test", "package", "workflow"] };

// cmake(1): `cmake [<options>] -B <path-to-build> [-S <path-to-source>]`, `cmake [<options>] <path-to-source | path-to-build>`,
// `cmake [-D <var>=<value>]... -P <cmake-script-file> [-- <unparsed-options>...]`. The project's CMakeLists.txt and
// CMakePresets.json are project code; a script or initial cache from elsewhere is not.
const CONFIGURE = program_rule({
  rule: "cmake",
  manual: CMAKE_MANUAL,
  category: "build",
  options: {
    "-S": { value: "folder" },
    "-B": { value: "write" },
    "-C": { value: script_file("cmake -C") },
    "-D": { value: { judge: cache_entry } },
    "-U": { value: "text" },
    "-G": { value: "text" },
    "-T": { value: "text" },
    "-A": { value: "text" },
    "-W": { value: DIAGNOSTICS },
    "-N": {},
    "-P": { value: script_file("cmake -P") },
    "--toolchain": { value: script_file("cmake --toolchain") },
    "--install-prefix": { value: "write" },
    "--fresh": {},
    "--preset": { value: "text" },
    "--list-presets": { value: PRESET_TYPES, optional_value: true },
    "--graphviz": { value: "write" },
    "--log-level|--loglevel": { value: { one_of: ["ERROR", "WARNING", "NOTICE", "STATUS", "VERBOSE", "DEBUG", "TRACE"] } },
    "--log-context": {},
    "--debug-trycompile": {},
    "--debug-output": {},
    "--debug-find": {},
    "--trace": {},
    "--trace-expand": {},
    "--trace-format": { value: { one_of: ["human", "json-v1"] } },
    "--trace-source": { value: "text" },
    "--trace-redirect": { value: "write" },
    "--warn-uninitialized": {},
    "--no-warn-unused-cli": {},
    "--check-system-vars": {},
    "--compile-no-warning-as-error": {},
    "--profiling-output": { value: "write" },
    "--profiling-format": { value: { one_of: ["google-trace"] } },
    "--version": {},
    "--help|-h": {},
  },
  operands: { rest: "folder" },
});

// cmake --build <dir> [<options>] [-- <build-tool-options>], cmake --build --preset <preset> [<options>]
const BUILD = program_rule({
  rule: "cmake --build",
  manual: CMAKE_MANUAL,
  category: "build",
  options: {
    "--preset": { value: "text" },
    "--list-presets": { value: PRESET_TYPES, optional_value: true },
    "-j|--parallel": { value: "number", optional_value: true },
    "-t|--target": { value: "text" },
    "--config": { value: "text" },
    "--clean-first": {},
    "--resolve-package-references": { value: { one_of: ["on", "off", "only"] } },
    "-v|--verbose": {},
  },
  // the further targets of `--target a b`, or the count of `-j 2`
  operands: { rest: "text" },
  check: (matched, seen, operands) => {
    const install = [...(seen.get("-t") ?? []), ...operands].find((word) => INSTALL_TARGET.test(word.value));
    if (install !== undefined) matched.ask(`cmake --build --target ${install.value} installs into the prefix the build was configured with`);
  },
});

/** What `cmake --build dir -- …` may pass to make or ninja: jobs, load, keep going, verbosity, dry run. */
const NATIVE_OPTION = /^(-[jlk]\d*|-[vsn]|\d+)$/;

function cmake_build(args: readonly ShellWord[]): Matched {
  const dashes = args.findIndex((word) => word.literal && word.value === "--");
  const own = dashes === -1 ? args : args.slice(0, dashes);
  const first = own[0];
  const preset = first === undefined || /^--(list-)?presets?/.test(first.value);
  const matched = BUILD.match(preset ? own : own.slice(1));
  if (!preset) matched.write(first);
  for (const word of dashes === -1 ? [] : args.slice(dashes + 1)) {
    if (!NATIVE_OPTION.test(word.value)) matched.ask(`cmake --build -- ${word.value} passes an option to make or ninja that this analyzer does not check`);
  }
  ask_dynamic(args, matched, "cmake --build");
  return matched;
}

// cmake --install <dir> [<options>]
const INSTALL = program_rule({
  rule: "cmake --install",
  manual: CMAKE_MANUAL,
  category: "build",
  options: {
    "--config": { value: "text" },
    "--component": { value: "text" },
    "--default-directory-permissions": { value: "text" },
    "--prefix": { value: "write" },
    "--strip": {},
    "-v|--verbose": {},
  },
  operands: { first: ["folder"] },
  check: (matched, seen) => {
    if (!seen.has("--prefix")) matched.ask("cmake --install installs into the prefix the build was configured with, which this analyzer cannot see");
  },
});

const command = (name: string, shape: Partial<ProgramSpec> & { operands: Operands | ((seen: Seen) => Operands) }): ProgramSpec => ({
  rule: `cmake -E ${name}`,
  manual: E_MANUAL,
  category: "build",
  ...shape,
});
const copy = (seen: Seen): Operands => (seen.has("-t") ? { rest: "read" } : { rest: "read", last: "write" });
const checksum = command("sha256sum", { category: "read_only", operands: { rest: "read" } });

// cmake -E <command> [<options>]: the portable commands that read, copy, create or remove files
const COMMANDS = program_rule({
  rule: "cmake -E",
  manual: E_MANUAL,
  category: "build",
  subcommands: {
    capabilities: command("capabilities", { category: "read_only", operands: {} }),
    cat: command("cat", { category: "read_only", operands: { rest: "read" } }),
    compare_files: command("compare_files", { category: "read_only", options: { "--ignore-eol": {} }, operands: { first: ["read", "read"] } }),
    copy: command("copy", { options: { "-t": { value: "write" } }, operands: copy }),
    copy_if_different: command("copy_if_different", { options: { "-t": { value: "write" } }, operands: copy }),
    copy_directory: command("copy_directory", { operands: { rest: "linked_tree", last: "write" } }),
    copy_directory_if_different: command("copy_directory_if_different", { operands: { rest: "linked_tree", last: "write" } }),
    create_symlink: command("create_symlink", { operands: { first: ["read", "write"] } }),
    create_hardlink: command("create_hardlink", { operands: { first: ["read", "write"] } }),
    make_directory: command("make_directory", { operands: { rest: "write" } }),
    ...Object.fromEntries(
      ["md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum"].map((name) => [name, { ...checksum, rule: `cmake -E ${name}` }]),
    ),
    remove: command("remove", { category: "destructive", options: { "-f": {} }, operands: { rest: "delete" } }),
    remove_directory: command("remove_directory", { category: "destructive", operands: { rest: "delete" } }),
    rm: command("rm", { category: "destructive", options: { "-r|-R": {}, "-f": {} }, operands: { rest: "delete" } }),
    rename: command("rename", { operands: { first: ["delete", "write"] } }),
    sleep: command("sleep", { category: "read_only", operands: { rest: "number" } }),
    touch: command("touch", { operands: { rest: "write" } }),
    touch_nocreate: command("touch_nocreate", { operands: { rest: "write" } }),
    true: command("true", { category: "read_only", operands: { rest: "text" } }),
    false: command("false", { category: "read_only", operands: { rest: "text" } }),
  },
});

/**
 * cmake -E env [--unset=<var>]... [--modify <op>]... [<var>=<value>]... [--] <command> [<arg>...]: handed to the
 * analyzer as `env …`, so the variables it sets are judged as env's are. Without a command it prints the environment.
 */
function cmake_env(args: readonly ShellWord[], matched: Matched): void {
  let index = 0;
  const settings: ShellWord[] = [];
  for (; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const word = args[index]!;
    if (word.literal && word.value === "--") {
      index += 1;
      break;
    }
    if (word.literal && word.value === "--modify") {
      matched.ask(`cmake -E env --modify ${args[index + 1]?.value ?? ""} changes a variable of the command it runs`);
      index += 1;
    } else if (word.literal && (/^--unset=/.test(word.value) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word.value))) settings.push(word);
    else break;
  }
  const run = args.slice(index);
  // env reads its options, then its assignments, then the command: a command named like either is not one env would run
  const unsets = settings.filter((word) => word.value.startsWith("--"));
  const assignments = settings.filter((word) => !word.value.startsWith("--"));
  const [program] = run;
  if (program === undefined) matched.ask("cmake -E env without a command prints the environment, which may hold secrets");
  else if (!program.literal || program.value.startsWith("-") || program.value.includes("="))
    matched.ask(`cmake -E env runs ${program.value}, which env would read as something other than a command`);
  else matched.argv.push({ words: [literal_word("env"), ...unsets, ...assignments, ...run], via: "cmake -E env" });
}

// cmake -E tar [cxt][vf][zjJ] <file> [--format=…|--files-from=…|--mtime=…|--touch|--zstd]... [--] [<path>...]
function cmake_tar(args: readonly ShellWord[], matched: Matched): void {
  const [flags, archive, ...rest] = args;
  if (flags === undefined) return;
  const mode = /^-?[cxtvfzjJ]+$/.test(flags.value) ? /[cxt]/.exec(flags.value)?.[0] : undefined;
  if (mode === undefined) {
    matched.ask(`cmake -E tar ${flags.value} is not a mode this analyzer knows`);
    return;
  }
  if (archive !== undefined) judge_value(mode === "c" ? "write" : "read", archive, "cmake -E tar", matched);
  let paths = false;
  for (const word of rest) {
    if (!paths && word.literal && word.value === "--") paths = true;
    else if (!paths && word.literal && /^--(format|mtime)=|^--(touch|zstd)$/.test(word.value)) continue;
    else if (!paths && word.literal && word.value.startsWith("--files-from=")) {
      matched.read(literal_word(word.value.slice("--files-from=".length)));
      if (mode === "c") matched.ask("cmake -E tar --files-from archives files this analyzer does not see");
    } else if (!paths && word.literal && word.value.startsWith("-")) matched.ask(`cmake -E tar ${word.value} is not an option this analyzer knows`);
    else if (mode === "c") matched.read(word, "linked_tree");
  }
  if (mode === "x") matched.write(literal_word("."));
}

/** The `-E` commands read by hand: they print, run another command, or take tar's arguments. */
const HANDWRITTEN: Readonly<Record<string, (args: readonly ShellWord[], matched: Matched) => void>> = {
  // echo [<string>...], echo_append [<string>...]: every argument is printed, none is an option
  echo: () => undefined,
  echo_append: () => undefined,
  env: cmake_env,
  environment: (_, matched) => matched.ask("cmake -E environment prints the environment, which may hold secrets"),
  // time <command> [<args>...]
  time: (args, matched) => {
    if (args.length > 0) matched.argv.push({ words: [...args], via: "cmake -E time" });
  },
  // chdir <dir> <cmd> [<arg>...]: the command's relative paths are relative to <dir>, not to where they are judged
  chdir: ([folder, ...run], matched) => {
    if (folder === undefined) return;
    matched.read(folder);
    if (!folder.literal || folder.value !== ".") matched.ask(`cmake -E chdir runs its command in ${folder.value}, where its relative paths cannot be checked`);
    if (run.length > 0) matched.argv.push({ words: run, via: "cmake -E chdir" });
  },
  tar: cmake_tar,
};

function cmake_command(args: readonly ShellWord[]): Matched {
  const [name, ...rest] = args;
  const handwritten = name?.literal === true ? HANDWRITTEN[name.value] : undefined;
  if (name === undefined || handwritten === undefined) {
    const matched = COMMANDS.match(args);
    ask_dynamic(args, matched, "cmake -E");
    return matched;
  }
  const matched = new Matched(`cmake -E ${name.value}`, E_MANUAL);
  matched.categories.add(name.value.startsWith("echo") ? "read_only" : "build");
  handwritten(rest, matched);
  return matched;
}

const CMAKE: ProgramRule = {
  names: ["cmake"],
  match: (args) => {
    const mode = args[0]?.literal === true ? args[0].value : undefined;
    if (mode === "--build") return cmake_build(args.slice(1));
    if (mode === "--install") {
      const matched = INSTALL.match(args.slice(1));
      ask_dynamic(args, matched, "cmake --install");
      return matched;
    }
    if (mode === "-E") return cmake_command(args.slice(1));
    const matched = CONFIGURE.match(args);
    ask_dynamic(args, matched, "cmake");
    // `--` ends the options only for a script (`-P`): elsewhere cmake may still read what follows as options
    const script = args.some((word) => word.literal && word.value.startsWith("-P"));
    if (!script && args.some((word) => word.literal && word.value === "--")) matched.ask("cmake reads its options after -- too, outside script mode");
    return matched;
  },
};

/** ctest -S/-SP <script>[,<dashboard options>]: the script is the part before the comma. */
const ctest_script = script_file("ctest -S");
const dashboard_script = {
  judge: (word: ShellWord, matched: Matched) => {
    const comma = word.value.indexOf(",");
    const script = comma === -1 || !word.literal ? word : literal_word(word.value.slice(0, comma));
    judge_value(ctest_script, script, "ctest -S", matched);
  },
};

// ctest(1): `ctest [<options>]`, `ctest --build-and-test <path-to-source> <path-to-build> …`, `ctest -S <script>`;
// every option is a whole word (`-VV`, `-LE`), as ctest reads them
const CTEST_SPEC = program_rule({
  rule: "ctest",
  manual: "ctest(1), CMake 3.28",
  category: "test",
  style: "single_dash",
  options: {
    "--preset": { value: "text" },
    "--list-presets": {},
    "-C|--build-config": { value: "text" },
    "--progress": {},
    "-V|--verbose": {},
    "-VV|--extra-verbose": {},
    "--debug": {},
    "--output-on-failure": {},
    "--stop-on-failure": {},
    "-F": {},
    "-j|--parallel": { value: "number", attached: true },
    "--resource-spec-file": { value: "read" },
    "--test-load": { value: "number" },
    "-Q|--quiet": {},
    "-O|--output-log": { value: "write" },
    "--output-junit": { value: "write" },
    "-N|--show-only": { value: { one_of: ["human", "json-v1"] }, optional_value: true },
    "-L|--label-regex": { value: "text" },
    "-R|--tests-regex": { value: "text" },
    "-E|--exclude-regex": { value: "text" },
    "-LE|--label-exclude": { value: "text" },
    "-FA|--fixture-exclude-any": { value: "text" },
    "-FS|--fixture-exclude-setup": { value: "text" },
    "-FC|--fixture-exclude-cleanup": { value: "text" },
    "--rerun-failed": {},
    "--repeat": { value: { judge: judge_repeat } },
    "--repeat-until-fail": { value: "number" },
    "--max-width": { value: "number" },
    "--interactive-debug-mode": { value: { one_of: ["0", "1"] } },
    "--no-label-summary": {},
    "--no-subproject-summary": {},
    "--test-dir": { value: "folder" },
    "-I|--tests-information": { value: "read" },
    "-U|--union": {},
    "--timeout": { value: "number" },
    "--stop-time": { value: "text" },
    "--print-labels": {},
    "--no-tests": { value: { one_of: ["error", "ignore"] } },
    "--schedule-random": {},
    "--force-new-ctest-process": {},
    "--help": {},
    "--version": {},
    "-S|-SP": { value: dashboard_script },
    "--build-and-test": { ask: "configures and builds another project, with options of its own" },
    "-D|--dashboard": { value: "text", ask: "runs a dashboard (configure, build, test, submit over the network) or sets a script variable" },
    "-T|--test-action": { value: "text", ask: "runs a dashboard step (update, configure, build, submit …)" },
    "--extra-submit": { value: "text", ask: "submits files to a dashboard server", category: "network" },
  },
  operands: {},
});

function judge_repeat(word: ShellWord, matched: Matched): void {
  if (!/^(until-fail|until-pass|after-timeout):\d+$/.test(word.value)) matched.ask(`ctest --repeat ${word.value} is not a repeat mode`);
}

const CTEST: ProgramRule = {
  names: ["ctest"],
  match: (args) => {
    const matched = CTEST_SPEC.match(args);
    ask_dynamic(args, matched, "ctest");
    // ctest reads every argument as an option; `--` ends nothing
    if (args.some((word) => word.literal && word.value === "--")) matched.ask("ctest does not end its options at --");
    return matched;
  },
};

/** CMake's configure, build, install, script and command-tool modes, and CTest. */
export const CMAKE_RULES: readonly ProgramRule[] = [CMAKE, CTEST];

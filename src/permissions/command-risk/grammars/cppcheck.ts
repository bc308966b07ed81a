import { program_rule } from "../grammar/declarative.js";
import type { Matched } from "../grammar/matched.js";
import type { ProgramRule, Seen, ValueKind } from "../grammar/types.js";
import type { ShellWord } from "../types.js";
import { ask_dynamic } from "./build-common.js";

const MANUAL = "cppcheck(1) and cppcheck --help, cppcheck 2.10";

/** The platforms cppcheck 2.10 knows by name; any other `--platform` value is a file it reads. */
const PLATFORMS = ["unix32", "unix64", "win32A", "win32W", "win64", "avr8", "elbrus-e1cp", "pic8", "pic8-enhanced", "pic16", "mips32", "native", "unspecified"];

/** `--platform=unix64`, or a platform file read. */
const platform: ValueKind = {
  judge: (word, matched) => {
    if (!word.literal || !PLATFORMS.includes(word.value)) matched.read(word);
  },
};

/** `--library=posix` names a cfg cppcheck ships (or `posix.cfg` here); anything with a path or an extension is a file read. */
const library: ValueKind = {
  judge: (word, matched) => {
    if (!word.literal || !/^[A-Za-z0-9_+-]+$/.test(word.value)) matched.read(word);
  },
};

/**
 * `--project=FILE`, typed by its extension (cppcheck 2.10 ImportProject): a compilation database, a Visual
 * Studio solution or project, or a C++Builder project is only read; a `.cppcheck` GUI project may name addons
 * cppcheck runs and a build folder it writes, and any other file is not a project cppcheck reads.
 */
const project: ValueKind = {
  judge: (word, matched) => {
    if (word.literal && /\.(json|sln|vcxproj|bpr)$/.test(word.value)) matched.read(word);
    else
      matched.ask(
        `cppcheck --project=${word.value} is not a compilation database or a Visual Studio or C++Builder project, so what it makes cppcheck run cannot be checked`,
      );
  },
};

/** cppcheck(1) 2.10: every option is a whole word, a long one with its `=value` attached; short ones take theirs either way. */
const CPPCHECK = program_rule({
  rule: "cppcheck",
  manual: MANUAL,
  category: "static_analysis",
  style: "single_dash",
  options: {
    "--xml": {},
    "--xml-version=": { value: { one_of: ["2"] } },
    "--enable=": { value: "text" },
    "--disable=": { value: "text" },
    "--std=": { value: "text" },
    "--language=|-x": { value: { one_of: ["c", "c++"] }, attached: true },
    "--platform=": { value: platform },
    "--library=": { value: library },
    "--suppress=": { value: "text" },
    "--inline-suppr": {},
    "-q|--quiet": {},
    "-v|--verbose": {},
    "-f|--force": {},
    "--inconclusive": {},
    "--check-config": {},
    "--check-library": {},
    "--report-progress": {},
    "--errorlist": {},
    "--version": {},
    "-h|--help": {},
    "-E": {},
    "--error-exitcode=": { value: "number" },
    "--max-configs=": { value: "number" },
    "--max-ctu-depth=": { value: "number" },
    "-j": { value: "number", attached: true },
    "-l": { value: "number", attached: true },
    "--template=": { value: "text" },
    "--template-location=": { value: "text" },
    "--project-configuration=": { value: "text" },
    "--file-filter=": { value: "text" },
    "--config-exclude=": { value: "text" },
    "--rule=": { value: "text" },
    // alone (`-rp`), paths are shortened relative to the working folder
    "-rp|--relative-paths": { value: "text", optional_value: true },
    "-D": { value: "text", attached: true },
    "-U": { value: "text", attached: true },
    "-i": { value: "text", attached: true },
    "-I": { value: "read", attached: true },
    "--project=": { value: project },
    "--suppressions-list=": { value: "read" },
    "--suppress-xml=": { value: "read" },
    "--exitcode-suppressions=": { value: "read" },
    "--includes-file=": { value: "read" },
    "--include=": { value: "read" },
    "--file-list=": { value: "read" },
    "--config-excludes-file=": { value: "read" },
    "--rule-file=": { value: "read" },
    "--output-file=": { value: "write" },
    "--cppcheck-build-dir=": { value: "write" },
    "--plist-output=": { value: "write" },
    "--dump": {},
    "--addon=": { value: "text", ask: "runs an addon, a python script" },
    "--addon-python=": { value: "command" },
    "--clang": { value: "command", optional_value: true, ask: "runs clang to parse the sources" },
  },
  operands: { rest: "read" },
  check: dump_files,
});

/** `--dump` writes a `.dump` file next to every source it checks: the operands given, or files it cannot see. */
function dump_files(matched: Matched, seen: Seen, operands: readonly ShellWord[]): void {
  if (!seen.has("--dump")) return;
  if (seen.has("--project=") || seen.has("--file-list=")) matched.ask("cppcheck --dump writes .dump files next to sources this analyzer cannot list");
  for (const word of operands) matched.write(word);
}

/** cppcheck reads every argument starting with `-` as an option: a word only known at run time may be `--addon=` wherever it is. */
const CPPCHECK_RULE: ProgramRule = {
  names: ["cppcheck"],
  match: (args) => {
    const matched = CPPCHECK.match(args);
    ask_dynamic(args, matched, "cppcheck");
    if (args.some((word) => word.literal && word.value === "--")) matched.ask("cppcheck does not end its options at --");
    return matched;
  },
};

export const CPPCHECK_RULES: readonly ProgramRule[] = [CPPCHECK_RULE];

import type { FixIt, Severity } from "./record.js";

/**
 * What one line of GCC or Clang text output is, on its own: the state machine in gcc-clang.ts gives it meaning
 * from what came before (a note belongs to the last primary, a "required from" line to the pending instantiation).
 */
export type CompilerLine =
  | { kind: "diagnostic"; file: string | null; line: number | null; column: number | null; severity: Severity; code: string | null; message: string }
  | { kind: "include"; file: string; line: number; column: number | null; continued: boolean }
  | { kind: "scope"; file: string | null; function: string | null; instantiation: string | null }
  | { kind: "instantiation_step"; file: string; line: number | null; column: number | null; message: string }
  | { kind: "fixit"; fixit: FixIt }
  | { kind: "other" };

const CSI = /\u001b\[[0-?]*[ -/]*[@-~]/g;
const OSC = /\u001b\][\s\S]*?(?:\u0007|\u001b\\)/g;

/** The text as lines, with colour, `ESC[K` and OSC-8 hyperlinks gone and CRLF or CR progress lines split. */
export function compiler_text_lines(text: string): string[] {
  return text
    .replace(OSC, "")
    .replace(CSI, "")
    .split(/\r\n|\r|\n/);
}

// `file:line[:column][{range}…]: severity: message` — the file part is lazy so `C:\src\a.cpp:3:1:` keeps its drive.
const LOCATED = /^(.+?):(\d+)(?::(\d+))?:(?:(?:\{\d+:\d+-\d+:\d+\})+:)?\s(fatal error|error|warning|note|remark):\s?(.*)$/;
// A driver or compiler proper speaking without a place: `cc1plus: fatal error: …`, `g++-12: error: …`, `clang: error: …`,
// and Clang's cc1 with no prefix at all (`error: invalid value 'c++99' in '-std=c++99'`).
const DRIVER =
  /^(?:(?:(?:cc1plus|cc1|cc1obj|gcc|g\+\+|c\+\+|cc|clang|clang\+\+)(?:-\d+(?:\.\d+)*)?|<command-line>|<built-in>):\s)?(fatal error|error|warning|note|remark):\s?(.*)$/;
const INCLUDE = /^(In file included from|\s+from) (.+?):(\d+)(?::(\d+))?[:,]$/;
// GCC quotes with ‘…’ under a UTF-8 locale and with '…' under LC_ALL=C.
const INSTANTIATION_SCOPE = /^(.+?): In (?:instantiation|substitution) of ['‘](.*)['’]:$/;
const SCOPE_KIND = "(?:static |copy |move )?(?:member function|function|constructor|destructor|lambda function)";
const FUNCTION_SCOPE = new RegExp(`^(.+?): In (${SCOPE_KIND})(?: ['‘](.*)['’])?:$`);
// An inlining stack (GCC's -O2 warnings) names the function without a file, then `    inlined from 'f' at F:L:C,` lines.
const INLINED_SCOPE = new RegExp(`^In (${SCOPE_KIND})(?: ['‘](.*)['’])?,$`);
const INLINED_STEP = /^\s+(inlined from ['‘].*['’]) at (.+?):(\d+)(?::(\d+))?[:,]$/;
const GLOBAL_SCOPE = /^(.+?): At global scope:$/;
// GCC's instantiation context: a place, then three spaces instead of a severity (`required from here`).
const INSTANTIATION_STEP = /^(.+?):(\d+)(?::(\d+))?:\s{3}(\S.*)$/;
const FIXIT = /^fix-it:"((?:[^"\\]|\\.)*)":\{(\d+):(\d+)-(\d+):(\d+)\}:"((?:[^"\\]|\\.)*)"$/;
const TRAILING_CODE = /^(.*?)\s\[((?:-W|-f)[^\]\s]*)\]$/;
const WERROR = /^-Werror(?:=|$)/;
const CLANG_SUMMARY = /^\d+ (?:warnings?|errors?)(?: and \d+ (?:warnings?|errors?))? generated\.$/;

const SEVERITY: Record<string, Severity> = { "fatal error": "fatal", error: "error", warning: "warning", note: "note", remark: "remark" };

function number_or_null(text: string | undefined): number | null {
  return text === undefined ? null : Number(text);
}

/**
 * The message without its trailing `[-Wfoo]`, and the code. GCC's `-Werror=foo` and Clang's `-Werror,-Wfoo` are
 * `-Wfoo`: the severity already says error, and the kind of failure is the warning's.
 */
function split_code(message: string): { message: string; code: string | null } {
  const found = TRAILING_CODE.exec(message);
  if (found?.[1] === undefined || found[2] === undefined) return { message, code: null };
  const options = found[2].split(",").filter((option) => option !== "-Werror");
  return { message: found[1], code: options.at(-1)?.replace(WERROR, "-W") ?? null };
}

function diagnostic_line(file: string | null, line: number | null, column: number | null, severity_text: string, raw_message: string): CompilerLine {
  const severity = SEVERITY[severity_text] ?? "error";
  return { kind: "diagnostic", file, line, column, severity, ...split_code(raw_message) };
}

/** Clang's parseable fix-it strings escape `\\`, `\"`, `\t`, `\n` and bytes as three octal digits. */
function unescape_clang(text: string): string {
  return text.replace(/\\([0-7]{3}|.)/g, (_all, escaped: string) => {
    if (escaped.length === 3) return String.fromCharCode(Number.parseInt(escaped, 8));
    if (escaped === "n") return "\n";
    if (escaped === "t") return "\t";
    return escaped;
  });
}

function fixit_line(found: RegExpExecArray): CompilerLine {
  const [, file = "", start_line, start_column, end_line, end_column, replacement = ""] = found;
  return {
    kind: "fixit",
    fixit: {
      file: unescape_clang(file),
      start: { line: Number(start_line), column: Number(start_column) },
      end: { line: Number(end_line), column: Number(end_column) },
      replacement: unescape_clang(replacement),
    },
  };
}

function context_line(text: string): CompilerLine | null {
  const include = INCLUDE.exec(text);
  if (include?.[2] !== undefined) {
    return {
      kind: "include",
      file: include[2],
      line: Number(include[3]),
      column: number_or_null(include[4]),
      continued: include[1] !== "In file included from",
    };
  }
  const instantiation = INSTANTIATION_SCOPE.exec(text);
  if (instantiation?.[1] !== undefined && instantiation[2] !== undefined) {
    return { kind: "scope", file: instantiation[1], function: instantiation[2], instantiation: text.slice(instantiation[1].length + 2, -1) };
  }
  const scope = FUNCTION_SCOPE.exec(text);
  if (scope?.[1] !== undefined) return { kind: "scope", file: scope[1], function: scope[3] ?? scope[2] ?? null, instantiation: null };
  const inlined = INLINED_SCOPE.exec(text);
  if (inlined !== null) return { kind: "scope", file: null, function: inlined[2] ?? inlined[1] ?? null, instantiation: null };
  const step = INLINED_STEP.exec(text);
  if (step?.[1] !== undefined && step[2] !== undefined) {
    return { kind: "instantiation_step", file: step[2], line: Number(step[3]), column: number_or_null(step[4]), message: step[1] };
  }
  const global = GLOBAL_SCOPE.exec(text);
  if (global?.[1] !== undefined) return { kind: "scope", file: global[1], function: null, instantiation: null };
  return null;
}

const OTHER: CompilerLine = { kind: "other" };

/** GCC's source echo (`  12 |   code`) and caret lines (`     |   ^~~`): half of a compiler's output, never a record. */
function is_source_echo(text: string): boolean {
  if (text.charCodeAt(0) !== 32) return false;
  const trimmed = text.trimStart();
  return trimmed.startsWith("|") || /^\d+ \|/.test(trimmed);
}

export function classify_compiler_line(text: string): CompilerLine {
  // Every line the grammar reads names a place or a tool followed by a colon, but an inlining stack's head.
  if ((!text.includes(":") && !text.startsWith("In ")) || is_source_echo(text)) return OTHER;
  const located = LOCATED.exec(text);
  if (located?.[1] !== undefined && located[4] !== undefined) {
    return diagnostic_line(located[1], Number(located[2]), number_or_null(located[3]), located[4], located[5] ?? "");
  }
  const driver = DRIVER.exec(text);
  if (driver?.[1] !== undefined) {
    return diagnostic_line(null, null, null, driver[1], driver[2] ?? "");
  }
  const context = context_line(text);
  if (context !== null) return context;
  const step = INSTANTIATION_STEP.exec(text);
  if (step?.[1] !== undefined && step[4] !== undefined) {
    return { kind: "instantiation_step", file: step[1], line: Number(step[2]), column: number_or_null(step[3]), message: step[4] };
  }
  const fixit = FIXIT.exec(text);
  if (fixit !== null) return fixit_line(fixit);
  return OTHER;
}

/** Whether the text came from Clang: its driver's name, its fix-it lines, its "N errors generated." summary. */
export function looks_like_clang(lines: readonly string[]): boolean {
  return lines.some((line) => /^clang(?:\+\+)?(?:-\d+)?: /.test(line) || line.startsWith('fix-it:"') || CLANG_SUMMARY.test(line));
}

import { file_line, first_in_app, frame_of } from "./frames.js";
import { line_number, parsed_diagnostic } from "./parsed.js";
import type { ChildDiagnostic, Frame, ParsedDiagnostic } from "./record.js";

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

function report_lines(text: string): string[] {
  return text.replace(ANSI, "").split(/\r?\n/);
}

const TOOL_CODE: Readonly<Record<string, string>> = {
  AddressSanitizer: "asan",
  LeakSanitizer: "lsan",
  UndefinedBehaviorSanitizer: "ubsan",
  ThreadSanitizer: "tsan",
  MemorySanitizer: "msan",
};

const SANITIZER_HEADER = /^==\d+==ERROR: (\w+Sanitizer): (.*)$/;
/** LeakSanitizer's header opens a list of leaks, each its own report. */
const LEAKS_HEADER = /^==\d+==ERROR: LeakSanitizer: /;
const UBSAN_LINE = /^(.+?):(\d+):(\d+): runtime error: (.*)$/;
const SANITIZER_FRAME = /^\s*#(\d+)\s+0x[0-9a-fA-F]+\s+(.*)$/;
const MODULE = /^\((.+)\+0x[0-9a-fA-F]+\)$/;
const SECTION = /^(\S.*\S):$/;
const LEAK = /^(Direct|Indirect) leak of /;
const REPORT_END = /^(SUMMARY: |==\d+==ABORTING|Shadow bytes around)/;

function sanitizer_frame(index: number, rest: string): Frame {
  const body = rest.replace(/ \(BuildId: [0-9a-f]+\)$/, "");
  const symbolised = body.startsWith("in ");
  const text = symbolised ? body.slice(3) : body;
  const cut = text.lastIndexOf(" ");
  const last = cut < 0 ? text : text.slice(cut + 1);
  const head = cut < 0 ? null : text.slice(0, cut);
  const module = MODULE.exec(last)?.[1] ?? null;
  const location = module === null ? file_line(last) : null;
  const located = module !== null || location !== null;
  const name = located ? head : text;
  return frame_of({
    index,
    function: symbolised ? name : null,
    file: location?.file ?? null,
    line: location?.line ?? null,
    column: location?.column ?? null,
    module,
  });
}

type Section = { title: string; frames: Frame[] };

/** One report under construction: the primary stack, then titled stacks (freed by, allocated by). */
type OpenReport = { code: string; message: string; file: string | null; line: number | null; column: number | null; frames: Frame[]; sections: Section[] };

function ubsan_code(message: string): string {
  const kind = /^([a-z][a-z -]+):/.exec(message)?.[1];
  return `ubsan.${kind === undefined ? "runtime-error" : kind.replaceAll(" ", "-")}`;
}

function section_note(section: Section): ChildDiagnostic {
  const frame = first_in_app(section.frames);
  return { severity: "note", file: frame?.file ?? null, line: frame?.line ?? null, column: frame?.column ?? null, code: null, message: section.title };
}

function close_report(report: OpenReport): ParsedDiagnostic {
  const frame = first_in_app(report.frames);
  return parsed_diagnostic({
    source: "sanitizer",
    severity: "error",
    code: report.code,
    message: report.message,
    file: report.file ?? frame?.file ?? null,
    line: report.file === null ? (frame?.line ?? null) : report.line,
    column: report.file === null ? (frame?.column ?? null) : report.column,
    frames: report.frames,
    children: report.sections.map(section_note),
    function: frame?.function ?? null,
  });
}

function open_report(line: string, in_leaks: boolean): OpenReport | null {
  const header = SANITIZER_HEADER.exec(line);
  if (header?.[1] !== undefined && header[2] !== undefined) {
    // "attempting double-free on 0x…", "attempting free on address which was not malloc()-ed": the bug is the next word.
    const words = header[2].split(" ");
    const bug = (words[0] === "attempting" ? words[1] : words[0]) ?? header[2];
    return {
      code: `${TOOL_CODE[header[1]] ?? header[1].toLowerCase()}.${bug}`,
      message: header[2],
      file: null,
      line: null,
      column: null,
      frames: [],
      sections: [],
    };
  }
  const ubsan = UBSAN_LINE.exec(line);
  if (ubsan?.[1] !== undefined && ubsan[4] !== undefined) {
    const message = ubsan[4];
    return { code: ubsan_code(message), message, file: ubsan[1], line: line_number(ubsan[2]), column: line_number(ubsan[3]), frames: [], sections: [] };
  }
  if (in_leaks && LEAK.test(line)) {
    const kind = line.startsWith("Direct") ? "direct-leak" : "indirect-leak";
    return { code: `lsan.${kind}`, message: line.replace(/:$/, ""), file: null, line: null, column: null, frames: [], sections: [] };
  }
  return null;
}

/** A frame joins the stack last titled; a titled line ending in ":" starts a new stack. */
function read_report_line(report: OpenReport, line: string): void {
  const frame = SANITIZER_FRAME.exec(line);
  if (frame?.[1] !== undefined && frame[2] !== undefined) {
    const parsed = sanitizer_frame(Number(frame[1]), frame[2]);
    (report.sections.at(-1)?.frames ?? report.frames).push(parsed);
    return;
  }
  const title = SECTION.exec(line)?.[1];
  if (title !== undefined) report.sections.push({ title, frames: [] });
}

/**
 * ASan, LSan and UBSan reports, wherever they sit in a process's output: one error per report (per leak for
 * LSan), the primary stack as frames, each further stack ("freed by thread T0 here") a note at its first frame
 * in the program's own code.
 */
export function parse_sanitizer(text: string): ParsedDiagnostic[] {
  return parse_sanitizer_lines(report_lines(text));
}

/** `parse_sanitizer` over lines already free of colour. */
export function parse_sanitizer_lines(lines: readonly string[]): ParsedDiagnostic[] {
  const diagnostics: ParsedDiagnostic[] = [];
  let report: OpenReport | null = null;
  let in_leaks = false;
  const flush = (): void => {
    if (report !== null) diagnostics.push(close_report(report));
    report = null;
  };
  for (const line of lines) {
    if (LEAKS_HEADER.test(line)) {
      flush();
      in_leaks = true;
      continue;
    }
    const opened = open_report(line, in_leaks);
    if (opened !== null) {
      flush();
      report = opened;
    } else if (report !== null) {
      if (REPORT_END.test(line)) {
        flush();
        in_leaks = false;
      } else read_report_line(report, line);
    }
  }
  flush();
  return diagnostics;
}

const GDB_SIGNAL = /^Program (?:received|terminated with) signal (\w+), (.*)$/;
const GDB_FRAME = /^#(\d+)\s+(.*)$/;
const GDB_AT = / at (\S+)$/;
const GDB_FROM = / from (\S+)$/;

/** `name (args)` → `name`: the argument list is the last balanced parenthesis group. */
function without_arguments(call: string): string {
  if (!call.endsWith(")")) return call;
  let depth = 0;
  for (let index = call.length - 1; index >= 0; index -= 1) {
    const char = call[index];
    if (char === ")") depth += 1;
    else if (char === "(") depth -= 1;
    if (depth === 0) return call.slice(0, index).trim();
  }
  return call;
}

function gdb_frame(index: number, rest: string): Frame {
  const body = rest.replace(/^0x[0-9a-fA-F]+ in /, "");
  const at = GDB_AT.exec(body);
  const from = GDB_FROM.exec(body);
  const tail = at ?? from;
  const call = tail === null ? body : body.slice(0, tail.index);
  const name = without_arguments(call);
  const location = at?.[1] === undefined ? null : file_line(at[1]);
  return frame_of({
    index,
    function: name === "??" || name === "" ? null : name,
    file: location?.file ?? null,
    line: location?.line ?? null,
    column: location?.column ?? null,
    module: from?.[1] ?? null,
  });
}

function gdb_backtraces(lines: readonly string[]): Frame[][] {
  const backtraces: Frame[][] = [];
  for (const line of lines) {
    const match = GDB_FRAME.exec(line);
    if (match?.[1] === undefined || match[2] === undefined) continue;
    const frame = gdb_frame(Number(match[1]), match[2]);
    const current = backtraces.at(-1);
    if (frame.index === 0 || current === undefined) backtraces.push([frame]);
    else current.push(frame);
  }
  return backtraces;
}

/**
 * A gdb batch run's output (`bt`, `bt full`, `thread apply all bt`): one fatal record for the signal that
 * stopped the program with the backtrace of the thread it stopped in, or an info record for a backtrace printed
 * without a signal.
 */
export function parse_gdb_backtrace(text: string): ParsedDiagnostic[] {
  return parse_gdb_lines(report_lines(text));
}

/** `parse_gdb_backtrace` over lines already free of colour. */
export function parse_gdb_lines(lines: readonly string[]): ParsedDiagnostic[] {
  const backtraces = gdb_backtraces(lines);
  const signal_at = lines.findIndex((line) => GDB_SIGNAL.test(line));
  const signal = signal_at < 0 ? null : GDB_SIGNAL.exec(lines[signal_at] ?? "");
  const stop_line = lines[signal_at + 1];
  const stopped_in = signal_at < 0 || stop_line === undefined ? null : gdb_frame(0, stop_line).function;
  const frames = backtraces.find((backtrace) => backtrace[0]?.function === stopped_in) ?? backtraces[0];
  if (signal?.[1] === undefined && frames === undefined) return [];
  const frame = first_in_app(frames ?? []);
  return [
    parsed_diagnostic({
      source: "gdb",
      severity: signal === null ? "info" : "fatal",
      code: signal?.[1] === undefined ? "gdb.backtrace" : `gdb.${signal[1]}`,
      message: signal === null ? "backtrace" : `program received signal ${signal[1]}, ${signal[2] ?? ""}`.trim(),
      file: frame?.file ?? null,
      line: frame?.line ?? null,
      column: frame?.column ?? null,
      frames: frames ?? [],
      function: frame?.function ?? null,
    }),
  ];
}

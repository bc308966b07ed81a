import * as v from "valibot";
import { is_air_failure } from "../../contracts/errors.js";
import { enrich_with_gcc_json, gcc_json_records, is_gcc_json_line } from "./gcc-json.js";
import { has_gtest_failure, parse_gtest_text } from "./gtest-text.js";
import { split_jobs } from "./jobs.js";
import { is_link_build_line, parse_link_build_lines } from "./link-build.js";
import { merge, normalise, order, path_normaliser } from "./merge.js";
import type { PathContext } from "./paths.js";
import type { Diagnostic, ParsedDiagnostic } from "./record.js";

export const From = v.picklist(["auto", "gcc", "clang", "ld", "cmake", "ctest-junit", "gtest-json", "sanitizer", "cppcheck-xml"]);
export type From = v.InferOutput<typeof From>;

export interface ParseOptions {
  readonly from: From;
  readonly root: string;
  readonly build_dirs?: readonly string[];
}

type Grammar = (input: string) => ParsedDiagnostic[];
type LineGrammar = (lines: readonly string[]) => ParsedDiagnostic[];

/** The other zones' grammars, passed in so the pipeline is specified apart from them. Text grammars get clean lines. */
export interface Adapters {
  readonly compiler_text: LineGrammar;
  readonly junit: Grammar;
  readonly gtest_json: Grammar;
  readonly cppcheck_xml: Grammar;
  readonly sanitizer: LineGrammar;
  readonly gdb_backtrace: LineGrammar;
}

// SGR and erase-line (GCC colour), OSC-8 hyperlinks (-fdiagnostics-urls), and CR progress overwrites.
const ESCAPES = /\x1b\[[0-9;?]*[A-Za-z]|\x1b\]8;[^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\][^\x07]*\x07/g;
const SANITIZER_LINE = /^==\d+==ERROR: \w+Sanitizer|^\S+:\d+:\d+: runtime error: |^SUMMARY: \w+Sanitizer/;
const GDB_LINE = /^#\d+\s+(?:0x[0-9a-f]+ in )?\S+ \(/;

function is_sanitizer_line(line: string): boolean {
  return (line.includes("Sanitizer") || line.includes(": runtime error: ")) && SANITIZER_LINE.test(line);
}

/** The text as lines, colour and hyperlinks gone, each line what a terminal would show after its last CR. */
function clean_lines(text: string): string[] {
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index += 1) {
    let line = lines[index] ?? "";
    // Most lines have neither: a substring search each beats one regex over the whole log.
    if (line.includes("\x1b")) line = line.replace(ESCAPES, "");
    const cr = line.lastIndexOf("\r");
    if (cr >= 0) line = cr === line.length - 1 ? line.slice(line.lastIndexOf("\r", cr - 1) + 1, cr) : line.slice(cr + 1);
    lines[index] = line;
  }
  return lines;
}

function detect(text: string): From {
  const head = text.trimStart().slice(0, 4096);
  // `<command-line>: error: …` is compiler text, so XML needs its declaration or a known root element.
  if (/^<(?:\?xml|results|testsuites?)\b/.test(head)) return head.includes("<results") ? "cppcheck-xml" : "ctest-junit";
  if (head.startsWith("{")) return "gtest-json";
  return "auto";
}

/** The lines with the flagged ones blanked, so a grammar reads only its own; the same array when none is flagged. */
function blanked(lines: readonly string[], flagged: readonly boolean[]): readonly string[] {
  return flagged.includes(true) ? lines.map((line, index) => (flagged[index] === true ? "" : line)) : lines;
}

type JobRecords = { records: ParsedDiagnostic[]; json: ParsedDiagnostic[] };

/** Compiler text (the linker's, CMake's, make's and GCC JSON's lines blanked), and GCC JSON's records apart. */
function compiler_part(adapters: Adapters, lines: readonly string[], link_lines: readonly boolean[], from: From): JobRecords {
  const json_lines = lines.some(is_gcc_json_line) ? lines.map(is_gcc_json_line) : null;
  const kept_out = json_lines === null ? link_lines : link_lines.map((link, index) => link || json_lines[index] === true);
  const text = adapters.compiler_text(blanked(lines, kept_out));
  const json = json_lines === null ? [] : gcc_json_records(lines.filter((_line, index) => json_lines[index] === true));
  const records = from === "clang" ? text.map((diagnostic) => (diagnostic.source === "gcc" ? { ...diagnostic, source: "clang" as const } : diagnostic)) : text;
  return { records, json };
}

function with_target(parsed: ParsedDiagnostic[], target: string | null): ParsedDiagnostic[] {
  if (target === null) return parsed;
  return parsed.map((diagnostic) => ({
    ...diagnostic,
    job: diagnostic.job ?? target,
    context: { ...diagnostic.context, target: diagnostic.context.target ?? target },
  }));
}

/** One framed job's lines through every text grammar it calls for; the job's target fills what the grammars left open. */
function parse_job(adapters: Adapters, lines: readonly string[], target: string | null, from: From): JobRecords {
  const link_lines = lines.map(is_link_build_line);
  const { records, json } =
    from === "auto" || from === "gcc" || from === "clang" ? compiler_part(adapters, lines, link_lines, from) : { records: [], json: [] };
  if ((from === "auto" || from === "ld" || from === "cmake") && link_lines.includes(true)) records.push(...parse_link_build_lines(lines, link_lines));
  if (from === "sanitizer" || (from === "auto" && lines.some(is_sanitizer_line))) records.push(...adapters.sanitizer(lines));
  if (from === "auto" && lines.some((line) => line.startsWith("#") && GDB_LINE.test(line))) records.push(...adapters.gdb_backtrace(lines));
  if (from === "auto" && has_gtest_failure(lines)) records.push(...parse_gtest_text(lines));
  return { records: with_target(records, target), json: with_target(json, target) };
}

function structured(adapters: Adapters, kind: From, input: string): ParsedDiagnostic[] | null {
  if (kind === "ctest-junit") return adapters.junit(input);
  if (kind === "gtest-json") return adapters.gtest_json(input);
  if (kind === "cppcheck-xml") return adapters.cppcheck_xml(input);
  return null;
}

/** One path normaliser per working folder, kept for the whole run. */
function normalisers(paths: PathContext): (cwd: string | null) => ReturnType<typeof path_normaliser> {
  const by_cwd = new Map<string | null, ReturnType<typeof path_normaliser>>();
  return (cwd) => {
    let normal = by_cwd.get(cwd);
    if (normal === undefined) {
      normal = path_normaliser(cwd === null ? paths : { ...paths, cwd });
      by_cwd.set(cwd, normal);
    }
    return normal;
  };
}

/** A structured report when the input is one (detected, it may be cut short: then it is read as text), else the text grammars per job. */
function read(adapters: Adapters, input: string, from: From, paths: PathContext): ParsedDiagnostic[] {
  const kind = from === "auto" ? detect(input) : from;
  const normal = normalisers(paths);
  try {
    const report = structured(adapters, kind, input);
    if (report !== null) return report.map((diagnostic) => normalise(diagnostic, normal(null)));
  } catch (error) {
    if (from !== "auto" || !is_air_failure(error)) throw error;
  }
  const grammar = from === "auto" ? "auto" : kind;
  const records: ParsedDiagnostic[] = [];
  const json: ParsedDiagnostic[] = [];
  for (const job of split_jobs(clean_lines(input))) {
    const job_normal = normal(job.cwd);
    const parsed = parse_job(adapters, job.lines, job.target, grammar);
    for (const diagnostic of parsed.records) records.push(normalise(diagnostic, job_normal));
    for (const diagnostic of parsed.json) json.push(normalise(diagnostic, job_normal));
  }
  // After normalising, so a JSON record and a text record of one place compare equal whichever folder each job ran in.
  return json.length === 0 ? records : enrich_with_gcc_json(records, json);
}

/**
 * Any tool's output → signed, de-duplicated records sorted by (file, line, column, code, message): paths
 * normalised against `root`, the build folders and the folder each job ran in before signing, so signatures
 * never see a machine's layout.
 */
export function run_pipeline(adapters: Adapters, input: string, options: ParseOptions): Diagnostic[] {
  const paths: PathContext = { root: options.root, build_dirs: options.build_dirs ?? [] };
  return merge(read(adapters, input, options.from, paths)).sort(order);
}

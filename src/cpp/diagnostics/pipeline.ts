import path from "node:path";
import * as v from "valibot";
import { split_jobs } from "./jobs.js";
import { is_link_build_line, parse_link_build_text } from "./link-build.js";
import { type PathContext, normalise_path } from "./paths.js";
import type { Diagnostic, ParsedDiagnostic, SourceLocation } from "./record.js";
import { family_signature, semantic_signature } from "./signature.js";

export const From = v.picklist(["auto", "gcc", "clang", "ld", "cmake", "ctest-junit", "gtest-json", "sanitizer", "cppcheck-xml"]);
export type From = v.InferOutput<typeof From>;

export interface ParseOptions {
  readonly from: From;
  readonly root: string;
  readonly build_dirs?: readonly string[];
}

type Grammar = (input: string) => ParsedDiagnostic[];

/** The other zones' grammars, passed in so the pipeline is specified apart from them. */
export interface Adapters {
  readonly compiler_text: Grammar;
  readonly junit: Grammar;
  readonly gtest_json: Grammar;
  readonly cppcheck_xml: Grammar;
  readonly sanitizer: Grammar;
  readonly gdb_backtrace: Grammar;
}

// SGR and erase-line (GCC colour), OSC-8 hyperlinks (-fdiagnostics-urls), and CR progress overwrites.
const ESCAPES = /\x1b\[[0-9;?]*[A-Za-z]|\x1b\]8;[^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\][^\x07]*\x07/g;
const SANITIZER_MARK = /^==\d+==ERROR: \w+Sanitizer|^\S+:\d+:\d+: runtime error: |^SUMMARY: \w+Sanitizer/m;
const GDB_MARK = /^#\d+\s+(?:0x[0-9a-f]+ in )?\S+ \(/m;

function clean_text(text: string): string {
  return text
    .replace(ESCAPES, "")
    .split(/\r?\n/)
    .map((line) => line.slice(line.lastIndexOf("\r") + 1))
    .join("\n");
}

function detect(text: string): From {
  const head = text.trimStart().slice(0, 4096);
  // `<command-line>: error: …` is compiler text, so XML needs its declaration or a known root element.
  if (/^<(?:\?xml|results|testsuites?)\b/.test(head)) return head.includes("<results") ? "cppcheck-xml" : "ctest-junit";
  if (head.startsWith("{")) return "gtest-json";
  return "auto";
}

function compiler_part(adapters: Adapters, text: string, from: From): ParsedDiagnostic[] {
  const kept = text
    .split("\n")
    .map((line) => (is_link_build_line(line) ? "" : line))
    .join("\n");
  const parsed = adapters.compiler_text(kept);
  return from === "clang" ? parsed.map((diagnostic) => (diagnostic.source === "gcc" ? { ...diagnostic, source: "clang" } : diagnostic)) : parsed;
}

/** One framed job's text through every text grammar it calls for; the job's target fills what the grammars left open. */
function parse_job(adapters: Adapters, text: string, target: string | null, from: From): ParsedDiagnostic[] {
  const parsed: ParsedDiagnostic[] = [];
  if (from === "auto" || from === "gcc" || from === "clang") parsed.push(...compiler_part(adapters, text, from));
  if (from === "auto" || from === "ld" || from === "cmake") parsed.push(...parse_link_build_text(text));
  if (from === "sanitizer" || (from === "auto" && SANITIZER_MARK.test(text))) parsed.push(...adapters.sanitizer(text));
  if (from === "auto" && GDB_MARK.test(text)) parsed.push(...adapters.gdb_backtrace(text));
  return parsed.map((diagnostic) => ({
    ...diagnostic,
    job: diagnostic.job ?? target,
    context: { ...diagnostic.context, target: diagnostic.context.target ?? target },
  }));
}

function read(adapters: Adapters, input: string, from: From): ParsedDiagnostic[] {
  const kind = from === "auto" ? detect(input) : from;
  if (kind === "ctest-junit") return adapters.junit(input);
  if (kind === "gtest-json") return adapters.gtest_json(input);
  if (kind === "cppcheck-xml") return adapters.cppcheck_xml(input);
  return split_jobs(clean_text(input)).flatMap((job) => parse_job(adapters, job.text, job.target, kind));
}

function normalise_location<T extends SourceLocation>(location: T, paths: PathContext): T {
  return location.file === null ? location : { ...location, file: normalise_path(location.file, paths) };
}

function normalise(diagnostic: ParsedDiagnostic, paths: PathContext): ParsedDiagnostic {
  const { context } = diagnostic;
  return {
    ...normalise_location(diagnostic, paths),
    children: diagnostic.children.map((child) => normalise_location(child, paths)),
    context: {
      ...context,
      include_chain: context.include_chain.map((step) => normalise_location(step, paths)),
      instantiation: context.instantiation.map((step) => normalise_location(step, paths)),
    },
    fixits: diagnostic.fixits.map((fixit) => ({ ...fixit, file: normalise_path(fixit.file, paths) })),
    frames: diagnostic.frames.map((frame) => normalise_location(frame, paths)),
    // A job named by an absolute path (a translation unit) is a place too: moved, the project lists the same occurrences.
    job: diagnostic.job !== null && path.isAbsolute(diagnostic.job) ? normalise_path(diagnostic.job, paths) : diagnostic.job,
  };
}

/** What makes two records the same across jobs: everything but the job, its target and how the job reached the file. */
function identity(diagnostic: ParsedDiagnostic): string {
  const { job: _job, context, ...rest } = diagnostic;
  return JSON.stringify([rest, context.function, context.instantiation]);
}

function compare_text(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Within a group only the job, its target and the include chain differ, so they alone order its members. */
function before(a: ParsedDiagnostic, b: ParsedDiagnostic): boolean {
  const rest = (d: ParsedDiagnostic): string => JSON.stringify([d.context.target, d.context.include_chain]);
  return (compare_text(a.job ?? "", b.job ?? "") || compare_text(rest(a), rest(b))) < 0;
}

/** Identical records merge; the one kept is the first by job name, so job order in the log never shows. */
function merge(parsed: readonly ParsedDiagnostic[]): Diagnostic[] {
  const groups = new Map<string, ParsedDiagnostic[]>();
  for (const diagnostic of parsed) {
    const key = identity(diagnostic);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [diagnostic]);
    else group.push(diagnostic);
  }
  return [...groups.values()].map((group) => {
    const kept = group.reduce((best, candidate) => (before(candidate, best) ? candidate : best));
    const occurrences = [...new Set(group.flatMap((d) => (d.job === null ? [] : [d.job])))].sort(compare_text);
    const { job: _job, ...record } = kept;
    return { ...record, occurrences, semantic_signature: semantic_signature(kept), family_signature: family_signature(kept) };
  });
}

function order(a: Diagnostic, b: Diagnostic): number {
  return (
    compare_text(a.file ?? "", b.file ?? "") ||
    (a.line ?? 0) - (b.line ?? 0) ||
    (a.column ?? 0) - (b.column ?? 0) ||
    compare_text(a.code ?? "", b.code ?? "") ||
    compare_text(a.message, b.message) ||
    compare_text(JSON.stringify(a), JSON.stringify(b))
  );
}

/**
 * Any tool's output → signed, de-duplicated records sorted by (file, line, column, code, message): paths
 * normalised against `root` and the build folders before signing, so signatures never see a machine's layout.
 */
export function run_pipeline(adapters: Adapters, input: string, options: ParseOptions): Diagnostic[] {
  const paths: PathContext = { root: options.root, build_dirs: options.build_dirs ?? [] };
  const parsed = read(adapters, input, options.from).map((diagnostic) => normalise(diagnostic, paths));
  return merge(parsed).sort(order);
}

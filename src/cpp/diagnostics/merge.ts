import path from "node:path";
import { type PathContext, normalise_path } from "./paths.js";
import type { Diagnostic, ParsedDiagnostic, SourceLocation } from "./record.js";
import { signer } from "./signature.js";

/** `normalise_path` remembered per run: a log names the same few files thousands of times. */
export function path_normaliser(paths: PathContext): (printed: string) => string {
  const seen = new Map<string, string>();
  return (printed) => {
    let normal = seen.get(printed);
    if (normal === undefined) {
      normal = normalise_path(printed, paths);
      seen.set(printed, normal);
    }
    return normal;
  };
}

type Normaliser = (printed: string) => string;

function normalise_location<T extends SourceLocation>(location: T, normal: Normaliser): T {
  return location.file === null ? location : { ...location, file: normal(location.file) };
}

/** A job named by a path (an absolute one, or the translation unit the compiler printed), not by a build target. */
function job_is_place(diagnostic: ParsedDiagnostic): boolean {
  const { job } = diagnostic;
  if (job === null) return false;
  return path.isAbsolute(job) || job === diagnostic.file || job === diagnostic.context.include_chain.at(-1)?.file;
}

/** Every place in a record made repo-relative (or `<sys>`/`<build>`), before signing. */
export function normalise(diagnostic: ParsedDiagnostic, normal: Normaliser): ParsedDiagnostic {
  const { context } = diagnostic;
  return {
    ...normalise_location(diagnostic, normal),
    children: diagnostic.children.map((child) => normalise_location(child, normal)),
    context: {
      ...context,
      include_chain: context.include_chain.map((step) => normalise_location(step, normal)),
      instantiation: context.instantiation.map((step) => normalise_location(step, normal)),
    },
    fixits: diagnostic.fixits.map((fixit) => ({ ...fixit, file: normal(fixit.file) })),
    frames: diagnostic.frames.map((frame) => normalise_location(frame, normal)),
    // A job named by a path is a place too: moved, the project lists the same occurrences.
    job: job_is_place(diagnostic) && diagnostic.job !== null ? normal(diagnostic.job) : diagnostic.job,
  };
}

/** What makes two records the same across jobs: everything but the job, its target and how the job reached the file. */
function identity(diagnostic: ParsedDiagnostic): string {
  const { severity, file, line, column, code, message, source, children, fixits, frames, context } = diagnostic;
  // Most records have no children, fix-its, frames or instantiation: their key is a plain join, not a JSON walk.
  const nested =
    children.length + fixits.length + frames.length + context.instantiation.length === 0
      ? ""
      : JSON.stringify([children, fixits, frames, context.instantiation]);
  return [severity, file ?? "\u0001", line ?? 0, column ?? 0, code ?? "\u0001", message, source, context.function ?? "\u0001", nested].join("\u0000");
}

function compare_text(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function include_key(diagnostic: ParsedDiagnostic): string {
  return diagnostic.context.include_chain.length === 0 ? "" : JSON.stringify(diagnostic.context.include_chain);
}

/** Within a group only the job, its target and the include chain differ, so they alone order its members. */
function before(a: ParsedDiagnostic, b: ParsedDiagnostic): boolean {
  return (
    (compare_text(a.job ?? "", b.job ?? "") || compare_text(a.context.target ?? "", b.context.target ?? "") || compare_text(include_key(a), include_key(b))) < 0
  );
}

/** Identical records merge; the one kept is the first by job name, so job order in the log never shows. */
export function merge(parsed: readonly ParsedDiagnostic[]): Diagnostic[] {
  const groups = new Map<string, ParsedDiagnostic[]>();
  for (const diagnostic of parsed) {
    const key = identity(diagnostic);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [diagnostic]);
    else group.push(diagnostic);
  }
  const sign = signer();
  return [...groups.values()].map((group) => {
    const kept = group.reduce((best, candidate) => (before(candidate, best) ? candidate : best));
    const occurrences = [...new Set(group.flatMap((d) => (d.job === null ? [] : [d.job])))].sort(compare_text);
    const { semantic_signature, family_signature } = sign(kept);
    // One literal in the record's field order: no rest-and-spread copies of every record.
    return {
      severity: kept.severity,
      file: kept.file,
      line: kept.line,
      column: kept.column,
      code: kept.code,
      message: kept.message,
      source: kept.source,
      children: kept.children,
      context: kept.context,
      fixits: kept.fixits,
      frames: kept.frames,
      occurrences,
      semantic_signature,
      family_signature,
    };
  });
}

export function order(a: Diagnostic, b: Diagnostic): number {
  return (
    compare_text(a.file ?? "", b.file ?? "") ||
    (a.line ?? 0) - (b.line ?? 0) ||
    (a.column ?? 0) - (b.column ?? 0) ||
    compare_text(a.code ?? "", b.code ?? "") ||
    compare_text(a.message, b.message) ||
    compare_text(JSON.stringify(a), JSON.stringify(b))
  );
}

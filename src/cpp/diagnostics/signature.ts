import { createHash } from "node:crypto";
import type { DiagnosticSource, Frame, ParsedDiagnostic, Severity } from "./record.js";

/** Bumped whenever a canonical string below changes, so stored signatures of an older algorithm never collide. */
const SIGNATURE_VERSION = "sig/v1";

/** A message with its variable parts masked, and the quoted spans it masked (the candidate anchor symbols). */
export interface MessageTemplate {
  readonly template: string;
  readonly symbols: readonly string[];
}

// GCC quotes ‘x’ (or 'x' under LC_ALL=C), ld quotes `x', Clang and gold 'x'.
const QUOTED = /‘([^’]*)’|`([^'`]*)'|'([^'\n]*)'|"([^"\n]*)"/g;
const WITH_CLAUSE = /\s*\[with [^\]]*\]/g;
const AKA_CLAUSE = /\s*\{aka [^}]*\}/g;
const TEMP_OBJECT = /(?:\/tmp|\/var\/tmp|<tmp>)\/[\w.-]+/g;
const SECTION_OFFSET = /\(\.[\w.]+\+0x[0-9a-f]+\)/gi;
const PID = /==\d+==/g;
const HEX = /\b0x[0-9a-f]+\b/gi;
const NUMBER = /\b\d+\b/g;

/** Sentry's rule: template arguments collapse to `<T>`, so `vector<int>` and `vector<long>` share a template. */
function collapse_template_arguments(text: string): string {
  let depth = 0;
  let out = "";
  for (const char of text) {
    if (char === "<") {
      if (depth === 0) out += "<T>";
      depth += 1;
    } else if (char === ">" && depth > 0) {
      depth -= 1;
    } else if (depth === 0) {
      out += char;
    }
  }
  return depth === 0 ? out : text;
}

function collapse_spaces(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The volatile parts of a symbol (temp names, addresses, `[with …]`) removed; the parameter list kept, so overloads differ. */
function clean_symbol(symbol: string): string {
  return collapse_spaces(symbol.replace(WITH_CLAUSE, "").replace(AKA_CLAUSE, "").replace(TEMP_OBJECT, "<tmp>").replace(HEX, "0x"));
}

export function message_template(message: string): MessageTemplate {
  const symbols: string[] = [];
  const masked = message
    .replace(WITH_CLAUSE, "")
    .replace(AKA_CLAUSE, "")
    .replace(QUOTED, (...groups: unknown[]) => {
      const inner = groups.slice(1, 5).find((group) => typeof group === "string");
      if (typeof inner === "string") symbols.push(clean_symbol(inner));
      return "{q}";
    })
    .replace(TEMP_OBJECT, "{tmp}")
    .replace(SECTION_OFFSET, "({section})")
    .replace(PID, "=={pid}==")
    .replace(HEX, "{hex}")
    .replace(NUMBER, "{n}");
  return { template: collapse_spaces(collapse_template_arguments(masked)), symbols };
}

/** Compilers of one language are one family: a GCC and a Clang run of the same project report the same kind of failure. */
function tool_family(source: DiagnosticSource): string {
  switch (source) {
    case "gcc":
    case "clang":
      return "cxx";
    case "make":
    case "ninja":
      return "build";
    case "ctest-junit":
    case "gtest-json":
    case "gtest":
      return "test";
    case "sanitizer":
    case "gdb":
      return "crash";
    default:
      return source;
  }
}

function severity_class(severity: Severity): string {
  if (severity === "fatal" || severity === "error") return "error";
  return severity === "warning" ? "warning" : "info";
}

function hash(parts: readonly string[]): string {
  // A NUL never appears in a decoded message, so joined parts cannot run into each other.
  return `${SIGNATURE_VERSION}:${createHash("sha256").update(parts.join("\0")).digest("hex")}`;
}

/** Sentry's native trimming: no argument list, `<T>` for template arguments, no trailing qualifiers, the last name kept. */
export function trim_function_name(name: string): string {
  const without_arguments = collapse_template_arguments(name).replace(/\((?:[^()]|\([^()]*\))*\)/g, "");
  const unqualified = without_arguments.replace(/\s*(const|volatile|&&|&|noexcept)\s*$/g, "").trim();
  const tokens = unqualified.split(/\s+/);
  return tokens[tokens.length - 1] ?? unqualified;
}

function basename(file: string | null): string {
  if (file === null) return "";
  const at = file.lastIndexOf("/");
  return at >= 0 ? file.slice(at + 1) : file;
}

/** The top three frames of the application, runtime and libc frames skipped, as trimmed names and file basenames. */
function frame_anchor(frames: readonly Frame[]): string[] {
  return frames
    .filter((frame) => frame.in_app)
    .slice(0, 3)
    .map((frame) => `${trim_function_name(frame.function ?? "?")}@${basename(frame.file)}`);
}

function family_of(diagnostic: ParsedDiagnostic, template: string): string {
  return hash(["family", tool_family(diagnostic.source), severity_class(diagnostic.severity), diagnostic.code ?? "", template]);
}

function semantic_of(diagnostic: ParsedDiagnostic, family: string, symbols: readonly string[]): string {
  const frames = frame_anchor(diagnostic.frames);
  const anchor = frames.length > 0 ? frames : symbols;
  const enclosing = diagnostic.context.function === null ? "" : trim_function_name(diagnostic.context.function);
  return hash(["semantic", family, diagnostic.file ?? "", enclosing, ...anchor]);
}

/** What kind of failure: the tool family, the severity class, the code and the message template. */
export function family_signature(diagnostic: ParsedDiagnostic): string {
  return family_of(diagnostic, message_template(diagnostic.message).template);
}

/**
 * The root cause: the family, the primary file (already normalised), the anchor symbols and the enclosing
 * function or target — never a line or column, so edits above the error, moved folders and renamed build
 * folders keep it.
 */
export function semantic_signature(diagnostic: ParsedDiagnostic): string {
  return signatures(diagnostic).semantic_signature;
}

export type Signatures = { semantic_signature: string; family_signature: string };

/** Both signatures from one reading of the message. */
function signatures(diagnostic: ParsedDiagnostic, template_of: (message: string) => MessageTemplate = message_template): Signatures {
  const { template, symbols } = template_of(diagnostic.message);
  const family = family_of(diagnostic, template);
  return { semantic_signature: semantic_of(diagnostic, family, symbols), family_signature: family };
}

/** `signatures` for one run: a log repeats the same messages in many files, so each is templated once. */
export function signer(): (diagnostic: ParsedDiagnostic) => Signatures {
  const templates = new Map<string, MessageTemplate>();
  const template_of = (message: string): MessageTemplate => {
    let template = templates.get(message);
    if (template === undefined) {
      template = message_template(message);
      templates.set(message, template);
    }
    return template;
  };
  return (diagnostic) => signatures(diagnostic, template_of);
}

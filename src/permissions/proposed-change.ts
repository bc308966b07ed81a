import fs from "node:fs";
import type { ProposedChange } from "../contracts/events/permission.js";
import type { PathClassification } from "./paths.js";
import { default_redactor } from "./secret-redactor.js";

/**
 * A file's current text as a tool's change preview may see it: the text; `null` when nothing is there; or
 * `undefined` when something is there that is not shown (outside the project, credentials, hard-linked,
 * binary, huge, or not judged by this decision).
 */
export type CurrentText = (path: string) => string | null | undefined;

/** Lines of a proposed change kept in the prompt; the counts are still those of the whole diff. */
const KEPT_LINES = 500;
const KEPT_CHARS = 64 * 1024;
/** Bigger files are not read for a preview: the diff of a rewrite that size is not read on a screen anyway. */
const MAX_PREVIEW_BYTES = 1024 * 1024;

/** Whether a path's content may be read into a prompt (and so into the session's events). */
function shown(c: PathClassification): boolean {
  return c.inside_project && !c.hard_linked && !c.process_link && c.category !== "credential_or_secret" && c.category !== "system_sensitive";
}

function text_of(c: PathClassification): string | null | undefined {
  if (!c.exists) return null;
  if (!shown(c)) return undefined;
  try {
    const stat = fs.statSync(c.real);
    if (!stat.isFile() || stat.size > MAX_PREVIEW_BYTES) return undefined;
    const bytes = fs.readFileSync(c.real);
    if (bytes.subarray(0, 8192).includes(0)) return undefined;
    const text = bytes.toString("utf8");
    return Buffer.from(text, "utf8").equals(bytes) ? text : undefined;
  } catch {
    return undefined;
  }
}

/** The current text of the paths a decision classified, by the path as the tool gave it. */
export function current_text_of(paths: readonly PathClassification[]): CurrentText {
  return (path) => {
    const classification = paths.find((c) => c.input === path);
    return classification === undefined ? undefined : text_of(classification);
  };
}

/** A unified diff as a prompt records it: redacted, counted, and clipped to its first lines. */
export function proposed_change(diff: string): ProposedChange | undefined {
  const lines = default_redactor().redact(diff).replace(/\n$/, "").split("\n");
  if (lines.length === 0 || (lines.length === 1 && lines[0] === "")) return undefined;
  let added = 0;
  let removed = 0;
  for (const line of lines) {
    if (line.startsWith("+") && !line.startsWith("+++")) added += 1;
    else if (line.startsWith("-") && !line.startsWith("---")) removed += 1;
  }
  const kept: string[] = [];
  let chars = 0;
  for (const line of lines.slice(0, KEPT_LINES)) {
    chars += line.length + 1;
    if (chars > KEPT_CHARS) break;
    kept.push(line);
  }
  return { diff: kept.join("\n"), added, removed, lines: lines.length, clipped: kept.length < lines.length };
}

import type { ToolExecution } from "../define.js";
import type { GitResult } from "./run-git.js";

/** Characters of a diff or show returned inline; the whole text goes to an artifact past this. */
const MAX_INLINE_CHARS = 64 * 1024;

export type CappedText = {
  text: string;
  /** The inline text is not all of it (see the artifact, or git's output was cut at its cap). */
  truncated: boolean;
  total_bytes: number;
  artifact_id?: string;
};

/** Git's output inline when small; otherwise its head inline and the whole as a `diff` artifact. */
export function capped_text(execution: ToolExecution, result: GitResult, name: string): CappedText {
  const full = result.stdout.toString("utf8");
  const total_bytes = result.stdout.byteLength;
  if (full.length <= MAX_INLINE_CHARS && !result.truncated) return { text: full, truncated: false, total_bytes };
  let text = full.slice(0, MAX_INLINE_CHARS);
  const cut = text.lastIndexOf("\n");
  if (cut > 0) text = text.slice(0, cut + 1);
  const artifact = execution.artifact({ type: "diff", content: result.stdout, original_name: name, extension: ".diff", mime_type: "text/x-diff" });
  return { text, truncated: true, total_bytes, artifact_id: artifact.id };
}

/** Shell-quotes one word for the equivalent command line the PermissionEngine judges. */
export function shell_quote(word: string): string {
  return /^[A-Za-z0-9_./=:@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

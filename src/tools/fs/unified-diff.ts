import { applyPatch, formatPatch, parsePatch, type StructuredPatch, type StructuredPatchHunk } from "diff";
import { air_failure } from "../../contracts/errors.js";

const DEV_NULL = "/dev/null";

/** The kinds of change a unified diff can make to one file. */
type ChangeKind = "created" | "deleted" | "modified" | "renamed" | "copied";

/** One file's part of a patch, with its paths as the patch names them (the `a/` and `b/` prefixes removed). */
export type FileChange = {
  readonly kind: ChangeKind;
  /** The existing file the hunks apply to (absent when the file is created). */
  readonly source?: string;
  /** The file written (absent when the file is deleted). */
  readonly target?: string;
  readonly hunks: readonly StructuredPatchHunk[];
  readonly parsed: StructuredPatch;
};

/** A hunk that did not apply, 1-based in patch order within its file. */
export type RejectedHunk = { readonly index: number; readonly hunk: StructuredPatchHunk; readonly reason: string };

export type ApplyResult = { ok: true; text: string } | { ok: false; rejected: RejectedHunk[] };

export function patch_error(message: string, metadata: Record<string, string | number> = {}, cause?: unknown) {
  return air_failure(
    {
      kind: "tool_error",
      message,
      retryability: "retryable_after_change",
      user_action: "Send a unified diff (git diff format: --- a/path, +++ b/path, @@ hunks with exact context lines).",
      metadata,
    },
    cause,
  );
}

function name_problem(name: string): string | undefined {
  if (name === "") return "an empty path";
  if (name.includes("\0")) return "a NUL character";
  if (name.endsWith("/")) return "a folder path";
  return undefined;
}

/**
 * Git writes `a/` and `b/` before every path; a plain `diff -u` does not. The prefixes are removed
 * only when both sides carry them (or are /dev/null), as `git apply -p1` would read them.
 */
function paths_of(parsed: StructuredPatch): { old_name?: string; new_name?: string } {
  const { oldFileName: old_name, newFileName: new_name } = parsed;
  const prefixed = (name: string | undefined, prefix: string) => name === DEV_NULL || name?.startsWith(prefix) === true;
  const strip = prefixed(old_name, "a/") && prefixed(new_name, "b/");
  const clean = (name: string | undefined) => (name === undefined || name === DEV_NULL ? undefined : strip ? name.slice(2) : name);
  for (const name of [clean(old_name), clean(new_name)]) {
    const problem = name === undefined ? undefined : name_problem(name);
    if (problem !== undefined) throw patch_error(`the patch names ${problem} (${JSON.stringify(name)}) as a file`);
  }
  return { old_name: clean(old_name), new_name: clean(new_name) };
}

function change_of(parsed: StructuredPatch): FileChange {
  const label = parsed.newFileName ?? parsed.oldFileName ?? "(unnamed)";
  if (parsed.isBinary) throw patch_error(`the patch of ${label} is a binary patch; only text hunks can be applied`, { file: label });
  if (parsed.oldMode !== undefined && parsed.newMode !== undefined && parsed.oldMode !== parsed.newMode) {
    throw patch_error(`the patch changes the mode of ${label}; fs.patch changes content only`, { file: label });
  }
  const { old_name, new_name } = paths_of(parsed);
  const created = parsed.isCreate === true || parsed.oldFileName === DEV_NULL;
  const deleted = parsed.isDelete === true || parsed.newFileName === DEV_NULL;
  const hunks = parsed.hunks;
  if (created && deleted) throw patch_error(`the patch both creates and deletes ${label}`, { file: label });
  if (created && new_name !== undefined) return { kind: "created", target: new_name, hunks, parsed };
  if (deleted && old_name !== undefined) return { kind: "deleted", source: old_name, hunks, parsed };
  if (old_name === undefined || new_name === undefined) throw patch_error(`the patch of ${label} lacks a file name`, { file: label });
  if (old_name !== new_name) {
    if (parsed.isRename !== true && parsed.isCopy !== true) {
      throw patch_error(`the patch names ${old_name} and ${new_name} as the same file; a rename needs git's "rename from"/"rename to" lines`, { file: label });
    }
    return { kind: parsed.isCopy === true ? "copied" : "renamed", source: old_name, target: new_name, hunks, parsed };
  }
  if (hunks.length === 0) throw patch_error(`the patch of ${label} has no hunks`, { file: label });
  return { kind: "modified", source: old_name, target: new_name, hunks, parsed };
}

/**
 * The file changes of a unified diff (git-style, several files). Text that is not a patch, a hunk
 * without its file headers, a binary or mode-only patch, or a file touched twice is an AirError.
 */
export function parse_unified_diff(text: string): FileChange[] {
  let parsed: StructuredPatch[];
  try {
    parsed = parsePatch(text);
  } catch (error) {
    throw patch_error(`the patch cannot be parsed: ${(error as Error).message}`, {}, error);
  }
  const changes: FileChange[] = [];
  for (const entry of parsed) {
    // Prose around and between file sections parses as an empty, nameless section.
    if (entry.oldFileName === undefined && entry.newFileName === undefined && entry.hunks.length === 0) continue;
    if (entry.oldFileName === undefined && entry.newFileName === undefined) throw patch_error("the patch has hunks without ---/+++ file headers");
    changes.push(change_of(entry));
  }
  if (changes.length === 0) throw patch_error("the text contains no file changes (no ---/+++ headers with @@ hunks)");
  const seen = new Set<string>();
  for (const change of changes) {
    for (const name of new Set([change.source, change.target])) {
      if (name === undefined) continue;
      if (seen.has(name)) throw patch_error(`the patch touches ${name} more than once; give each file one section`, { file: name });
      seen.add(name);
    }
  }
  return changes;
}

/** Applies hunks with exact context (fuzz 0); on failure says which hunks did not apply. */
export function apply_hunks(source: string, change: FileChange): ApplyResult {
  if (change.hunks.length === 0) return { ok: true, text: source };
  const whole = applyPatch(source, { ...change.parsed, hunks: [...change.hunks] }, { fuzzFactor: 0 });
  if (whole !== false) return { ok: true, text: whole };
  // Diagnosis: apply hunk by hunk (as `patch` does) to name the ones that fail.
  const rejected: RejectedHunk[] = [];
  let text = source;
  let shift = 0;
  change.hunks.forEach((hunk, index) => {
    const moved = { ...hunk, oldStart: hunk.oldStart + shift, newStart: hunk.newStart + shift };
    const applied = applyPatch(text, { ...change.parsed, hunks: [moved] }, { fuzzFactor: 0 });
    if (applied === false) {
      rejected.push({ index: index + 1, hunk, reason: "its context or removed lines do not match the file" });
      return;
    }
    text = applied;
    shift += hunk.newLines - hunk.oldLines;
  });
  if (rejected.length > 0) return { ok: false, rejected };
  return { ok: false, rejected: change.hunks.map((hunk, index) => ({ index: index + 1, hunk, reason: "the hunks overlap or are out of order" })) };
}

/** The rejected hunks of several files as one patch text (a `.rej` of them all). */
export function format_rejects(rejects: readonly { change: FileChange; rejected: readonly RejectedHunk[] }[]): string {
  return rejects
    .map(({ change, rejected }) =>
      formatPatch({
        oldFileName: change.source === undefined ? DEV_NULL : `a/${change.source}`,
        newFileName: change.target === undefined ? DEV_NULL : `b/${change.target}`,
        oldHeader: undefined,
        newHeader: undefined,
        hunks: rejected.map((entry) => entry.hunk),
      }),
    )
    .join("");
}

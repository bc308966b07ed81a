import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { air_failure, make_air_error } from "../../contracts/errors.js";
import { ArtifactId } from "../../contracts/ids.js";
import { ToolEffects } from "../../contracts/tool.js";
import { define_tool, ToolFailure, type ToolExecution } from "../define.js";
import {
  assert_unchanged_since_read,
  assert_utf8,
  diff_artifact,
  locate,
  MAX_TEXT_BYTES,
  read_text_file,
  sha256_of,
  Sha256Input,
  write_text_atomic,
  type Located,
} from "./common.js";
import { apply_hunks, format_rejects, parse_unified_diff, patch_error, type FileChange, type RejectedHunk } from "./unified-diff.js";

const MAX_FILES = 200;

const FsPatchInput = v.strictObject({
  patch: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(MAX_TEXT_BYTES),
    v.description(
      "A unified diff as `git diff` prints it, of one or more files: `--- a/path` / `+++ b/path` headers, @@ hunks " +
        "whose context and removed lines match the files exactly. `--- /dev/null` creates a file, `+++ /dev/null` deletes one, " +
        "git's `rename from`/`rename to` lines rename one.",
    ),
  ),
  expected_sha256: v.optional(
    v.pipe(
      v.record(v.string(), Sha256Input),
      v.description(
        "Per existing file (its path as the patch names it, without a/ or b/): apply only if its current sha256 is this, instead of a prior fs.read.",
      ),
    ),
  ),
});

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

const FsPatchOutput = v.strictObject({
  files: v.array(
    v.strictObject({
      path: v.string(),
      operation: v.picklist(["created", "deleted", "modified", "renamed", "copied"]),
      /** The file a rename or copy started from. */
      from: v.optional(v.string()),
      /** Absent for a deleted file. */
      sha256: v.optional(v.string()),
      size_bytes: v.optional(Count),
      hunks_applied: Count,
      diff_artifact_id: ArtifactId,
    }),
  ),
  effects: ToolEffects,
});

type FsPatchInput = v.InferOutput<typeof FsPatchInput>;
type FileResult = v.InferInput<typeof FsPatchOutput>["files"][number];

/** The permission declarations and execute all need the parsed patch; parse each input once. */
const parsed_inputs = new WeakMap<FsPatchInput, FileChange[]>();

function changes_of(input: FsPatchInput): FileChange[] {
  let changes = parsed_inputs.get(input);
  if (changes === undefined) {
    changes = parse_unified_diff(input.patch);
    if (changes.length > MAX_FILES) throw patch_error(`the patch changes ${changes.length} files, over the limit of ${MAX_FILES}`);
    parsed_inputs.set(input, changes);
  }
  return changes;
}

/** Every path the patch writes: targets, and the sources it removes or rewrites (a copy only reads its source). */
function written_paths(input: FsPatchInput): string[] {
  const paths = changes_of(input).flatMap((change) => (change.kind === "copied" ? [change.target] : [change.source, change.target]));
  return [...new Set(paths.filter((name): name is string => name !== undefined))];
}

type Existing = { located: Located; text: string; mode: number };

/** One file's change, computed in memory: what it was, what it becomes. */
type Planned = {
  change: FileChange;
  source?: Existing;
  target?: { located: Located; text: string };
  rejected: RejectedHunk[];
};

function read_existing(execution: ToolExecution, name: string, input: FsPatchInput, must_have_read: boolean): Existing {
  const located = locate(execution, name);
  const { bytes, text, utf8 } = read_text_file(located);
  if (must_have_read) {
    const expected = input.expected_sha256?.[name] ?? input.expected_sha256?.[located.display];
    assert_unchanged_since_read(execution, located, sha256_of(bytes), expected);
  }
  assert_utf8(located, utf8);
  return { located, text, mode: fs.statSync(located.real).mode & 0o7777 };
}

function plan_change(execution: ToolExecution, change: FileChange, input: FsPatchInput): Planned {
  const source = change.source === undefined ? undefined : read_existing(execution, change.source, input, change.kind !== "copied");
  const target_located =
    change.target === undefined ? undefined : source !== undefined && change.target === change.source ? source.located : locate(execution, change.target);
  if (target_located !== undefined && target_located !== source?.located && fs.existsSync(target_located.real)) {
    throw patch_error(`${target_located.display} already exists; the patch ${change.kind === "created" ? "creates" : "writes a new file at"} it`, {
      file: target_located.display,
    });
  }
  const applied = apply_hunks(source?.text ?? "", change);
  if (!applied.ok) return { change, source, rejected: applied.rejected };
  if (change.kind === "deleted" && applied.text !== "") {
    const reason = "the hunks do not remove the whole file, so it cannot be deleted";
    return { change, source, rejected: change.hunks.map((hunk, index) => ({ index: index + 1, hunk, reason })) };
  }
  return { change, source, target: target_located === undefined ? undefined : { located: target_located, text: applied.text }, rejected: [] };
}

/** Two names for one real file (`a.txt` and `src/../a.txt`, or a symlink) would make the result depend on order. */
function assert_distinct_files(plans: Planned[]): void {
  const seen = new Set<string>();
  for (const plan of plans) {
    for (const located of new Set([plan.source?.located, plan.target?.located])) {
      if (located === undefined) continue;
      if (seen.has(located.real)) throw patch_error(`the patch touches ${located.display} under two names`, { file: located.display });
      seen.add(located.real);
    }
  }
}

/** Nothing is written when any hunk fails: the rejected hunks become an artifact, named in the error. */
function reject(execution: ToolExecution, plans: Planned[]): never {
  const failed = plans.filter((plan) => plan.rejected.length > 0);
  const rejects = execution.artifact({
    type: "diff",
    content: format_rejects(failed.map((plan) => ({ change: plan.change, rejected: plan.rejected }))),
    original_name: "fs.patch.rej",
    extension: ".rej",
    mime_type: "text/x-diff",
  });
  const files = failed.map((plan) => ({
    path: plan.change.source ?? plan.change.target ?? "",
    hunks: plan.rejected.map((entry) => ({ index: entry.index, old_start: entry.hunk.oldStart, reason: entry.reason })),
  }));
  const summary = files.map((file) => `${file.path} (hunk ${file.hunks.map((hunk) => hunk.index).join(", ")})`).join("; ");
  throw air_failure({
    kind: "tool_error",
    message: `the patch does not apply, nothing was written: ${summary}`,
    retryability: "retryable_after_change",
    user_action: "Read the files again with fs.read and redo the failed hunks with context lines copied exactly; the rejects artifact holds them.",
    metadata: { failed_files: files, rejects_artifact_id: rejects.id },
  });
}

/** Folders `real` needs that do not exist yet, deepest first (removed again on rollback). */
function missing_folders(real: string): string[] {
  const missing: string[] = [];
  for (let folder = path.dirname(real); !fs.existsSync(folder) && path.dirname(folder) !== folder; folder = path.dirname(folder)) missing.push(folder);
  return missing;
}

function remove_empty(folders: string[]): void {
  for (const folder of folders) {
    try {
      fs.rmdirSync(folder);
    } catch {
      // not empty (something else wrote there) or already gone: leave it
    }
  }
}

type Undo = { path: string; run(): void };

/** Writes a file and returns how to put back what was there (nothing, or the old text and mode). */
function write_step(real: string, display: string, text: string, previous: Existing | undefined, mode?: number): Undo {
  const folders = missing_folders(real);
  try {
    write_text_atomic(real, text);
    if (mode !== undefined) fs.chmodSync(real, mode);
  } catch (error) {
    remove_empty(folders);
    throw error;
  }
  return {
    path: display,
    run: () => {
      if (previous === undefined) {
        fs.rmSync(real, { force: true });
        remove_empty(folders);
      } else {
        write_text_atomic(real, previous.text);
      }
    },
  };
}

function remove_step(existing: Existing): Undo {
  fs.rmSync(existing.located.real);
  return {
    path: existing.located.display,
    run: () => {
      write_text_atomic(existing.located.real, existing.text);
      fs.chmodSync(existing.located.real, existing.mode);
    },
  };
}

/** Writes every planned file; when one write fails, the ones already written get their old bytes back. */
function commit(plans: Planned[]): void {
  const done: Undo[] = [];
  try {
    for (const { change, source, target } of plans) {
      if (target !== undefined) {
        const previous = change.kind === "modified" ? source : undefined;
        const mode = change.kind === "renamed" || change.kind === "copied" ? source?.mode : undefined;
        done.push(write_step(target.located.real, target.located.display, target.text, previous, mode));
      }
      if (source !== undefined && (change.kind === "deleted" || change.kind === "renamed")) done.push(remove_step(source));
    }
  } catch (error) {
    const restore_failed: string[] = [];
    for (const undo of done.reverse()) {
      try {
        undo.run();
      } catch {
        restore_failed.push(undo.path);
      }
    }
    // What could not be put back stays changed: the call's effects, though it failed.
    throw new ToolFailure(
      make_air_error({
        kind: restore_failed.length === 0 ? "tool_error" : "system_error",
        message:
          `writing the patched files failed (${(error as Error).message}); ` +
          (restore_failed.length === 0 ? "every file already written was restored" : `restoring ${restore_failed.join(", ")} failed as well`),
        retryability: restore_failed.length === 0 ? "retryable_after_change" : "not_retryable",
        user_action:
          restore_failed.length === 0
            ? "Check that the target folders are writable and the paths are not blocked by files, then apply the patch again."
            : "Inspect the files named in the error (git diff shows what changed) before doing anything else.",
        metadata: { restored: done.map((undo) => undo.path), restore_failed },
      }),
      { changed_files: restore_failed },
      error,
    );
  }
}

/** After a successful commit: read observations of the new content, and a diff artifact + evidence per file. */
function report(execution: ToolExecution, plans: Planned[]): FileResult[] {
  return plans.map(({ change, source, target }) => {
    // biome-ignore lint/style/noNonNullAssertion: every change names a source or a target (parse_unified_diff), and plan_change located each one it names.
    const located = (target ?? source)!.located;
    const after = target?.text ?? "";
    const sha256 = target === undefined ? undefined : sha256_of(after);
    if (sha256 !== undefined) execution.observations.record(located.real, sha256);
    const diff = diff_artifact(execution, located, source?.text, after);
    // biome-ignore lint/style/noNonNullAssertion: a rename or copy names its source (parse_unified_diff), which plan_change read.
    const from = change.kind === "renamed" || change.kind === "copied" ? source!.located.display : undefined;
    execution.evidence({
      kind: "artifact_excerpt",
      ref: diff.uri,
      claim: `${change.kind} ${located.display}${from === undefined ? "" : ` from ${from}`} (fs.patch)`,
      artifact_id: diff.id,
    });
    return {
      path: located.display,
      operation: change.kind,
      ...(from === undefined ? {} : { from }),
      ...(sha256 === undefined ? {} : { sha256, size_bytes: Buffer.byteLength(after) }),
      hunks_applied: change.hunks.length,
      diff_artifact_id: diff.id,
    };
  });
}

export const fs_patch = define_tool({
  name: "fs.patch",
  version: 1,
  description:
    "Apply a unified diff (git diff format) to one or more files, all or nothing: if any hunk of any file does not " +
    "match exactly, no file is written and the rejected hunks are saved as an artifact. Every existing file it changes " +
    "must have been read with fs.read (and be unchanged since) or have its sha256 in expected_sha256. Each change is recorded as a diff artifact.",
  category: "filesystem",
  input: FsPatchInput,
  output: FsPatchOutput,
  permissions: {
    reads: (input) => changes_of(input).flatMap((change) => (change.kind === "copied" && change.source !== undefined ? [change.source] : [])),
    writes: written_paths,
    // The input is already the diff the user is asked about.
    change: (input) => input.patch,
  },
  async execute(input, execution) {
    // Synchronous from the first read to the last rename, like fs.edit: no other call interleaves.
    const plans = changes_of(input).map((change) => plan_change(execution, change, input));
    assert_distinct_files(plans);
    if (plans.some((plan) => plan.rejected.length > 0)) reject(execution, plans);
    commit(plans);
    const files = report(execution, plans);
    // A rename changes two files: the one it removes and the one it writes.
    const changed_files = files.flatMap((file) => (file.operation === "renamed" && file.from !== undefined ? [file.from, file.path] : [file.path]));
    return { files, effects: { changed_files, diff_artifact_ids: files.map((file) => file.diff_artifact_id) } };
  },
});

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createTwoFilesPatch } from "diff";
import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import type { ArtifactRef } from "../../contracts/artifact.js";
import { classify_path, type PathClassification } from "../../permissions/paths.js";
import type { ToolExecution } from "../define.js";

export const PathInput = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(4096),
  v.regex(/^[^\0]*$/, "a path cannot contain a NUL character"),
  v.description("A path relative to the project root, or an absolute path inside the project."),
);

export const Sha256Input = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, "expected a sha256 hex digest"));

/** Text files only, and not huge ones: what a model can sensibly read or edit in one go. */
export const MAX_TEXT_BYTES = 10 * 1024 * 1024;

export function sha256_of(bytes: Uint8Array | string): string {
  return crypto.createHash("sha256").update(bytes).digest("hex");
}

export type Located = PathClassification & { readonly display: string };

/**
 * Where an fs tool's path really is, resolved again at execution time and compared with what the
 * PermissionEngine judged: a symlink swapped in between (to point elsewhere) is refused, not followed.
 */
export function locate(execution: ToolExecution, input: string): Located {
  const classification = classify_path(input, execution.project_root);
  const judged = execution.permission.paths.find((path_judged) => path_judged.input === input);
  if (judged !== undefined && judged.real !== classification.real) {
    throw air_failure({
      kind: "policy_error",
      message: `${input} now resolves to ${classification.real}, not to ${judged.real} as when it was permitted`,
      retryability: "retryable",
      user_action: "Something changed a symlink on this path during the call; check the path and call again.",
      metadata: { path: input, permitted: judged.real, now: classification.real },
    });
  }
  const display = classification.relative !== undefined && classification.relative !== "" ? classification.relative : classification.real;
  return { ...classification, display };
}

function fs_error(message: string, user_action: string, metadata: Record<string, unknown> = {}, cause?: unknown) {
  return air_failure({ kind: "tool_error", message, retryability: "retryable_after_change", user_action, metadata }, cause);
}

/**
 * The file's bytes and text; refuses folders, huge files and binary content. `utf8` is false when the
 * bytes are not valid UTF-8 (the text then holds replacement characters and must not be written back).
 */
export function read_text_file(located: Located): { bytes: Buffer; text: string; utf8: boolean } {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(located.real);
  } catch (error) {
    throw fs_error(`${located.display} does not exist`, "Check the path (fs.list shows what is there).", { path: located.display }, error);
  }
  if (stat.isDirectory()) throw fs_error(`${located.display} is a folder, not a file`, "Use fs.list for folders.", { path: located.display });
  if (!stat.isFile()) throw fs_error(`${located.display} is not a regular file`, "Only regular files can be read or edited.", { path: located.display });
  if (stat.size > MAX_TEXT_BYTES) {
    throw fs_error(
      `${located.display} is ${stat.size} bytes, over the ${MAX_TEXT_BYTES}-byte limit`,
      "Read a smaller file, or inspect it with shell.run (head, grep).",
      { path: located.display },
    );
  }
  const bytes = fs.readFileSync(located.real);
  if (bytes.subarray(0, 8192).includes(0)) {
    throw fs_error(`${located.display} looks binary (it contains NUL bytes)`, "Text tools work on text files only.", { path: located.display });
  }
  const text = bytes.toString("utf8");
  return { bytes, text, utf8: Buffer.from(text, "utf8").equals(bytes) };
}

/** Refuses to rewrite a file whose bytes are not valid UTF-8: its decoded text has lost bytes. */
export function assert_utf8(located: Located, utf8: boolean): void {
  if (!utf8) {
    throw fs_error(
      `${located.display} is not valid UTF-8; rewriting its decoded text would corrupt it`,
      "Convert the file to UTF-8 first (e.g. with iconv through shell.run), or change it with a tool that works on bytes.",
      { path: located.display },
    );
  }
}

/**
 * Read-before-write (seeds 003 §10.9 rule 1): the caller must have read this file and it must not
 * have changed since — or the caller names the sha256 it expects.
 */
export function assert_unchanged_since_read(execution: ToolExecution, located: Located, current_sha256: string, expected_sha256?: string): void {
  if (expected_sha256 !== undefined) {
    if (expected_sha256 !== current_sha256) {
      throw fs_error(
        `${located.display} is not the expected version (sha256 ${current_sha256.slice(0, 12)}…, expected ${expected_sha256.slice(0, 12)}…)`,
        "Read the file again with fs.read and redo the change on its current content.",
        { path: located.display, sha256: current_sha256, expected_sha256 },
      );
    }
    return;
  }
  const observation = execution.observations.get(located.real);
  if (observation === undefined) {
    throw fs_error(`${located.display} has not been read before this change`, "Read the file with fs.read first, then change it.", { path: located.display });
  }
  if (observation.sha256 !== current_sha256) {
    throw fs_error(
      `${located.display} changed since it was read (sha256 ${observation.sha256.slice(0, 12)}… then, ${current_sha256.slice(0, 12)}… now)`,
      "Read the file again with fs.read and redo the change on its current content.",
      { path: located.display, read_sha256: observation.sha256, sha256: current_sha256 },
    );
  }
}

/** Writes `text` atomically (temp + rename in the same folder), keeping an existing file's mode. */
export function write_text_atomic(real: string, text: string): { sha256: string; size_bytes: number } {
  let mode: number | undefined;
  try {
    mode = fs.statSync(real).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  fs.mkdirSync(path.dirname(real), { recursive: true });
  const bytes = Buffer.from(text, "utf8");
  const temp = path.join(path.dirname(real), `.${path.basename(real)}.air-${process.pid}-${crypto.randomUUID()}.tmp`);
  const fd = fs.openSync(temp, "wx", mode ?? 0o644);
  try {
    try {
      fs.writeFileSync(fd, bytes);
      if (mode !== undefined) fs.fchmodSync(fd, mode);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, real);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  return { sha256: sha256_of(bytes), size_bytes: bytes.byteLength };
}

/** A unified diff of one file, git-style; `before` undefined means the file is created. `note` labels the old side. */
export function unified_diff(name: string, before: string | undefined, after: string, note?: string): string {
  return createTwoFilesPatch(before === undefined ? "/dev/null" : `a/${name}`, `b/${name}`, before ?? "", after, note, undefined, { context: 3 });
}

/** A unified diff of one file as a `diff` artifact linked to the tool run. */
export function diff_artifact(execution: ToolExecution, located: Located, before: string | undefined, after: string): ArtifactRef {
  const name = located.relative ?? located.real;
  const patch = unified_diff(name, before, after);
  return execution.artifact({
    type: "diff",
    content: patch,
    original_name: `${path.basename(located.real)}.diff`,
    extension: ".diff",
    mime_type: "text/x-diff",
    entity: { type: "file", id: name },
  });
}

import fs from "node:fs";
import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import { ArtifactId } from "../../contracts/ids.js";
import { ToolEffects } from "../../contracts/tool.js";
import type { CurrentText } from "../../permissions/proposed-change.js";
import { define_tool } from "../define.js";
import {
  assert_unchanged_since_read,
  diff_artifact,
  locate,
  MAX_TEXT_BYTES,
  PathInput,
  read_text_file,
  sha256_of,
  Sha256Input,
  unified_diff,
  write_text_atomic,
} from "./common.js";

const FsWriteInput = v.strictObject({
  path: PathInput,
  content: v.pipe(v.string(), v.maxLength(MAX_TEXT_BYTES), v.description("The whole new content of the file.")),
  expected_sha256: v.optional(v.pipe(Sha256Input, v.description("Overwrite only if the file's current sha256 is this (instead of a prior fs.read)."))),
});

const FsWriteOutput = v.strictObject({
  path: v.string(),
  created: v.boolean(),
  changed: v.boolean(),
  sha256: v.string(),
  size_bytes: v.pipe(v.number(), v.integer(), v.minValue(0)),
  diff_artifact_id: v.optional(ArtifactId),
  effects: ToolEffects,
});

/** The write as the user is asked about it: against the file's text, nothing for a new file, or a note when its text is not shown. */
function write_preview(input: v.InferOutput<typeof FsWriteInput>, current: CurrentText): string {
  const text = current(input.path);
  if (text === undefined) return unified_diff(input.path, "", input.content, "current content not shown");
  return unified_diff(input.path, text ?? undefined, input.content);
}

export const fs_write = define_tool({
  name: "fs.write",
  version: 1,
  description:
    "Create a file, or replace a file's whole content. Overwriting an existing file requires that you read it " +
    "with fs.read first and that it has not changed since. Written atomically; the change is recorded as a diff.",
  category: "filesystem",
  input: FsWriteInput,
  output: FsWriteOutput,
  permissions: { writes: (input) => [input.path], change: write_preview },
  async execute(input, execution) {
    const located = locate(execution, input.path);
    let before: string | undefined;
    if (fs.existsSync(located.real)) {
      const current = read_text_file(located);
      assert_unchanged_since_read(execution, located, sha256_of(current.bytes), input.expected_sha256);
      before = current.text;
    } else if (input.expected_sha256 !== undefined) {
      throw air_failure({
        kind: "tool_error",
        message: `${located.display} does not exist, but a sha256 of its current content was expected`,
        retryability: "retryable_after_change",
        user_action: "Drop expected_sha256 to create the file, or check the path.",
        metadata: { path: located.display },
      });
    }
    if (before === input.content) {
      return { path: located.display, created: false, changed: false, sha256: sha256_of(before), size_bytes: Buffer.byteLength(before), effects: {} };
    }
    const written = write_text_atomic(located.real, input.content);
    execution.observations.record(located.real, written.sha256);
    const diff = diff_artifact(execution, located, before, input.content);
    execution.evidence({
      kind: "artifact_excerpt",
      ref: diff.uri,
      claim: `${before === undefined ? "created" : "rewrote"} ${located.display}`,
      artifact_id: diff.id,
    });
    return {
      path: located.display,
      created: before === undefined,
      changed: true,
      sha256: written.sha256,
      size_bytes: written.size_bytes,
      diff_artifact_id: diff.id,
      effects: { changed_files: [located.display], diff_artifact_ids: [diff.id] },
    };
  },
});

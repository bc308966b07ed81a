import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import { ArtifactId } from "../../contracts/ids.js";
import { ToolEffects } from "../../contracts/tool.js";
import type { CurrentText } from "../../permissions/proposed-change.js";
import { define_tool } from "../define.js";
import {
  assert_unchanged_since_read,
  assert_utf8,
  diff_artifact,
  locate,
  PathInput,
  read_text_file,
  sha256_of,
  Sha256Input,
  unified_diff,
  write_text_atomic,
} from "./common.js";

const FsEditInput = v.strictObject({
  path: PathInput,
  old_string: v.pipe(v.string(), v.minLength(1), v.description("The exact text to replace (whitespace and indentation included).")),
  new_string: v.pipe(v.string(), v.description("The text that replaces it.")),
  replace_all: v.optional(v.pipe(v.boolean(), v.description("Replace every occurrence; otherwise old_string must occur exactly once.")), false),
  expected_sha256: v.optional(v.pipe(Sha256Input, v.description("Edit only if the file's current sha256 is this (instead of a prior fs.read)."))),
});

const FsEditOutput = v.strictObject({
  path: v.string(),
  replacements: v.pipe(v.number(), v.integer(), v.minValue(1)),
  sha256: v.string(),
  size_bytes: v.pipe(v.number(), v.integer(), v.minValue(0)),
  diff_artifact_id: ArtifactId,
  effects: ToolEffects,
});

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + needle.length)) count += 1;
  return count;
}

type EditInput = v.InferOutput<typeof FsEditInput>;

/** `text` with the edit made (every occurrence with replace_all, else the first). */
function edited(text: string, input: EditInput): string {
  if (input.replace_all) return text.split(input.old_string).join(input.new_string);
  const index = text.indexOf(input.old_string);
  return text.slice(0, index) + input.new_string + text.slice(index + input.old_string.length);
}

/**
 * The edit as the user is asked about it: the file's diff when its text is shown and the edit applies, else
 * old_string against new_string (the call itself then says why the edit does not apply).
 */
function edit_preview(input: EditInput, current: CurrentText): string {
  const text = current(input.path);
  const count = typeof text === "string" ? occurrences(text, input.old_string) : 0;
  if (typeof text === "string" && (count === 1 || (count > 1 && input.replace_all))) return unified_diff(input.path, text, edited(text, input));
  return unified_diff(input.path, input.old_string, input.new_string, "excerpt");
}

function edit_error(message: string, user_action: string, metadata: Record<string, unknown>) {
  return air_failure({ kind: "tool_error", message, retryability: "retryable_after_change", user_action, metadata });
}

export const fs_edit = define_tool({
  name: "fs.edit",
  version: 1,
  description:
    "Replace an exact string in a file you have read with fs.read (and that has not changed since). old_string " +
    "must occur exactly once unless replace_all is true. Written atomically; the change is recorded as a diff artifact.",
  category: "filesystem",
  input: FsEditInput,
  output: FsEditOutput,
  permissions: { writes: (input) => [input.path], change: edit_preview },
  async execute(input, execution) {
    if (input.old_string === input.new_string) {
      throw edit_error("old_string and new_string are the same; there is nothing to change", "Give the text that should replace old_string.", {});
    }
    // Everything from the check to the rename is synchronous: no other call can change the file in between.
    const located = locate(execution, input.path);
    const { bytes, text, utf8 } = read_text_file(located);
    assert_unchanged_since_read(execution, located, sha256_of(bytes), input.expected_sha256);
    assert_utf8(located, utf8);
    const count = occurrences(text, input.old_string);
    if (count === 0) {
      throw edit_error(
        `old_string was not found in ${located.display}`,
        "Copy old_string exactly from the file as fs.read returned it, including whitespace.",
        {
          path: located.display,
        },
      );
    }
    if (count > 1 && !input.replace_all) {
      throw edit_error(
        `old_string occurs ${count} times in ${located.display}; it must be unique`,
        "Include more surrounding text to make old_string unique, or set replace_all to replace every occurrence.",
        { path: located.display, occurrences: count },
      );
    }
    const after = edited(text, input);
    const written = write_text_atomic(located.real, after);
    execution.observations.record(located.real, written.sha256);
    const diff = diff_artifact(execution, located, text, after);
    execution.evidence({
      kind: "artifact_excerpt",
      ref: diff.uri,
      claim: `edited ${located.display} (${count} replacement${count === 1 ? "" : "s"})`,
      artifact_id: diff.id,
    });
    return {
      path: located.display,
      replacements: input.replace_all ? count : 1,
      sha256: written.sha256,
      size_bytes: written.size_bytes,
      diff_artifact_id: diff.id,
      effects: { changed_files: [located.display], diff_artifact_ids: [diff.id] },
    };
  },
});

import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import { fold_segment } from "../../permissions/paths.js";
import { define_tool } from "../define.js";
import { locate, PathInput } from "./common.js";

const MAX_ENTRIES = 2000;
/** Listed but never descended into: git internals and dependency trees are noise for a model. */
const NOT_DESCENDED = new Set([".git", "node_modules"]);

const FsListInput = v.strictObject({
  path: v.optional(PathInput, "."),
  depth: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10), v.description("How many folder levels to list (default 1: the folder's own entries).")),
    1,
  ),
});

const EntryType = v.picklist(["file", "directory", "symlink", "other"]);

const FsListOutput = v.strictObject({
  path: v.string(),
  entries: v.array(
    v.strictObject({
      path: v.string(),
      type: EntryType,
      size_bytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
    }),
  ),
  truncated: v.boolean(),
});

type Entry = v.InferOutput<typeof FsListOutput>["entries"][number];

function type_of(entry: fs.Dirent): Entry["type"] {
  if (entry.isSymbolicLink()) return "symlink";
  if (entry.isDirectory()) return "directory";
  if (entry.isFile()) return "file";
  return "other";
}

export const fs_list = define_tool({
  name: "fs.list",
  version: 1,
  description:
    "List a folder of the project: each entry's path (relative to the project root), type and size. " +
    "depth > 1 also lists sub-folders that many levels down (symlinks, .git and node_modules are not followed).",
  category: "filesystem",
  input: FsListInput,
  output: FsListOutput,
  permissions: { reads: (input) => [input.path] },
  async execute(input, execution) {
    const located = locate(execution, input.path);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(located.real);
    } catch (error) {
      throw air_failure(
        {
          kind: "tool_error",
          message: `${located.display} does not exist`,
          retryability: "retryable_after_change",
          user_action: "Check the path.",
          metadata: { path: located.display },
        },
        error,
      );
    }
    if (!stat.isDirectory()) {
      throw air_failure({
        kind: "tool_error",
        message: `${located.display} is not a folder`,
        retryability: "retryable_after_change",
        user_action: "Use fs.read for files.",
        metadata: { path: located.display },
      });
    }
    const entries: Entry[] = [];
    let truncated = false;
    const name_of = (absolute: string) => {
      const relative = path.relative(located.real, absolute).split(path.sep).join("/");
      return located.relative !== undefined ? [located.relative, relative].filter((part) => part !== "").join("/") : absolute;
    };
    const walk = (folder: string, level: number) => {
      const children = fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const child of children) {
        if (entries.length >= MAX_ENTRIES) {
          truncated = true;
          return;
        }
        const absolute = path.join(folder, child.name);
        const type = type_of(child);
        const entry: Entry = { path: name_of(absolute), type };
        if (type === "file") {
          try {
            entry.size_bytes = fs.statSync(absolute).size;
          } catch {
            // vanished between readdir and stat
          }
        }
        entries.push(entry);
        if (type === "directory" && level < input.depth && !NOT_DESCENDED.has(fold_segment(child.name))) walk(absolute, level + 1);
      }
    };
    walk(located.real, 1);
    return { path: located.relative === "" ? "." : located.display, entries, truncated };
  },
});

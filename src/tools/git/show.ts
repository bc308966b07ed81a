import * as v from "valibot";
import { ArtifactId } from "../../contracts/ids.js";
import { define_tool } from "../define.js";
import { PathInput } from "../fs/common.js";
import { DIFF_HARDENING } from "./diff.js";
import { capped_text } from "./output.js";
import { git_in, open_repo, pathspecs, RevInput } from "./repo.js";
import { git_failure } from "./run-git.js";

const GitShowInput = v.strictObject({
  rev: v.optional(RevInput, "HEAD"),
  path: v.optional(v.pipe(PathInput, v.description("Show this file (or folder listing) as it is in rev, instead of the commit."))),
  stat_only: v.optional(v.pipe(v.boolean(), v.description("For a commit: the message and changed-file summary without the patch.")), false),
});

const GitShowOutput = v.strictObject({
  object: v.string(),
  text: v.string(),
  /** The object is a binary file: `text` is empty. */
  binary: v.boolean(),
  truncated: v.boolean(),
  total_bytes: v.number(),
  artifact_id: v.optional(ArtifactId),
});

export const git_show = define_tool({
  name: "git.show",
  version: 1,
  description:
    "Show a commit of the project (message, changed-file summary and patch; stat_only for no patch), or with " +
    "path a file as it is in rev. Long output: the head inline, the whole as an artifact.",
  category: "project",
  input: GitShowInput,
  output: GitShowOutput,
  permissions: { reads: (input) => [input.path ?? "."] },
  async execute(input, execution) {
    const [spec] = input.path === undefined ? [] : pathspecs(execution, [input.path]);
    // `rev:./path` names the path relative to git's working folder, the project root.
    const object = spec === undefined ? input.rev : `${input.rev}:./${spec === "." ? "" : spec}`;
    const repo = await open_repo(execution);
    const shape = spec !== undefined ? [] : ["--format=fuller", "--stat", ...(input.stat_only ? [] : ["--patch"])];
    const args = ["show", ...DIFF_HARDENING, "--no-show-signature", ...shape, "--end-of-options", object];
    const result = await git_in(repo, args);
    if (result.code !== 0) throw git_failure(args, result, "Check the revision (git.log lists commits) and that the path exists in it.");
    if (spec !== undefined && result.stdout.subarray(0, 8192).includes(0)) {
      return { object, text: "", binary: true, truncated: false, total_bytes: result.stdout.byteLength };
    }
    const text = capped_text(execution, result, "git.show");
    return {
      object,
      text: text.text,
      binary: false,
      truncated: text.truncated,
      total_bytes: text.total_bytes,
      ...(text.artifact_id === undefined ? {} : { artifact_id: text.artifact_id }),
    };
  },
});

import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { air_failure } from "../contracts/errors.js";
import { ArtifactId } from "../contracts/ids.js";
import { ToolEffects } from "../contracts/tool.js";
import { define_tool } from "../tools/define.js";
import { diff_artifact, locate, MAX_TEXT_BYTES, read_text_file, sha256_of, write_text_atomic } from "../tools/fs/common.js";

export const PLAN_WRITE_TOOL = "plan.write";
const PLAN_PREFIX = ".air/shared/plan/";

/** A document path relative to `.air/shared/plan/` (or starting with it), kept inside it. */
const PlanPath = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(1024),
  // Relative, `/`-separated parts that are neither empty, `.` nor `..`: the document stays inside the plan folder.
  v.regex(/^(?!\.\.?(?:\/|$))[^/\\\0]+(?:\/(?!\.\.?(?:\/|$))[^/\\\0]+)*$/, "a relative path under .air/shared/plan/ without empty, . or .. parts"),
);

/** The document's path from the project root. */
const in_plan = (name: string): string => (name.startsWith(PLAN_PREFIX) ? name : `${PLAN_PREFIX}${name}`);

const PlanWriteInput = v.strictObject({
  path: PlanPath,
  content: v.pipe(v.string(), v.maxLength(MAX_TEXT_BYTES)),
});

const PlanWriteOutput = v.strictObject({
  path: v.string(),
  created: v.boolean(),
  changed: v.boolean(),
  sha256: v.string(),
  diff_artifact_id: v.optional(ArtifactId),
  effects: ToolEffects,
});

/**
 * `plan.write`: how a confirmed plan update of the Architecture Designer reaches `.air/shared/plan/` (seeds 000
 * §19.4: through the ToolRegistry and the PermissionEngine). Internal: never offered to a model, so no worker or
 * Main Agent turn writes the plan; the engine lets only such tools write there.
 */
export const plan_write_tool = define_tool({
  name: PLAN_WRITE_TOOL,
  version: 1,
  description: "Internal: writes one document of the project's plan under .air/shared/plan/, recorded as a diff.",
  category: "internal",
  input: PlanWriteInput,
  output: PlanWriteOutput,
  permissions: { writes: (input) => [in_plan(input.path)] },
  async execute(input, execution) {
    const located = locate(execution, in_plan(input.path));
    const before = fs.existsSync(located.real) ? read_text_file(located) : undefined;
    if (before !== undefined && !before.utf8) {
      throw air_failure({
        kind: "tool_error",
        message: `${located.display} is not UTF-8 text; the plan update would lose its bytes`,
        retryability: "not_retryable",
        user_action: "Convert the document to UTF-8 text, or remove it.",
        metadata: { path: located.display },
      });
    }
    if (before?.text === input.content) {
      return { path: located.display, created: false, changed: false, sha256: sha256_of(input.content), effects: {} };
    }
    fs.mkdirSync(path.dirname(located.real), { recursive: true });
    const written = write_text_atomic(located.real, input.content);
    const diff = diff_artifact(execution, located, before?.text, input.content);
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
      diff_artifact_id: diff.id,
      effects: { changed_files: [located.display], diff_artifact_ids: [diff.id] },
    };
  },
});

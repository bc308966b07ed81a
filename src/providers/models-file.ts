import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import YAML from "yaml";
import { air_failure, type AirFailure } from "../contracts/errors.js";

const NonEmpty = v.pipe(v.string(), v.minLength(1));

/** `~/.air/models.yaml`. Strict: a misspelt key is reported, not ignored. */
export const ModelsFile = v.strictObject({
  default_model: v.optional(NonEmpty),
  providers: v.optional(v.strictObject({
    anthropic: v.optional(v.strictObject({
      api_key: v.optional(NonEmpty),
      base_url: v.optional(v.pipe(v.string(), v.url())),
    })),
  })),
});
export type ModelsFile = v.InferOutput<typeof ModelsFile>;

export const MODELS_FILE_EXAMPLE = [
  "default_model: claude-sonnet-4-5",
  "providers:",
  "  anthropic:",
  "    api_key: sk-ant-...",
  "    base_url: https://api.anthropic.com   # optional: an Anthropic-compatible server",
].join("\n");

export function models_file_path(home: string): string {
  return path.join(home, "models.yaml");
}

function invalid(file: string, why: string, cause?: unknown): AirFailure {
  return air_failure({
    kind: "user_error",
    message: `${file} is invalid: ${why}`,
    retryability: "not_retryable",
    user_action: `Fix or remove ${file}. It should look like:\n\n${MODELS_FILE_EXAMPLE}\n`,
    metadata: { file },
  }, cause);
}

/**
 * Where an issue is and what was expected — never the value received: it could be a key.
 * (YAML errors likewise keep their first line only; the rest quotes the source.)
 */
function describe(issue: v.BaseIssue<unknown>): string {
  const where = issue.path?.map((item) => String(item.key)).join(".") || "(top level)";
  if (issue.expected === "never") return `${where}: unknown key`;
  return `${where}: expected ${issue.expected ?? "a valid value"}`;
}

/** The parsed file, or undefined when there is none. A file that is there but broken is an error. */
export function read_models_file(file: string): ModelsFile | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw air_failure({
      kind: "user_error",
      message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      retryability: "not_retryable",
      user_action: `Make ${file} a readable file, or remove it.`,
      metadata: { file },
    }, error);
  }
  // parseDocument rather than parse: errors are collected instead of thrown, warnings are not printed.
  const document = YAML.parseDocument(text);
  const first_error = document.errors[0];
  if (first_error !== undefined) {
    throw invalid(file, `it is not valid YAML: ${first_error.message.split("\n")[0]!.replace(/:$/, "")}`);
  }
  const value: unknown = document.toJS() ?? {};
  // valibot's object schemas take an array for an object with keys "0", "1", …; say what is wrong instead.
  if (typeof value !== "object" || Array.isArray(value)) throw invalid(file, "it must be a mapping (key: value lines) at the top level");
  const parsed = v.safeParse(ModelsFile, value);
  if (!parsed.success) throw invalid(file, parsed.issues.map(describe).join("; "));
  return parsed.output;
}

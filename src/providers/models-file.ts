import path from "node:path";
import * as v from "valibot";
import { read_yaml_file } from "../project/yaml-file.js";

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

/** The parsed file, or undefined when there is none. A file that is there but broken is an error. */
export function read_models_file(file: string): ModelsFile | undefined {
  return read_yaml_file(file, { schema: ModelsFile, example: MODELS_FILE_EXAMPLE });
}

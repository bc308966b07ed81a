import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import YAML from "yaml";
import { write_file_atomic } from "../project/atomic-write.js";
import { read_yaml_file } from "../project/yaml-file.js";
import { CapabilityName } from "./manifest.js";

/** `.air/shared/capabilities.yaml`: the project's choices over what trust would decide by default. */
const CapabilityChoices = v.strictObject({
  version: v.optional(v.literal(1), 1),
  /** Turned on although trust leaves them off (an untrusted capability). */
  enabled: v.optional(v.array(CapabilityName), []),
  /** Turned off although trust would turn them on. */
  disabled: v.optional(v.array(CapabilityName), []),
});
export type CapabilityChoices = v.InferOutput<typeof CapabilityChoices>;

const EXAMPLE = ["version: 1", "enabled:", "  - my-untrusted-tool", "disabled:", "  - toolchain-cpp"].join("\n");

export function choices_file(project_root: string): string {
  return path.join(project_root, ".air", "shared", "capabilities.yaml");
}

/** The project's choices; none when there is no file. A broken file is an AirError naming it. */
export function read_choices(project_root: string): CapabilityChoices {
  return read_yaml_file(choices_file(project_root), { schema: CapabilityChoices, example: EXAMPLE }) ?? { version: 1, enabled: [], disabled: [] };
}

/** Records `air capability enable|disable ID`: the id moves to one list and leaves the other. */
export function choose(project_root: string, id: string, choice: "enabled" | "disabled"): CapabilityChoices {
  const current = read_choices(project_root);
  const add = (ids: readonly string[]) => [...new Set([...ids, id])].sort();
  const drop = (ids: readonly string[]) => ids.filter((known) => known !== id);
  const next: CapabilityChoices =
    choice === "enabled"
      ? { version: 1, enabled: add(current.enabled), disabled: drop(current.disabled) }
      : { version: 1, enabled: drop(current.enabled), disabled: add(current.disabled) };
  const file = choices_file(project_root);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  write_file_atomic(file, `# Written by air capability enable|disable.\n${YAML.stringify(next)}`);
  return next;
}

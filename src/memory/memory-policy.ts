import path from "node:path";
import * as v from "valibot";
import type { MemoryType } from "../contracts/events/memory.js";
import type { ProjectLayout } from "../project/layout.js";
import { read_yaml_file } from "../project/yaml-file.js";

const Count = v.pipe(v.number(), v.integer(), v.minValue(1));

/** A memory type that may be promoted without asking anyone, once it rests on this much verified evidence. */
const AutoPromote = v.strictObject({ min_evidence: Count });

/**
 * `.air/shared/memory-policy.yaml`: how much verified evidence a candidate needs before it may be promoted at
 * all (default 1), and which memory types the project lets air promote by itself. Without the file nothing is
 * promoted without the user's approval.
 */
export const MemoryPolicy = v.strictObject({
  evidence_threshold: v.optional(Count, 1),
  auto_promote: v.optional(
    v.strictObject({
      rule: v.optional(AutoPromote),
      skill: v.optional(AutoPromote),
      fact: v.optional(AutoPromote),
      pitfall: v.optional(AutoPromote),
    }),
    {},
  ),
});
export type MemoryPolicy = v.InferOutput<typeof MemoryPolicy>;

const EXAMPLE = [
  "evidence_threshold: 1     # optional: verified evidence refs a candidate needs to be promoted",
  "auto_promote:             # optional: types promoted without asking, with their own evidence minimum",
  "  pitfall: { min_evidence: 2 }",
  "  rule: { min_evidence: 3 }",
].join("\n");

function memory_policy_path(layout: Pick<ProjectLayout, "shared">): string {
  return path.join(layout.shared, "memory-policy.yaml");
}

/** The project's policy; the defaults (threshold 1, nothing automatic) when it has no file. A broken file is an AirFailure. */
export function read_memory_policy(layout: Pick<ProjectLayout, "shared">): MemoryPolicy {
  return read_yaml_file(memory_policy_path(layout), { schema: MemoryPolicy, example: EXAMPLE }) ?? v.parse(MemoryPolicy, {});
}

/** The policy promotes this candidate by itself: its type is listed, and it has the threshold and the type's minimum. */
export function auto_promotes(policy: MemoryPolicy, memory: { memory_type: MemoryType; evidence_ref_ids: readonly string[] }): boolean {
  const rule = policy.auto_promote[memory.memory_type];
  if (rule === undefined) return false;
  const count = memory.evidence_ref_ids.length;
  return count >= policy.evidence_threshold && count >= rule.min_evidence;
}

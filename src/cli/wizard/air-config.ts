import path from "node:path";
import * as v from "valibot";
import { BudgetConfig } from "../../contracts/budget.js";
import { PermissionMode } from "../../contracts/events/permission.js";
import { LoneTask } from "../../actors/runtime/task-workspaces.js";
import { ReviewSettings } from "../../orchestration/review/settings.js";
import { read_yaml_file } from "../../project/yaml-file.js";
import { PROVIDER_IDS } from "../../providers/models-file.js";

/** The offline demo: the scripted model server, as `air e2e` runs it; no key, nothing leaves the machine. */
export const DEMO_PROVIDER = "scripted_demo";
export const WizardProvider = v.picklist([...PROVIDER_IDS, DEMO_PROVIDER]);
export type WizardProvider = v.InferOutput<typeof WizardProvider>;

/**
 * `~/.air/config.yaml`: what the first-run wizard chose. models.yaml and permissions.yaml carry the settings
 * the runtime uses; this file records that setup is done (the demo has nothing else to show for it) and
 * what was picked, for `air doctor` and a later wizard run. `budget` (optional, written by hand) holds the
 * default limits of every task and the run's limits, which `air run`'s flags override.
 */
export const AirConfigFile = v.strictObject({
  version: v.literal(1),
  provider: WizardProvider,
  model: v.pipe(v.string(), v.minLength(1)),
  permission_mode: PermissionMode,
  budget: v.optional(BudgetConfig),
  /** How many agents run at once by default (`--max-parallel` wins). */
  max_parallel: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  /** Where a code task works while it is the only one unfinished: `checkout` (default) or `worktree`. */
  lone_task: v.optional(LoneTask),
  /** The ExperienceMiner: on with `enabled: true` (default off); a mining after this many tool calls (default 10). */
  experience_miner: v.optional(
    v.strictObject({
      enabled: v.optional(v.boolean()),
      every_n_tool_calls: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
    }),
  ),
  /** The review gate: which completed code changes a reviewer reads, and which of its findings gate. */
  review: v.optional(ReviewSettings),
});
export type AirConfigFile = v.InferOutput<typeof AirConfigFile>;

const EXAMPLE = [
  "version: 1",
  "provider: anthropic      # anthropic | openai | openrouter | openai_compatible | scripted_demo",
  "model: claude-sonnet-4-5",
  "permission_mode: default",
  "budget:                  # optional",
  "  task: { input_tokens: 2000000, output_tokens: 200000, cost_usd: 5, wall_ms: 1800000, tool_calls: 300 }",
  "  run: { cost_usd: 20, tokens: 10000000 }",
  "max_parallel: 4          # optional: agents at once",
  "lone_task: checkout      # optional: checkout | worktree (where a task works when it is the only one)",
  "experience_miner: { enabled: true, every_n_tool_calls: 10 }   # optional: propose memories from verified work",
  "review:                  # optional: the review gate",
  "  policy: significant     # always | significant | never",
  "  significant_lines: 20   # more changed lines than this (or a public interface) is significant",
  "  confidence_threshold: 0.8 # findings less sure than this only advise",
].join("\n");

export function air_config_path(home: string): string {
  return path.join(home, "config.yaml");
}

export function read_air_config(home: string): AirConfigFile | undefined {
  return read_yaml_file(air_config_path(home), { schema: AirConfigFile, example: EXAMPLE });
}

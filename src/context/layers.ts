import { IMMUTABLE_LEVELS, STABLE_LEVELS, type PromptLayer, type PromptLayerLevel } from "../contracts/prompt-layer.js";
import type { PermissionMode } from "../contracts/events/permission.js";
import type { SystemBlock } from "../contracts/provider.js";
import type { TaskSpec } from "../contracts/task.js";

/** Characters per token of the estimate used when no provider count is at hand (seeds 000 §10.1). */
export const CHARS_PER_TOKEN = 4;

export function estimate_tokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function make_layer(level: PromptLayerLevel, id: string, text: string, source?: string): PromptLayer {
  return {
    level,
    id,
    text,
    immutable: IMMUTABLE_LEVELS.has(level),
    stable: STABLE_LEVELS.has(level),
    token_estimate: estimate_tokens(text),
    ...(source === undefined ? {} : { source }),
  };
}

const MODE_MEANING: Record<PermissionMode, string> = {
  default:
    "The user is asked before source files are edited and before risky commands (git writes, deletions, network); builds, tests and looking around are announced and run.",
  "accept-edits":
    "Edits to the project's files are allowed without asking; risky commands (git writes, deletions, network) still need the user's answer, and a run without a terminal refuses them.",
  plan: "Only looking is allowed: reading files and running commands that change nothing. Edits and commands with side effects are refused; describe the changes instead.",
  bypass: "Nothing is asked, but credential and system access are still refused; act as carefully as if every step were reviewed.",
};

/** L2: the session's permission mode and what it means for the agent's tool calls. */
export function safety_layer(mode: PermissionMode): PromptLayer {
  const text = [
    "# Permissions",
    `Permission mode: ${mode}. ${MODE_MEANING[mode]}`,
    "Nothing loosens the task's scope, a denial, or a refusal of credential or system access; a refused call is final for this task.",
  ].join("\n");
  return make_layer("safety", `mode/${mode}`, text);
}

/**
 * The first line of L5 is this heading and the task's title: the scripted model server finds the task a
 * worker's request is about by it (a script's `task_title` matcher).
 */
export const TASK_SPEC_HEADING = "# Task specification: ";

/** L5 of a TaskSpec: what to do, how success is judged, where the work may happen and how it is verified. */
function task_spec_text(task: TaskSpec, project_root: string): string {
  const lines = [`${TASK_SPEC_HEADING}${task.title}`, "", task.description];
  if (task.acceptance_criteria.length > 0) lines.push("", "## Acceptance criteria", ...task.acceptance_criteria.map((c) => `- ${c}`));
  const { write_area, expected_files, allowed_paths, denied_paths } = task.scope;
  const scope = [
    write_area === undefined ? undefined : `- write area: ${write_area.join(", ")}`,
    expected_files?.length ? `- expected files: ${expected_files.join(", ")}` : undefined,
    allowed_paths?.length ? `- allowed paths: ${allowed_paths.join(", ")}` : undefined,
    denied_paths?.length ? `- denied paths: ${denied_paths.join(", ")}` : undefined,
  ].filter((line) => line !== undefined);
  if (scope.length > 0) lines.push("", "## Scope", ...scope);
  const commands = task.verification.commands ?? [];
  if (commands.length > 0) lines.push("", "## Verification (run by air after you finish)", ...commands.map((c) => `- \`${c}\``));
  lines.push("", `Project root: ${project_root}`);
  return lines.join("\n");
}

export function task_spec_layer(task: TaskSpec, project_root: string): PromptLayer {
  return make_layer("task_spec", `task/${task.id}`, task_spec_text(task, project_root));
}

/** L9 of an executor's first request: the immediate instruction that starts the work on its task. */
export function task_instruction(task: TaskSpec): string {
  return [
    `# Task: ${task.title}`,
    "",
    "Carry out the task in the task specification of the system prompt. When it is done, answer without calling a tool and summarise what you changed.",
  ].join("\n");
}

/**
 * Stable layers as system blocks, in level order, with ONE prompt-cache breakpoint on the last of them: the
 * provider caches tools + system, and the conversation that follows only ever grows at its end.
 */
export function system_blocks(layers: readonly PromptLayer[]): SystemBlock[] {
  const blocks: SystemBlock[] = layers.filter((layer) => layer.text.trim() !== "").map((layer) => ({ type: "text", text: layer.text }));
  const last = blocks.at(-1);
  if (last !== undefined) last.cache_control = { type: "ephemeral" };
  return blocks;
}

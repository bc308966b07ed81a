import * as v from "valibot";
import { AgentId, PermissionDecisionId, PermissionPromptId, TaskId, ToolRunId } from "../ids.js";
import { durable } from "./define.js";
import { Count, NonEmpty, Reason } from "./common.js";

/** Each item's place in `order`: the rank tables below are read off their tuples, never written by hand. */
function ranks<T extends string>(order: readonly T[]): Readonly<Record<T, number>> {
  return Object.fromEntries(order.map((item, index) => [item, index])) as Record<T, number>;
}

/**
 * The six actions of seeds 000 §9.3, from the least strict to the strictest: the order is the strictness
 * (when two layers disagree, the later action here decides). `block` (outside the task's scope: widen the
 * scope or make a new task, then retry) is below `deny` (this call may not run, whatever the scope), which is
 * below `refuse` (policy: never).
 */
const PERMISSION_ACTIONS = ["allow", "announce_then_run", "ask_user", "block", "deny", "refuse"] as const;
export const PermissionAction = v.picklist(PERMISSION_ACTIONS);
export type PermissionAction = v.InferOutput<typeof PermissionAction>;
/** How strict an action is: its index in `PERMISSION_ACTIONS`. */
export const STRICTNESS = ranks(PERMISSION_ACTIONS);

export const PermissionGrantScope = v.picklist(["once", "session", "project", "global"]);
export type PermissionGrantScope = v.InferOutput<typeof PermissionGrantScope>;

/** The six layers of seeds 000 §9.2, in evaluation order. */
const PERMISSION_LAYERS = ["tool_declaration", "profile", "task_scope", "path_command_risk", "credential_system_override", "user_prompt"] as const;
export type PermissionLayer = (typeof PERMISSION_LAYERS)[number];
/** A layer's place in `PERMISSION_LAYERS`. */
export const LAYER_ORDER = ranks(PERMISSION_LAYERS);

/** From no risk to the highest. */
const RISK_LEVELS = ["none", "low", "medium", "high", "critical"] as const;
export const RiskLevel = v.picklist(RISK_LEVELS);
export type RiskLevel = v.InferOutput<typeof RiskLevel>;
/** How high a risk is: its index in `RISK_LEVELS`. */
export const RISK_RANK = ranks(RISK_LEVELS);

/**
 * How much the user lets air do without asking (the modes users know from other coding agents):
 * `default` asks before editing source files and before risky commands; `accept-edits` edits the project
 * without asking; `plan` only looks; `bypass` asks nothing but still refuses credential and system access.
 */
export const PermissionMode = v.picklist(["default", "accept-edits", "plan", "bypass"]);
export type PermissionMode = v.InferOutput<typeof PermissionMode>;

/**
 * What an `ask_user` finding is about, so an answer or a rule can cover it exactly: one command the shell
 * would run (argv joined by spaces), a whole command line the analyzer could not see through, a path, a
 * tool's network access, the first use of a capability's tool, or the first start of a project's MCP server.
 */
export const PermissionSubject = v.variant("kind", [
  v.strictObject({ kind: v.literal("command"), command: NonEmpty }),
  v.strictObject({ kind: v.literal("command_line"), command: NonEmpty }),
  v.strictObject({ kind: v.literal("path"), op: v.picklist(["read", "write"]), path: NonEmpty }),
  v.strictObject({ kind: v.literal("network"), tool_name: NonEmpty }),
  /** The first use of a tool from a capability nobody vouched for (a project's own). */
  v.strictObject({ kind: v.literal("capability_tool"), capability_id: NonEmpty, tool_name: NonEmpty }),
  /** Starting a project's MCP server: its entry as written (the fingerprint), so a changed command is asked about again. */
  v.strictObject({ kind: v.literal("mcp_server"), server: NonEmpty, fingerprint: NonEmpty }),
]);
export type PermissionSubject = v.InferOutput<typeof PermissionSubject>;

/**
 * What a call would change, shown before the user answers: a unified diff (secrets redacted), its added and
 * removed line counts and its length in lines, all of the whole diff; `diff` holds at most its first lines
 * (`clipped` says so), so a 10 MB write cannot swell the event that records the prompt.
 */
export const ProposedChange = v.strictObject({
  diff: v.string(),
  added: Count,
  removed: Count,
  lines: Count,
  clipped: v.boolean(),
});
export type ProposedChange = v.InferOutput<typeof ProposedChange>;

/** One command the shell would run, as the analyzer saw it: its categories, and how it is reached when not directly. */
export const PromptCommand = v.strictObject({
  command: NonEmpty,
  categories: v.array(NonEmpty),
  via: v.optional(NonEmpty),
});
export type PromptCommand = v.InferOutput<typeof PromptCommand>;

/** A path the call reads or writes, where it really is (its path category: project source, outside the project …). */
export const PromptPath = v.strictObject({
  op: v.picklist(["read", "write"]),
  path: NonEmpty,
  category: NonEmpty,
});
export type PromptPath = v.InferOutput<typeof PromptPath>;

/**
 * A question to the user about one tool call: what it would run or touch and why it was not allowed outright.
 * `permission.prompt.requested` records all of it but `reason`, which the question holds.
 */
export const PermissionPrompt = v.strictObject({
  prompt_id: PermissionPromptId,
  tool_name: NonEmpty,
  question: NonEmpty,
  reason: Reason,
  risk_level: RiskLevel,
  offered_scopes: v.pipe(v.array(PermissionGrantScope), v.minLength(1)),
  /** What an answer covers; a resumed session asks again and applies the answer to exactly these. */
  subjects: v.array(PermissionSubject),
  /** The command categories the analyzer found, and every command the shell would run. */
  categories: v.array(NonEmpty),
  commands: v.array(NonEmpty),
  /** Each command with what the analyzer found in it; the paths the call touches; the change it would make. */
  command_parts: v.optional(v.array(PromptCommand)),
  paths: v.optional(v.array(PromptPath)),
  change: v.optional(ProposedChange),
});
export type PermissionPrompt = v.InferOutput<typeof PermissionPrompt>;

const prompt = PermissionPrompt.entries;

const subject = {
  tool_run_id: v.optional(ToolRunId),
  task_id: v.optional(TaskId),
  agent_id: v.optional(AgentId),
  tool_name: NonEmpty,
};

export const permission_events = {
  "permission.decision.recorded": durable(
    v.strictObject({
      decision_id: PermissionDecisionId,
      action: PermissionAction,
      grant_scope: PermissionGrantScope,
      risk_level: RiskLevel,
      reason: Reason,
      layer: NonEmpty,
      prompt_id: v.optional(PermissionPromptId),
      ...subject,
    }),
    "Every permission decision, appended (the audit trail).",
  ),
  "permission.prompt.requested": durable(
    v.strictObject({
      prompt_id: prompt.prompt_id,
      question: prompt.question,
      risk_level: prompt.risk_level,
      offered_scopes: prompt.offered_scopes,
      subjects: v.optional(prompt.subjects),
      categories: v.optional(prompt.categories),
      commands: v.optional(prompt.commands),
      command_parts: prompt.command_parts,
      paths: prompt.paths,
      change: prompt.change,
      mode: v.optional(PermissionMode),
      ...subject,
    }),
    "A tool call waits for the user; appended so a pending prompt survives a restart.",
  ),
  "permission.prompt.resolved": durable(
    v.strictObject({
      prompt_id: PermissionPromptId,
      answer: v.picklist(["allow", "deny"]),
      grant_scope: PermissionGrantScope,
      resolved_by: v.picklist(["user", "policy"]),
      note: v.optional(Reason),
    }),
    "The answer to a prompt, by the user or by the headless policy.",
  ),
} as const;

import * as v from "valibot";
import { WorkspaceStrategy } from "./events/workspace.js";
import { TaskStatus } from "./status.js";

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** What an agent's, a task's or a session's model calls used; the cost is null when a model has no known price. */
export const ListedUsage = v.strictObject({ turns: Count, input_tokens: Count, output_tokens: Count, cost_usd: v.nullable(v.number()) });
export type ListedUsage = v.InferOutput<typeof ListedUsage>;

/** One task as `air tasks`, the TUI's team view and the json result list it. */
export const ListedTask = v.strictObject({
  id: v.string(),
  title: v.string(),
  status: TaskStatus,
  status_reason: v.nullable(v.string()),
  /** Where the task works: its workspace, or the main checkout when it has none. */
  workspace: v.union([v.literal("main"), v.strictObject({ id: v.string(), strategy: WorkspaceStrategy, path: v.string() })]),
  /** Its worktree's branch (`air/<task>/<workspace>`); null in the main checkout or a copy. */
  branch: v.nullable(v.string()),
  attempts: Count,
  usage: ListedUsage,
});
export type ListedTask = v.InferOutput<typeof ListedTask>;

export const TaskListing = v.strictObject({ tasks: v.array(ListedTask), total: ListedUsage });
export type TaskListing = v.InferOutput<typeof TaskListing>;

import * as v from "valibot";
import { BudgetRefusal } from "../budget.js";
import { AgentId, TaskId } from "../ids.js";
import { durable } from "./define.js";

/** Which budget and limit, how far used, and whose: an agent and its task, or neither for the run's budget. */
const Reading = v.strictObject({ ...BudgetRefusal.entries, task_id: v.optional(TaskId), agent_id: v.optional(AgentId) });

export const budget_events = {
  "budget.warning": durable(Reading, "Append-only: a budget limit is 80 % used (once per limit and agent, or per limit for the run)."),
  "budget.exceeded": durable(Reading, "Append-only: model.complete refused a call at a reached limit; the task ends blocked naming it."),
} as const;

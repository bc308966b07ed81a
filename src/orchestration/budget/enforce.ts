/**
 * Budget enforcement where every model call passes (`model.complete`, DESIGN §11): before the call, the run's
 * budget and the calling worker's are read from rows; a reached limit refuses the call with a durable
 * `budget.exceeded`, a limit 80 % used records `budget.warning` once. Also what the Scheduler asks: whether
 * the run may dispatch more, and whether a task's run ended on a refusal.
 */
import { eq } from "drizzle-orm";
import * as v from "valibot";
import type { BudgetRefusal, BudgetScope, RunBudget } from "../../contracts/budget.js";
import { AgentId, type TaskId } from "../../contracts/ids.js";
import { TaskSpec } from "../../contracts/task.js";
import type { Connection } from "../../db/connection.js";
import { tasks } from "../../db/schema.js";
import type { Session } from "../../project/session-manager.js";
import type { ToolExecution } from "../../tools/define.js";
import { budget_readings, MODEL_CALL, type BudgetLimits, type BudgetUsage } from "./check.js";
import { budget_refusal_failure, refusal_text } from "./refusal.js";
import { usage_of } from "./usage.js";

/** A worker run's limits: its turns, and the budget of its TaskSpec (where the configured defaults landed). */
function task_limits(spec: TaskSpec): BudgetLimits {
  return { turns: spec.constraints.max_turns, ...spec.constraints.budget };
}

/** The limits of a task, or none when it has no spec (an inline compaction task runs under its parent's). */
function limits_of_task(connection: Connection, task_id: string): BudgetLimits {
  const row = connection.db.select({ spec_json: tasks.spec_json }).from(tasks).where(eq(tasks.id, task_id)).get();
  if (row?.spec_json === undefined || row.spec_json === null) return {};
  const spec = v.safeParse(TaskSpec, JSON.parse(row.spec_json));
  return spec.success ? task_limits(spec.output) : {};
}

type Caller = Pick<ToolExecution, "session" | "task_id" | "agent_id" | "emit">;
type Subject = { task_id?: TaskId; agent_id?: AgentId };

function subject_of(caller: Caller, budget: BudgetScope): Subject {
  if (budget === "run") return {};
  return { ...(caller.task_id === undefined ? {} : { task_id: caller.task_id }), ...(caller.agent_id === undefined ? {} : { agent_id: caller.agent_id }) };
}

function warned(session: Session, budget: BudgetScope, limit: string, subject: Subject): boolean {
  const filter = subject.agent_id === undefined ? {} : { agent_id: subject.agent_id };
  return session.store
    .query({ types: ["budget.warning"], ...filter })
    .some(({ event }) => event.type === "budget.warning" && event.payload.budget === budget && event.payload.limit === limit);
}

/** One budget's verdict on the call: throws the refusal, records the warnings not recorded yet. */
function enforce(caller: Caller, budget: BudgetScope, limits: BudgetLimits, usage: BudgetUsage): void {
  const subject = subject_of(caller, budget);
  const readings = budget_readings(limits, usage, MODEL_CALL);
  const refused = readings.find((reading) => reading.kind === "refuse");
  if (refused !== undefined) {
    const refusal: BudgetRefusal = { budget, limit: refused.limit, used: refused.used, of: refused.of };
    caller.emit("budget.exceeded", { ...refusal, ...subject });
    throw budget_refusal_failure(refusal);
  }
  for (const reading of readings) {
    if (warned(caller.session, budget, reading.limit, subject)) continue;
    caller.emit("budget.warning", { budget, limit: reading.limit, used: reading.used, of: reading.of, ...subject });
  }
}

/**
 * Refuses a model call that a reached limit forbids (an `AirFailure` carrying the refusal), before anything is
 * sent. The run's budget covers every call of the session; a worker's own covers the calls of its agent.
 */
export function guard_model_call(caller: Caller, run: RunBudget): void {
  const { connection } = caller.session;
  if (Object.values(run).some((limit) => limit !== undefined)) enforce(caller, "run", run, usage_of(connection, { session: true }));
  if (caller.task_id === undefined || caller.agent_id === undefined) return;
  enforce(caller, "task", limits_of_task(connection, caller.task_id), usage_of(connection, { agent_id: caller.agent_id }));
}

export type RunBudgetLeft = { readonly kind: "ok" } | { readonly kind: "exhausted"; readonly refusal: BudgetRefusal; readonly reason: string };

/** Whether the run may dispatch another worker: no, once any of its limits is reached. */
export function run_budget_left(connection: Connection, budget: RunBudget): RunBudgetLeft {
  const refused = budget_readings(budget, usage_of(connection, { session: true }), {}).find((reading) => reading.kind === "refuse");
  if (refused === undefined) return { kind: "ok" };
  const refusal: BudgetRefusal = { budget: "run", limit: refused.limit, used: refused.used, of: refused.of };
  return { kind: "exhausted", refusal, reason: refusal_text(refusal) };
}

/** The blocker of a task whose current agent had a model call refused by a budget, naming the limit. */
export function budget_blocker(session: Session, task_id: string): string | undefined {
  const row = session.connection.db.select({ agent_id: tasks.agent_id }).from(tasks).where(eq(tasks.id, task_id)).get();
  if (row?.agent_id === undefined || row.agent_id === null) return undefined;
  const agent_id = v.parse(AgentId, row.agent_id);
  const [refused] = session.store.query({ types: ["budget.exceeded"], agent_id, order: "desc", limit: 1 });
  if (refused === undefined || refused.event.type !== "budget.exceeded") return undefined;
  const { budget, limit, used, of } = refused.event.payload;
  return refusal_text({ budget, limit, used, of });
}

import * as v from "valibot";
import { air_failure, type AirFailure } from "../../contracts/errors.js";
import { field } from "../../contracts/field.js";
import { new_id, type TaskId } from "../../contracts/ids.js";
import type { TaskSpec } from "../../contracts/task.js";
import { in_write_area } from "../../permissions/write-area.js";
import { find_cycle } from "./plan-cycle.js";
import { PlanReply, type PlanKey, type PlannedTask } from "./plan-reply.js";
import { serialize_overlaps } from "./serialize-overlaps.js";
import { execute_task_spec, type TaskDefaults } from "./task-spec.js";

/** How many schema issues a message names: enough to fix the plan, short enough to read. */
const SHOWN_ISSUES = 3;

/** Marks the failure as a refused plan, so the Main Agent can hand the reason back to the model. */
export const PLAN_REFUSED = "plan_refused";

/** A plan that cannot run as written: the model (or the user's request) has to change it. */
function plan_failure(problem: string): AirFailure {
  return air_failure({
    kind: "agent_error",
    message: `the plan is invalid: ${problem}`,
    retryability: "retryable_after_change",
    user_action: "Rephrase the request so that each task names its own files inside the project, or split it into separate requests.",
    metadata: { reason: PLAN_REFUSED },
  });
}

/** `task 2 ("lib-b")` when the issue is inside a task, so the message says which task to fix. */
function issue_line(issue: v.BaseIssue<unknown>): string {
  const path = issue.path ?? [];
  const dot = v.getDotPath(issue);
  const [top, index] = path;
  if (top?.key !== "tasks" || typeof index?.key !== "number") return dot === null ? issue.message : `${dot}: ${issue.message}`;
  const key = field(index.value, "key");
  const task = `task ${index.key + 1}${typeof key === "string" ? ` ("${key}")` : ""}`;
  const inside = path
    .slice(2)
    .map((item) => (typeof item.key === "number" ? `[${item.key}]` : `.${String(item.key)}`))
    .join("")
    .replace(/^\./, "");
  return `${task}${inside === "" ? "" : ` ${inside}`}: ${issue.message}`;
}

function schema_problem(issues: readonly v.BaseIssue<unknown>[]): string {
  const lines = issues.slice(0, SHOWN_ISSUES).map(issue_line);
  const more = issues.length - lines.length;
  return `${lines.join("; ")}${more > 0 ? ` (and ${more} more)` : ""}`;
}

const quoted = (keys: readonly string[]) => keys.map((key) => `"${key}"`).join(", ");

/** Keys that must be unique and references that must resolve to another task of the plan. */
function reference_problem(tasks: readonly PlannedTask[]): string | undefined {
  const keys = new Set<string>();
  for (const task of tasks) {
    if (keys.has(task.key)) return `two tasks share the key "${task.key}"; each task needs its own`;
    keys.add(task.key);
  }
  for (const task of tasks) {
    for (const kind of ["hard", "soft"] as const) {
      for (const key of task.depends_on[kind]) {
        if (key === task.key) return `task "${task.key}" depends on itself`;
        if (!keys.has(key)) return `task "${task.key}" depends on "${key}", which is not a task of the plan (its tasks: ${quoted([...keys])})`;
      }
    }
  }
  return undefined;
}

/** "./src/a.ts" → "src/a.ts": expected files compare with write areas as written, relative to the project. */
const relative_file = (file: string) => file.replace(/^(\.\/)+/, "");

function area_problem(tasks: readonly PlannedTask[]): string | undefined {
  for (const task of tasks) {
    const outside = task.expected_files.find((file) => !in_write_area(relative_file(file), task.write_area));
    if (outside !== undefined) {
      return `task "${task.key}" expects to change "${outside}", which is outside its write area (${quoted(task.write_area)})`;
    }
  }
  return undefined;
}

function cycle_problem(tasks: readonly PlannedTask[]): string | undefined {
  const edges = new Map(tasks.map((task) => [task.key, [...task.depends_on.hard, ...task.depends_on.soft]]));
  const cycle = find_cycle(
    tasks.map((task) => task.key),
    (key) => edges.get(key) ?? [],
  );
  return cycle === undefined ? undefined : `the dependencies form a cycle: ${[...cycle, cycle[0]].map((key) => `"${key}"`).join(" → ")}`;
}

const unique = (keys: readonly PlanKey[]) => [...new Set(keys)];

/**
 * The model's plan as TaskSpecs, each with a fresh TaskId, its dependencies named by those ids. Refused
 * whole (an `AirFailure` naming the first problem, nothing returned) when it does not fit `PlanReply` — an
 * empty plan, a write area outside the project, in `.git` or `.air`, or climbing out with `..` — or when its
 * graph is wrong: a duplicate key, a dependency on itself or on no task of the plan, a cycle (hard and soft
 * edges alike: a soft cycle asks for an order that cannot be), an expected file outside its task's area.
 */
export function validate_plan(reply: unknown, defaults: TaskDefaults): TaskSpec[] {
  const parsed = v.safeParse(PlanReply, reply);
  if (!parsed.success) throw plan_failure(schema_problem(parsed.issues));
  const { tasks } = parsed.output;
  const problem = reference_problem(tasks) ?? cycle_problem(tasks) ?? area_problem(tasks);
  if (problem !== undefined) throw plan_failure(problem);
  const ids = new Map<string, TaskId>(tasks.map((task) => [task.key, new_id("task")]));
  const id_of = (key: string): TaskId => {
    const id = ids.get(key);
    if (id === undefined) throw plan_failure(`no task has the key "${key}"`);
    return id;
  };
  const specs = tasks.map((task) =>
    execute_task_spec(
      {
        id: id_of(task.key),
        title: task.title,
        description: task.description,
        acceptance_criteria: task.acceptance_criteria,
        verification_commands: task.verification_commands,
        verification_tools: task.verification_tools,
        scope: { write_area: task.write_area, ...(task.expected_files.length === 0 ? {} : { expected_files: task.expected_files.map(relative_file) }) },
        // A key named twice is one dependency: the rows are keyed by (task, dependency, kind).
        dependencies: { hard: unique(task.depends_on.hard).map(id_of), soft: unique(task.depends_on.soft).map(id_of) },
      },
      defaults,
    ),
  );
  return serialize_overlaps(specs);
}

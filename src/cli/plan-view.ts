import type { TaskSpec } from "../contracts/task.js";
import type { EventBus } from "../event-store/event-bus.js";

/** A plan as `air run -p --output-format json` carries it: each task with its area and dependencies by task id. */
export type PlanView = {
  readonly awaiting_confirmation: boolean;
  readonly tasks: readonly {
    readonly id: string;
    readonly title: string;
    readonly write_area: readonly string[] | null;
    readonly expected_files: readonly string[];
    /** `serialized`: tasks it must not run beside, because their write areas may overlap. */
    readonly depends_on: { readonly hard: readonly string[]; readonly soft: readonly string[]; readonly serialized: readonly string[] };
  }[];
};

export function plan_view(tasks: readonly TaskSpec[], awaiting_confirmation: boolean): PlanView {
  return {
    awaiting_confirmation,
    tasks: tasks.map((task) => ({
      id: task.id,
      title: task.title,
      write_area: task.scope.write_area ?? null,
      expected_files: task.scope.expected_files ?? [],
      depends_on: { hard: task.dependencies.hard, soft: task.dependencies.soft, serialized: task.dependencies.serialization },
    })),
  };
}

/**
 * The plan as text, before any work starts: one line per task — its number, title and write area — and
 * what it waits for, by the numbers of the tasks it depends on.
 */
export function plan_text(plan: PlanView): string {
  const number_of = new Map(plan.tasks.map((task, index) => [task.id, index + 1]));
  const numbers = (ids: readonly string[]) => ids.map((id) => `${number_of.get(id) ?? id}`).join(", ");
  const lines = plan.tasks.map((task, index) => {
    const area = task.write_area === null ? "its own choice of files" : task.write_area.join(", ");
    const after = [
      task.depends_on.hard.length === 0 ? "" : `after ${numbers(task.depends_on.hard)}`,
      task.depends_on.soft.length === 0 ? "" : `preferably after ${numbers(task.depends_on.soft)}`,
      task.depends_on.serialized.length === 0 ? "" : `not beside ${numbers(task.depends_on.serialized)} (overlapping write areas)`,
    ].filter((part) => part !== "");
    return `  ${index + 1}. ${task.title} — writes ${area}${after.length === 0 ? "" : ` — ${after.join("; ")}`}`;
  });
  const count = plan.tasks.length === 1 ? "1 task" : `${plan.tasks.length} tasks`;
  const waiting = plan.awaiting_confirmation ? " (waiting for /approve or /reject)" : "";
  return [`Plan: ${count}${waiting}`, ...lines].join("\n");
}

/** The latest plan the Main Agent showed on this bus, until stopped. */
export function follow_plan(bus: EventBus): { last(): PlanView | undefined; stop(): void } {
  let last: PlanView | undefined;
  const stop = bus.subscribe({ types: ["plan.proposed"] }, (event) => {
    if (event.type === "plan.proposed") last = plan_view(event.payload.tasks, event.payload.awaiting_confirmation);
  });
  return { last: () => last, stop };
}

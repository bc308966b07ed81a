import { inArray } from "drizzle-orm";
import type { PayloadInputOf } from "../../contracts/events/registry.js";
import type { Connection } from "../../db/connection.js";
import { tasks } from "../../db/schema.js";
import type { WavePlan } from "../../orchestration/waves/wave.js";

/** The titles of the given tasks, from their rows. */
export function task_titles(connection: Connection, task_ids: readonly string[]): ReadonlyMap<string, string> {
  if (task_ids.length === 0) return new Map();
  const rows = connection.db
    .select({ id: tasks.id, title: tasks.title })
    .from(tasks)
    .where(inArray(tasks.id, [...task_ids]))
    .all();
  return new Map(rows.map((row) => [row.id, row.title]));
}

/**
 * What each wave of a run says: the `wave.planned` payload when the Scheduler starts something or the reasons
 * of the waiting tasks changed, undefined for a re-plan that changes nothing a person would see. The reason
 * tasks run one at a time is said once, with the first wave that has more than one task to it.
 */
export function wave_announcer(titles_of: (task_ids: readonly string[]) => ReadonlyMap<string, string>) {
  let last_waiting = "[]";
  let serial_said = false;
  return (plan: WavePlan, dispatch: readonly string[], serial_reason: string | undefined): PayloadInputOf<"wave.planned"> | undefined => {
    const waiting_key = JSON.stringify(plan.waiting);
    if (dispatch.length === 0 && waiting_key === last_waiting) return undefined;
    last_waiting = waiting_key;
    const titles = titles_of([...dispatch, ...plan.waiting.map((entry) => entry.task_id)]);
    const title = (task_id: string) => titles.get(task_id) ?? task_id;
    const say_serial = serial_reason !== undefined && !serial_said && dispatch.length + plan.waiting.length > 1;
    if (say_serial) serial_said = true;
    return {
      dispatched: dispatch.map((task_id) => ({ task_id, title: title(task_id) })),
      waiting: plan.waiting.map(({ task_id, reason }) => ({ task_id, title: title(task_id), reason })),
      ...(say_serial ? { one_at_a_time: serial_reason } : {}),
    };
  };
}

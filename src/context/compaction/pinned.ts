import { and, asc, eq, inArray, ne, or, sql } from "drizzle-orm";
import * as v from "valibot";
import { ToolEffects } from "../../contracts/tool.js";
import type { Connection } from "../../db/connection.js";
import { tasks, tool_runs } from "../../db/schema.js";
import type { CompactionSettings } from "./rules.js";

/**
 * What a summary must never lose (issue 5): the project rules, the task list with what is done and what is
 * next, open blockers and the files touched. It is rebuilt from the session database and the rule files at
 * each compaction and copied verbatim into the summary — the compactor model never paraphrases it.
 */
export type PinnedState = {
  /** The L3 layers as the PromptLayerLoader reads them, each headed by its file (the same bytes the prompt carries). */
  readonly project_rules: readonly { readonly id: string; readonly text: string }[];
  readonly tasks: readonly PinnedTask[];
  readonly files_touched: readonly string[];
};

type PinnedTask = { readonly id: string; readonly title: string; readonly status: string; readonly reason: string | null };

/** Runs recorded before tools declared their effects: these tools' outputs named the files they wrote. */
const PRE_EFFECTS_WRITERS = ["fs.write", "fs.edit", "fs.patch"];
const PreEffectsOutput = v.union([v.object({ files: v.array(v.object({ path: v.string(), from: v.optional(v.string()) })) }), v.object({ path: v.string() })]);
const RecordedEffects = v.object({ effects: ToolEffects });

/** Every task but the compaction bookkeeping, oldest first. */
function read_tasks(connection: Connection): PinnedTask[] {
  return connection.db
    .select({ id: tasks.id, title: tasks.title, status: tasks.status, reason: tasks.status_reason })
    .from(tasks)
    .where(ne(tasks.type, "compact"))
    .orderBy(asc(tasks.created_at), asc(tasks.id))
    .all();
}

/** The files a completed run changed, from the `effects` of its recorded output. */
function paths_of(output_json: string | null): string[] {
  if (output_json === null) return [];
  const output: unknown = JSON.parse(output_json);
  const recorded = v.safeParse(RecordedEffects, output);
  if (recorded.success) return recorded.output.effects.changed_files;
  const legacy = v.safeParse(PreEffectsOutput, output);
  if (!legacy.success) return [];
  const entries: { path: string; from?: string }[] = "files" in legacy.output ? legacy.output.files : [legacy.output];
  return entries.flatMap((entry) => (entry.from === undefined ? [entry.path] : [entry.from, entry.path]));
}

/** Files changed by completed tool runs of the session, in first-touch order. */
function read_files_touched(connection: Connection): string[] {
  const runs = connection.db
    .select({ output_json: tool_runs.output_json })
    .from(tool_runs)
    .where(
      and(
        eq(tool_runs.status, "ok"),
        or(sql`json_type(${tool_runs.output_json}, '$.effects.changed_files') = 'array'`, inArray(tool_runs.tool_name, PRE_EFFECTS_WRITERS)),
      ),
    )
    .orderBy(asc(tool_runs.started_at), asc(tool_runs.id))
    .all();
  return [...new Set(runs.flatMap((run) => paths_of(run.output_json)))];
}

export function read_pinned_state(connection: Connection, project_rules: PinnedState["project_rules"]): PinnedState {
  return { project_rules, tasks: read_tasks(connection), files_touched: read_files_touched(connection) };
}

const DONE = new Set(["completed"]);
const BLOCKED = new Set(["blocked"]);
const CLOSED = new Set(["completed", "cancelled"]);

function task_line(task: PinnedTask, mark: string): string {
  return `- [${mark}] ${task.id} (${task.status}) ${task.title}`;
}

function tasks_section(state: PinnedState): string {
  const done = state.tasks.filter((task) => DONE.has(task.status));
  const next = state.tasks.filter((task) => !CLOSED.has(task.status) && !BLOCKED.has(task.status));
  const cancelled = state.tasks.filter((task) => task.status === "cancelled");
  const lines = ["## Pinned: task list", "", "Done:", ...(done.length === 0 ? ["- (none yet)"] : done.map((task) => task_line(task, "x")))];
  lines.push("", "Next (in progress or pending):", ...(next.length === 0 ? ["- (none)"] : next.map((task) => task_line(task, " "))));
  if (cancelled.length > 0) lines.push("", "Cancelled:", ...cancelled.map((task) => task_line(task, "-")));
  return lines.join("\n");
}

function blockers_section(state: PinnedState): string {
  const blocked = state.tasks.filter((task) => BLOCKED.has(task.status));
  const lines = blocked.map((task) => `- ${task.id} ${task.title}: ${task.reason ?? "(no reason recorded)"}`);
  return ["## Pinned: open blockers", "", ...(lines.length === 0 ? ["- (none)"] : lines)].join("\n");
}

function rules_section(state: PinnedState): string {
  if (state.project_rules.length === 0) return "## Pinned: project rules\n\n(none)";
  return ["## Pinned: project rules", ...state.project_rules.map((rule) => rule.text)].join("\n\n");
}

function files_section(state: PinnedState): string {
  const lines = state.files_touched.map((file) => `- ${file}`);
  return ["## Pinned: files touched", "", ...(lines.length === 0 ? ["- (none)"] : lines)].join("\n");
}

/** The pinned sections the rules ask for, as Markdown that goes into the summary verbatim. */
export function render_pinned(state: PinnedState, pin: CompactionSettings["pin"]): string {
  const sections = [
    pin.project_rules ? rules_section(state) : undefined,
    pin.task_list ? tasks_section(state) : undefined,
    pin.blockers ? blockers_section(state) : undefined,
    pin.files_touched ? files_section(state) : undefined,
  ];
  return sections.filter((section) => section !== undefined).join("\n\n");
}

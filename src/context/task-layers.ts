import fs from "node:fs";
import path from "node:path";
import { eq, inArray } from "drizzle-orm";
import type { PromptLayer } from "../contracts/prompt-layer.js";
import type { TaskSpec } from "../contracts/task.js";
import type { Connection } from "../db/connection.js";
import { artifacts, evidence_refs, tasks } from "../db/schema.js";
import { classify_path } from "../permissions/paths.js";
import { default_redactor } from "../permissions/secret-redactor.js";
import { project_layout } from "../project/layout.js";
import { make_layer } from "./layers.js";

const PLAN_PREFIX = ".air/shared/plan/";
/** Longest plan document put in the prompt. */
const PLAN_FILE_MAX_CHARS = 64_000;

/** A plan reference as the task names it: relative to `.air/shared/plan/`, or with that prefix. */
function plan_relative(ref: string): string {
  return path.posix.join(PLAN_PREFIX, ref.startsWith(PLAN_PREFIX) ? ref.slice(PLAN_PREFIX.length) : ref);
}

/**
 * L4: the plan and architecture documents the task names (`context_refs.plan_ref`, `arc_ref`) under
 * `.air/shared/plan/`. Nothing named, or nothing there: no layer. A reference that leaves the plan folder
 * (`../`, a symlink elsewhere) is not read.
 */
export function architecture_layers(project_root: string, task: Pick<TaskSpec, "context_refs">): PromptLayer[] {
  const refs = [...new Set([task.context_refs.plan_ref, task.context_refs.arc_ref].filter((ref): ref is string => ref !== undefined && ref !== ""))];
  if (refs.length === 0) return [];
  const plan_dir = classify_path(path.relative(project_root, project_layout(project_root).plan), project_root).real;
  const layers: PromptLayer[] = [];
  for (const ref of refs) {
    const relative = plan_relative(ref);
    const where = classify_path(relative, project_root);
    if (!where.exists || !where.inside_project || !where.real.startsWith(plan_dir + path.sep)) continue;
    let text: string;
    try {
      text = fs.readFileSync(where.real, "utf8").trimEnd();
    } catch {
      continue;
    }
    if (text.trim() === "") continue;
    const clipped = text.length <= PLAN_FILE_MAX_CHARS ? text : `${text.slice(0, PLAN_FILE_MAX_CHARS)}\n… [cut: the file has ${text.length} characters]`;
    layers.push(make_layer("architecture", relative.slice(".air/shared/".length), `# Plan: ${relative}\n\n${default_redactor().redact(clipped)}`, relative));
  }
  return layers;
}

function summary_of_result(worker_result_json: string | null): string {
  if (worker_result_json === null) return "no result";
  try {
    const summary = (JSON.parse(worker_result_json) as { summary?: unknown }).summary;
    return typeof summary === "string" ? summary : "no summary";
  } catch {
    return "unreadable result";
  }
}

/**
 * L6: what is already known about the task — results of the tasks it builds on, the artifacts it names,
 * and evidence recorded for it by earlier attempts. References with one line each, not contents: the agent
 * reads what it needs through its tools. Chosen once when the agent starts, so it stays in the stable prefix.
 */
export function evidence_layer(connection: Connection, task: TaskSpec): PromptLayer | undefined {
  const db = connection.db;
  const lines: string[] = [];
  const parents = task.context_refs.parent_task_results ?? [];
  if (parents.length > 0) {
    const rows = db
      .select({ id: tasks.id, title: tasks.title, status: tasks.status, result: tasks.worker_result_json })
      .from(tasks)
      .where(inArray(tasks.id, parents))
      .all();
    for (const row of rows) lines.push(`- task ${row.id} "${row.title}" (${row.status}): ${summary_of_result(row.result)}`);
  }
  const named = task.context_refs.artifacts ?? [];
  if (named.length > 0) {
    const rows = db
      .select({ id: artifacts.id, type: artifacts.type, size: artifacts.size_bytes, name: artifacts.original_name })
      .from(artifacts)
      .where(inArray(artifacts.id, named))
      .all();
    for (const row of rows)
      lines.push(`- artifact ${row.id} (${row.type}, ${row.size} bytes${row.name === null ? "" : `, ${row.name}`}): read it with artifact.read`);
  }
  const evidence = db
    .select({ kind: evidence_refs.kind, ref: evidence_refs.ref, claim: evidence_refs.claim })
    .from(evidence_refs)
    .where(eq(evidence_refs.task_id, task.id))
    .orderBy(evidence_refs.id)
    .all();
  for (const row of evidence) lines.push(`- ${row.kind} ${row.ref}: ${row.claim}`);
  if (lines.length === 0) return undefined;
  return make_layer("evidence", `task/${task.id}/evidence`, ["# Evidence and artifacts of this task", ...lines].join("\n"));
}

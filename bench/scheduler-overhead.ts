import fs from "node:fs";
import path from "node:path";
import Database from "libsql";
import { commit_fixture_project } from "../src/cli/commands/e2e-git.js";
import { start_scripted_server } from "../src/providers/scripted/server.js";
import { child_env, run_air } from "./child.js";
import { scheduler_floor, type SchedulerFloor } from "./scheduler-floor.js";
import { task_overheads, type LoggedEvent, type TaskOverhead } from "./scheduler-overhead-log.js";
import { median } from "./stats.js";
import { remove_dir, temp_dir } from "./temp.js";
import { VerificationError } from "./verify.js";

/**
 * The Scheduler's overhead per task, as a user runs a team (the built CLI, `air run -p`): a git project, a plan
 * of `tasks` independent trivial tasks (each writes one new file in its own folder; verification `cat` of it),
 * the scripted model answering at once, `--max-parallel` = `tasks`, so each task gets a worktree, a worker and
 * a merge. Per task, from the session's event log: its worktree's creation to its removal after the merge,
 * less its model calls, its commands and its wait behind other merges (scheduler-overhead-log.ts). Beside it,
 * the floor measured in the same run on a copy of the project (scheduler-floor.ts).
 */
export type SchedulerOverhead = {
  readonly tasks: number;
  readonly rounds: number;
  /** Over every task of every round. */
  readonly p50_ms: number;
  readonly max_ms: number;
  /** Median of each step over every task of every round. */
  readonly parts: Omit<TaskOverhead, "task_id">;
  readonly floor: SchedulerFloor;
};

const RUN_TIMEOUT_MS = 120_000;

function keys_of(tasks: number): string[] {
  return Array.from({ length: tasks }, (_, n) => `t${n + 1}`);
}

/** The Main Agent's plan and one conversation per task: write `<key>/done.txt`, then say done. */
function script(keys: readonly string[]) {
  const title = (key: string) => `Write ${key}/done.txt`;
  const tasks = keys.map((key) => ({
    key,
    title: title(key),
    description: `Create ${key}/done.txt saying that ${key} is done.`,
    acceptance_criteria: [`${key}/done.txt exists`],
    verification_commands: [`cat ${key}/done.txt`],
    write_area: [`${key}/**`],
    expected_files: [`${key}/done.txt`],
    depends_on: { hard: [], soft: [] },
  }));
  return {
    turns: { main: [{ reply: { content: [{ type: "tool_use", name: "classify_request", input: { intent: "plan", tasks } }] } }] },
    conversations: keys.map((key) => ({
      name: key,
      match: { requester: "executor", task_title: title(key) },
      turns: [
        { reply: { content: [{ type: "tool_use", name: "fs.write", input: { path: `${key}/done.txt`, content: `done ${key}\n` } }] } },
        { reply: { content: [{ type: "text", text: `${key}/done.txt is written.` }] } },
      ],
    })),
  };
}

function make_project(root: string, keys: readonly string[]): void {
  for (const key of keys) {
    fs.mkdirSync(path.join(root, key), { recursive: true });
    fs.writeFileSync(path.join(root, key, "note.txt"), `the folder of ${key}\n`);
  }
  commit_fixture_project(root);
}

function logged_events(project: string): LoggedEvent[] {
  const sessions = path.join(project, ".air", "local", "sessions");
  const [session, ...others] = fs.readdirSync(sessions);
  if (session === undefined || others.length > 0) throw new VerificationError(`expected one session in ${sessions}, found ${fs.readdirSync(sessions).length}`);
  const db = new Database(path.join(sessions, session, "session.db"), { readonly: true });
  try {
    const rows = db.prepare("SELECT type, timestamp, task_id, agent_id, payload_json FROM events ORDER BY seq").all() as {
      type: string;
      timestamp: string;
      task_id: string | null;
      agent_id: string | null;
      payload_json: string;
    }[];
    return rows.map((row) => ({
      type: row.type,
      at: Date.parse(row.timestamp),
      task_id: row.task_id,
      agent_id: row.agent_id,
      payload: JSON.parse(row.payload_json),
    }));
  } finally {
    db.close();
  }
}

async function run_once(keys: readonly string[]): Promise<{ tasks: TaskOverhead[]; floor: SchedulerFloor }> {
  const work = temp_dir("scheduler-overhead");
  const script_file = path.join(work, "script.json");
  fs.writeFileSync(script_file, JSON.stringify(script(keys)));
  const server = await start_scripted_server({ script: script_file, delay_ms: 0 });
  try {
    const project = path.join(work, "project");
    make_project(project, keys);
    const floor_root = path.join(work, "floor");
    fs.cpSync(project, floor_root, { recursive: true });
    const env = { ...child_env(), AIR_HOME: path.join(work, "air-home"), ANTHROPIC_API_KEY: "sk-scripted", ANTHROPIC_BASE_URL: server.url };
    const args = ["run", "-p", `write done.txt in ${keys.join(", ")}`, "--permission-mode", "accept-edits", "--max-parallel", String(keys.length)];
    const run = await run_air(args, project, env, RUN_TIMEOUT_MS);
    if (run.code !== 0) throw new VerificationError(`air run exited ${run.code}:\n${run.output.split("\n").slice(-12).join("\n")}`);
    for (const key of keys) {
      if (!fs.existsSync(path.join(project, key, "done.txt"))) throw new VerificationError(`after air run, ${key}/done.txt is not in the checkout`);
    }
    const tasks = task_overheads(logged_events(project));
    if (tasks.length !== keys.length) throw new VerificationError(`${tasks.length} of ${keys.length} tasks went through a worktree to a merge`);
    return { tasks, floor: await scheduler_floor(floor_root, keys) };
  } finally {
    await server.close();
    remove_dir(work);
  }
}

export async function bench_scheduler_overhead(rounds: number, tasks: number): Promise<SchedulerOverhead> {
  const keys = keys_of(tasks);
  const overheads: TaskOverhead[] = [];
  const floors: SchedulerFloor[] = [];
  for (let round = 0; round < rounds; round++) {
    const { tasks: measured, floor } = await run_once(keys);
    overheads.push(...measured);
    floors.push(floor);
  }
  const part = (name: Exclude<keyof TaskOverhead, "task_id">) => median(overheads.map((task) => task[name]));
  const low = (name: keyof SchedulerFloor) => median(floors.map((floor) => floor[name]));
  const totals = overheads.map((task) => task.total_ms);
  return {
    tasks,
    rounds,
    p50_ms: median(totals),
    max_ms: Math.max(...totals),
    parts: {
      create_ms: part("create_ms"),
      dispatch_ms: part("dispatch_ms"),
      spawn_ms: part("spawn_ms"),
      worker_ms: part("worker_ms"),
      to_merge_ms: part("to_merge_ms"),
      merge_ms: part("merge_ms"),
      total_ms: part("total_ms"),
      queue_wait_ms: part("queue_wait_ms"),
      model_ms: part("model_ms"),
      commands_ms: part("commands_ms"),
    },
    floor: {
      worktree_ms: low("worktree_ms"),
      commit_ms: low("commit_ms"),
      merge_ms: low("merge_ms"),
      remove_ms: low("remove_ms"),
      spawn_ms: low("spawn_ms"),
      total_ms: low("total_ms"),
    },
  };
}

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { air, type Project, type Session } from "./dist.js";
import { median, ratios } from "./stats.js";
import { temp_dir } from "./temp.js";
import { VerificationError } from "./verify.js";

/**
 * Cold `air session list` over a project of many sessions, as a fresh process running the built CLI,
 * against the floor of any node CLI: `node -e 0`. Runs interleave so drift hits both alike.
 */
/** Medians of each side, and the median of the per-pair air/node ratios (pairs run back to back). */
export type ListResult = { readonly air_ms: number; readonly node_ms: number; readonly ratio: number; readonly runs: number; readonly sessions: number };

const AIR_BIN = fileURLToPath(new URL("../bin/air.js", import.meta.url));

function some_activity(session: Session, index: number): { messages: number; tasks: number } {
  const { make_event } = air.registry;
  const { new_id } = air.ids;
  const messages = 1 + (index % 3);
  for (let m = 0; m < messages; m++) {
    session.ingestor.ingest(
      make_event("user.message.created", { message_id: new_id("message"), content: `question ${m} of session ${index}` }, session.origin),
    );
  }
  const task_id = new_id("task");
  const task = {
    id: task_id,
    type: "execute" as const,
    title: `task of session ${index}`,
    description: "",
    acceptance_criteria: [],
    scope: {},
    dependencies: { hard: [], soft: [] },
    verification: { required: false, fallback_allowed: true },
    constraints: { max_turns: 5, soft_timeout_ms: 1_000, hard_timeout_ms: 2_000, retry_budget: 1, model_policy: "agent_select" as const },
    context_refs: {},
    output_contract: "ExecutorResult" as const,
  };
  session.ingestor.ingest(make_event("task.created", { task }, session.origin));
  session.ingestor.ingest(make_event("task.started", { task_id, attempt_id: new_id("attempt") }, session.origin));
  return { messages, tasks: 1 };
}

/** `count` sessions opened and closed through open_session; every fourth one with messages and a task. */
function populate(project: Project, count: number): { messages: number; tasks: number } {
  const totals = { messages: 0, tasks: 0 };
  for (let i = 0; i < count; i++) {
    const session = air.sessions.open_session(project, { title: `session ${i}` });
    try {
      if (i % 4 === 0) {
        const added = some_activity(session, i);
        totals.messages += added.messages;
        totals.tasks += added.tasks;
      }
    } finally {
      session.close();
    }
  }
  return totals;
}

type Spawned = { ms: number; stdout: string };

function spawn_timed(args: string[], cwd: string, env: NodeJS.ProcessEnv): Spawned {
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, args, { cwd, env, encoding: "utf8" });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (child.error !== undefined || child.status !== 0 || child.stderr !== "") {
    throw new VerificationError(`node ${args.join(" ")} failed (status ${child.status}): ${child.error?.message ?? child.stderr}`);
  }
  return { ms, stdout: child.stdout };
}

function listed_ids(stdout: string): number {
  return stdout.split("\n").filter((line) => /^ses_[0-9A-Z]{26}\s/.test(line)).length;
}

export function bench_session_list(sessions: number, runs: number, air_home: string): ListResult {
  const root = temp_dir("list");
  const { project } = air.projects.init_project(root);
  const totals = populate(project, sessions);
  const env: NodeJS.ProcessEnv = { ...process.env, AIR_HOME: air_home };
  delete env.NODE_OPTIONS;

  // What the listing says must be what was made: every session, with its messages and tasks.
  const json = JSON.parse(spawn_timed([AIR_BIN, "session", "list", "--json"], root, env).stdout) as {
    sessions: { message_count: number; task_count: number }[];
    unreadable: unknown[];
  };
  const messages = json.sessions.reduce((sum, s) => sum + s.message_count, 0);
  const tasks = json.sessions.reduce((sum, s) => sum + s.task_count, 0);
  if (json.sessions.length !== sessions || json.unreadable.length !== 0 || messages !== totals.messages || tasks !== totals.tasks) {
    throw new VerificationError(
      `session list --json: ${json.sessions.length} sessions (${json.unreadable.length} unreadable), ${messages} messages, ${tasks} tasks; ` +
        `expected ${sessions}, 0, ${totals.messages}, ${totals.tasks}`,
    );
  }

  const list = () => {
    const run = spawn_timed([AIR_BIN, "session", "list"], root, env);
    const listed = listed_ids(run.stdout);
    if (listed !== sessions) throw new VerificationError(`air session list printed ${listed} sessions, expected ${sessions}`);
    return run.ms;
  };
  const floor = () => spawn_timed(["-e", "0"], root, env).ms;

  list();
  floor();
  const air_ms: number[] = [];
  const node_ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      air_ms.push(list());
      node_ms.push(floor());
    } else {
      node_ms.push(floor());
      air_ms.push(list());
    }
  }
  const ratio = median(ratios(air_ms, node_ms));
  return { air_ms: median(air_ms), node_ms: median(node_ms), ratio, runs, sessions };
}

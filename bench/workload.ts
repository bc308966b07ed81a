import { air } from "./dist.js";

/**
 * The ingest workload: a repeating task cycle that the lifecycle guard accepts and that touches every
 * projection a working session writes most (tasks, task_dependencies, task_attempts, tool_runs,
 * command_runs). Payloads are built in their canonical form — keys in schema order, defaults filled in —
 * so the row a raw writer serialises from the input equals the row air serialises from the parsed event.
 */
export type BenchEvent = {
  readonly id: string;
  readonly type: CycleType;
  readonly version: number;
  readonly timestamp: string;
  readonly session_id: string;
  readonly project_id?: string;
  readonly source: { kind: string; id?: string; agent_type?: string };
  readonly route: string[];
  readonly payload: Record<string, unknown>;
};

const CYCLE = ["task.created", "task.started", "tool.started", "tool.completed", "command.started", "command.completed", "task.completed"] as const;
export type CycleType = (typeof CYCLE)[number];

export type Origin = { readonly session_id: string; readonly project_id: string };

const { new_id } = air.ids;
const { EVENT_REGISTRY } = air.registry;

function task_spec(task_id: string, index: number, previous: string | undefined) {
  return {
    id: task_id,
    type: "execute",
    title: `Implement step ${index} of the parser`,
    description: "Add the missing branch to the tokenizer and cover it with a unit test.",
    acceptance_criteria: ["the new test passes", "no other test regresses"],
    scope: { write_area: ["src/parser"], expected_files: ["src/parser/tokenizer.ts", "test/tokenizer.test.ts"] },
    dependencies: { hard: previous === undefined ? [] : [previous], soft: [], conflict: [], serialization: [] },
    verification: { commands: ["npm test"], tools: [], required: true, fallback_allowed: false },
    constraints: { max_turns: 20, soft_timeout_ms: 600_000, hard_timeout_ms: 1_200_000, retry_budget: 2, model_policy: "agent_select" },
    context_refs: { plan_ref: "plan/step.md" },
    output_contract: "ExecutorResult",
  };
}

function worker_result(task_id: string, agent_id: string) {
  return {
    task_id,
    agent_id,
    status: "completed",
    summary: "Added the branch and a test; the suite passes.",
    changed_files: ["src/parser/tokenizer.ts", "test/tokenizer.test.ts"],
    artifacts: [],
    verification: [{ command: "npm test", exit_code: 0, passed: true, duration_ms: 2150 }],
    risks: [],
    follow_up_tasks: [],
    evidence_refs: [],
    agent_type: "executor",
    result: { commands_run: ["npm test"], tests_added: ["test/tokenizer.test.ts"] },
  };
}

/** One cycle of `CYCLE.length` events for a new task (depending on the previous cycle's task). */
function cycle(origin: Origin, index: number, previous_task: string | undefined): BenchEvent[] {
  const task_id = new_id("task");
  const agent_id = new_id("agent");
  const tool_run_id = new_id("tool_run");
  const command_run_id = new_id("command_run");
  const payloads: Record<CycleType, Record<string, unknown>> = {
    "task.created": { task: task_spec(task_id, index, previous_task), priority: index % 3 },
    "task.started": { task_id, attempt_id: new_id("attempt"), agent_id },
    "tool.started": {
      tool_run_id,
      tool_name: "bash",
      tool_version: 1,
      input: { command: "npm test -- tokenizer", timeout_ms: 120_000 },
      task_id,
      agent_id,
    },
    "tool.completed": {
      tool_run_id,
      output: { exit_code: 0, stdout_tail: "Tests: 42 passed, 42 total" },
      artifact_ids: [],
      evidence_ids: [],
      duration_ms: 2150.4,
    },
    "command.started": { command_run_id, command: "npm test -- tokenizer", cwd: "/work/project", tool_run_id, task_id, agent_id },
    "command.completed": { command_run_id, exit_code: 0, duration_ms: 2148.7, diagnostic_ids: [] },
    "task.completed": { task_id, worker_result: worker_result(task_id, agent_id) },
  };
  return CYCLE.map((type) => ({
    id: new_id("event"),
    type,
    version: EVENT_REGISTRY[type].version,
    timestamp: new Date().toISOString(),
    session_id: origin.session_id,
    project_id: origin.project_id,
    source: { kind: "agent", id: agent_id, agent_type: "executor" },
    route: ["main", "scheduler", task_id],
    payload: payloads[type],
  }));
}

/** `count` events (a multiple of the cycle length) for one session. */
export function build_events(origin: Origin, count: number): BenchEvent[] {
  if (count % CYCLE.length !== 0) throw new Error(`event count ${count} is not a multiple of ${CYCLE.length}`);
  const events: BenchEvent[] = [];
  let previous: string | undefined;
  for (let index = 0; index < count / CYCLE.length; index++) {
    const next = cycle(origin, index, previous);
    events.push(...next);
    // biome-ignore lint/style/noNonNullAssertion: a cycle is CYCLE's events, the first of them task.created
    previous = (next[0]!.payload.task as { id: string }).id;
  }
  return events;
}

export type ExpectedRows = {
  readonly events: number;
  readonly tasks: number;
  readonly task_dependencies: number;
  readonly task_attempts: number;
  readonly tool_runs: number;
  readonly command_runs: number;
};

/** Rows each projection table holds after `count` events of the workload. */
export function expected_rows(count: number): ExpectedRows {
  const tasks = count / CYCLE.length;
  return { events: count, tasks, task_dependencies: Math.max(tasks - 1, 0), task_attempts: tasks, tool_runs: tasks, command_runs: tasks };
}

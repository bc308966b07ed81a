/**
 * A worker whose model never stops asking for tools is stopped by its budget: at its turn limit, and at its
 * token limit by the parent's `model.complete` with at most one model call over; either way the task ends
 * blocked with the limit named, and `air tasks` lists it with what it used. The real runtime, worker process
 * and AnthropicAdapter against the scripted model server.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { start_runtime } from "../../../src/actors/runtime/runtime.js";
import { DEFAULT_TASK_DEFAULTS } from "../../../src/cli/run-requirement.js";
import { run_tasks } from "../../../src/cli/commands/tasks.js";
import type { Io } from "../../../src/cli/output.js";
import type { TaskBudget } from "../../../src/contracts/budget.js";
import { tasks } from "../../../src/db/schema.js";
import { usage_of } from "../../../src/orchestration/budget/usage.js";
import { permissions_for_project } from "../../../src/permissions/session-permissions.js";
import { ProviderManager } from "../../../src/providers/manager.js";
import { start_scripted_server } from "../../../src/providers/scripted/server.js";
import type { TurnInput } from "../../../src/providers/scripted/script.js";
import { open_temp_session, set_air_home, type TempSession } from "../../fixtures/session.js";

const KEY = "sk-worker-budget-test";

const plan: TurnInput = {
  reply: {
    content: [
      {
        type: "tool_use",
        name: "classify_request",
        input: { intent: "task", title: "Read the notes forever", description: "Keep reading notes.txt.", acceptance_criteria: [], verification_commands: [] },
      },
    ],
  },
};

/** A model that always wants one more read: without a budget the worker would never stop. */
const read_again: TurnInput = {
  reply: { content: [{ type: "tool_use", name: "fs.read", input: { path: "notes.txt" } }], usage: { input_tokens: 50, output_tokens: 100 } },
};

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function run_endless_worker(max_turns: number, budget?: TaskBudget): Promise<TempSession> {
  const temp = open_temp_session();
  cleanups.push(() => temp.cleanup());
  cleanups.push(set_air_home(path.join(temp.root, "air-home")));
  fs.writeFileSync(path.join(temp.project.layout.root, "notes.txt"), "nothing new\n");
  const server = await start_scripted_server({ script: { turns: { main: [plan], executor: Array.from({ length: 12 }, () => read_again) } }, api_key: KEY });
  cleanups.push(() => server.close());
  const providers = ProviderManager.load({
    home: temp.root,
    env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
    retry: { sleep: async () => undefined },
  });
  const runtime = await start_runtime(temp.session, {
    provider: providers.for_session(),
    permissions: permissions_for_project(temp.project.layout, { mode: "accept-edits" }),
    task_defaults: { ...DEFAULT_TASK_DEFAULTS, max_turns, retry_budget: 0, ...(budget === undefined ? {} : { budget }) },
  });
  cleanups.push(() => runtime.stop());
  await runtime.submit("read the notes until told to stop");
  return temp;
}

function only_task(temp: TempSession) {
  const rows = temp.session.connection.db.select().from(tasks).all();
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

async function air_tasks(temp: TempSession, json: boolean): Promise<string> {
  let out = "";
  const io: Io = { cwd: temp.project.layout.root, out: (text) => (out += text), err: () => undefined };
  expect(await run_tasks(io, { json })).toBe(0);
  return out;
}

describe("a worker that never stops", () => {
  it("is stopped at its turn budget and ends blocked naming it", async () => {
    const temp = await run_endless_worker(3);
    const task = only_task(temp);
    expect(task.status).toBe("blocked");
    expect(task.status_reason).toContain("turn budget of 3");
    expect(usage_of(temp.session.connection, { agent_id: task.agent_id! }).turns).toBe(3);
  });

  it("is stopped at its token budget with at most one model call over, and ends blocked naming the limit", async () => {
    const temp = await run_endless_worker(30, { output_tokens: 250 });
    const task = only_task(temp);
    const used = usage_of(temp.session.connection, { agent_id: task.agent_id! });
    expect(task.status).toBe("blocked");
    expect(task.status_reason).toBe("the task's output_tokens budget is used up (300 of 250 output tokens)");
    // The call that crossed the limit is the only one over it: without it the usage was under the limit.
    expect(used.turns).toBe(3);
    expect(used.output_tokens - 100).toBeLessThan(250);
    const exceeded = temp.session.store.query({ types: ["budget.exceeded"] }).map(({ event }) => event.payload);
    expect(exceeded).toEqual([expect.objectContaining({ budget: "task", limit: "output_tokens", used: 300, of: 250, task_id: task.id })]);
  });

  it("is listed by `air tasks` with its status, workspace, attempts and usage, and a total", async () => {
    const temp = await run_endless_worker(2);
    const task = only_task(temp);
    const listing = JSON.parse(await air_tasks(temp, true));
    expect(listing).toMatchObject({
      session_id: temp.session.id,
      tasks: [{ id: task.id, status: "blocked", workspace: "main", branch: null, attempts: 1, usage: { turns: 2, input_tokens: 100, output_tokens: 200 } }],
    });
    // The Main Agent's classification is one more model call of the session.
    expect(listing.total.turns).toBe(3);
    const text = await air_tasks(temp, false);
    expect(text).toMatch(new RegExp(`^${task.id}\\s+blocked\\s+1\\s+main\\s+-\\s+2\\s+100\\s+200\\s`, "m"));
    expect(text).toContain("Total (every model call of the session, the Main Agent's too): 3 model call(s)");
  });
});

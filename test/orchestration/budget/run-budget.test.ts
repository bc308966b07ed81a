/**
 * A run budget (`--max-tokens`) stops new dispatches: once the run's model calls have used it up, the
 * Scheduler starts no further task and ends blocked naming the limit; the tasks it held back stay pending,
 * and a resumed run with a higher budget finishes them. The real runtime, worker processes and
 * AnthropicAdapter against the scripted model server, in a folder that is not a git checkout (one task at a
 * time, so each task's model call is made before the next task is dispatched).
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { recover_session } from "../../../src/actors/runtime/recovery.js";
import { start_runtime } from "../../../src/actors/runtime/runtime.js";
import { DEFAULT_TASK_DEFAULTS } from "../../../src/cli/run-requirement.js";
import type { RunBudget } from "../../../src/contracts/budget.js";
import { tasks } from "../../../src/db/schema.js";
import { permissions_for_project } from "../../../src/permissions/session-permissions.js";
import { ProviderManager } from "../../../src/providers/manager.js";
import { start_scripted_server } from "../../../src/providers/scripted/server.js";
import type { TurnInput } from "../../../src/providers/scripted/script.js";
import { open_temp_session, set_air_home, type TempSession } from "../../fixtures/session.js";

const KEY = "sk-run-budget-test";
const TITLES = ["Note one", "Note two", "Note three"];

const plan: TurnInput = {
  reply: {
    content: [
      {
        type: "tool_use",
        name: "classify_request",
        input: {
          intent: "plan",
          tasks: TITLES.map((title, index) => ({
            key: `note${index}`,
            title,
            description: `Say that ${title.toLowerCase()} is read.`,
            acceptance_criteria: [],
            verification_commands: [],
            write_area: [`notes/${index}/**`],
            expected_files: [],
            depends_on: { hard: [], soft: [] },
          })),
        },
      },
    ],
    usage: { input_tokens: 100, output_tokens: 10 },
  },
};

/**
 * Each task's worker records that its note is read (a completion with no change would not pass the review
 * gate), then answers; only the answer costs tokens, 500.
 */
const conversations = TITLES.map((title, index) => ({
  name: `note${index}`,
  match: { requester: "executor", task_title: title },
  turns: [
    {
      reply: {
        content: [{ type: "tool_use" as const, name: "fs.write", input: { path: `notes/${index}/read.md`, content: "read\n" } }],
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    },
    { reply: { content: [{ type: "text" as const, text: "Read." }], usage: { input_tokens: 400, output_tokens: 100 } } },
  ],
}));

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function providers_for(temp: TempSession) {
  const server = await start_scripted_server({
    script: { turns: { main: [plan] }, conversations },
    api_key: KEY,
  });
  cleanups.push(() => server.close());
  return ProviderManager.load({ home: temp.root, env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url }, retry: { sleep: async () => undefined } });
}

async function runtime_of(temp: TempSession, providers: ProviderManager, run_budget: RunBudget) {
  const runtime = await start_runtime(temp.session, {
    provider: providers.for_session(),
    permissions: permissions_for_project(temp.project.layout, { mode: "accept-edits" }),
    task_defaults: { ...DEFAULT_TASK_DEFAULTS, retry_budget: 0 },
    run_budget,
  });
  cleanups.push(() => runtime.stop());
  return runtime;
}

function statuses(temp: TempSession): string[] {
  return temp.session.connection.db
    .select()
    .from(tasks)
    .all()
    .map((task) => task.status);
}

describe("a run budget", () => {
  it("stops new dispatches once spent, ends blocked naming the limit, and leaves the held-back tasks pending for a resume", async () => {
    const temp = open_temp_session();
    cleanups.push(() => temp.cleanup());
    cleanups.push(set_air_home(path.join(temp.root, "air-home")));
    fs.writeFileSync(path.join(temp.project.layout.root, "notes.txt"), "three notes\n");
    const providers = await providers_for(temp);

    // 110 tokens for the plan, 500 for the first task: 610 of 600 once the first task is done.
    const outcome = await (await runtime_of(temp, providers, { tokens: 600 })).submit("read the three notes");
    expect(outcome.kind).toBe("executed");
    if (outcome.kind !== "executed") return;
    expect(outcome.run.status).toBe("blocked");
    expect(outcome.run.error?.message).toMatch(/^the run's budget is spent: .*tokens.*; no further task was started$/);
    expect(outcome.run.error?.metadata).toMatchObject({ limit: "tokens", of: 600 });
    expect(temp.session.store.query({ types: ["task.started"] })).toHaveLength(1);
    expect(statuses(temp).sort()).toEqual(["completed", "pending", "pending"]);

    // Resumed with a higher budget, the run goes on with the tasks it held back.
    recover_session(temp.session);
    const resumed = await (await runtime_of(temp, providers, { tokens: 5_000 })).resume();
    expect(resumed.status).toBe("completed");
    expect(temp.session.store.query({ types: ["task.started"] })).toHaveLength(3);
    expect(statuses(temp)).toEqual(["completed", "completed", "completed"]);
  });
});

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import * as v from "valibot";
import { start_runtime } from "../src/actors/runtime/runtime.js";
import { commit_fixture_project } from "../src/cli/commands/e2e-git.js";
import { DEFAULT_TASK_DEFAULTS } from "../src/cli/run-requirement.js";
import type { RuntimeEvent } from "../src/contracts/events/registry.js";
import { ReviewSettings } from "../src/orchestration/review/settings.js";
import { permissions_for_project } from "../src/permissions/session-permissions.js";
import { init_project } from "../src/project/project-store.js";
import { open_session } from "../src/project/session-manager.js";
import { ProviderManager } from "../src/providers/manager.js";
import { start_scripted_server } from "../src/providers/scripted/server.js";
import { median } from "./stats.js";
import { remove_dir, temp_dir } from "./temp.js";
import { VerificationError } from "./verify.js";

/**
 * The review gate's cost per task beside the executor run it gates, in one runtime (real worker processes,
 * the scripted model answering after a fixed delay, a git project, the task in a worktree): the executor run
 * from its agent's start to its end (two model turns), the gate from there to the recorded review (the diff,
 * a reviewer worker, one model turn). Both from the session's event log.
 */
export type ReviewGateBench = {
  readonly rounds: number;
  readonly model_delay_ms: number;
  readonly executor_p50_ms: number;
  readonly gate_p50_ms: number;
  /** The gate's time less its one model turn: what air adds around the reviewer's model call. */
  readonly gate_overhead_p50_ms: number;
};

const KEY = "sk-review-gate-bench";

const SCRIPT = {
  turns: {
    main: [
      {
        delay_ms: 0,
        reply: {
          content: [
            {
              type: "tool_use" as const,
              name: "classify_request",
              input: {
                intent: "task",
                title: "Write the note",
                description: "Write notes/today.md.",
                acceptance_criteria: [],
                verification_commands: [],
                write_area: ["notes/**"],
              },
            },
          ],
        },
      },
    ],
    executor: [
      { reply: { content: [{ type: "tool_use" as const, name: "fs.write", input: { path: "notes/today.md", content: "written\n" } }] } },
      { reply: { content: [{ type: "text" as const, text: "Wrote notes/today.md." }] } },
    ],
    reviewer: [{ reply: { content: [{ type: "tool_use" as const, name: "submit_review", input: { verdict: "approved", findings: [] } }] } }],
  },
};

const at = (event: RuntimeEvent) => Date.parse(event.timestamp);

async function round(model_delay_ms: number): Promise<{ executor_ms: number; gate_ms: number }> {
  const work = temp_dir("review-gate");
  const previous_home = process.env.AIR_HOME;
  process.env.AIR_HOME = path.join(work, "air-home");
  const server = await start_scripted_server({ script: SCRIPT, api_key: KEY, delay_ms: model_delay_ms });
  try {
    const root = path.join(work, "project");
    fs.mkdirSync(path.join(root, "notes"), { recursive: true });
    fs.writeFileSync(path.join(root, "notes", "README.md"), "notes live here\n");
    fs.writeFileSync(path.join(root, ".gitignore"), ".air/\n");
    commit_fixture_project(root);
    const { project } = init_project(root, { name: "review-gate" });
    const session = open_session(project, { title: "review gate bench" });
    const providers = ProviderManager.load({
      home: work,
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
      retry: { sleep: async () => undefined },
    });
    const runtime = await start_runtime(session, {
      provider: providers.for_session(),
      permissions: permissions_for_project(project.layout, { mode: "accept-edits" }),
      task_defaults: DEFAULT_TASK_DEFAULTS,
      lone_task: "worktree",
      review: v.parse(ReviewSettings, { policy: "always" }),
    });
    try {
      const outcome = await runtime.submit("write today's note");
      if (outcome.kind !== "executed" || outcome.run.status !== "completed") throw new VerificationError(`the gated run ended ${JSON.stringify(outcome)}`);
    } finally {
      await runtime.stop();
    }
    const events = session.store.query({ types: ["agent.started", "agent.completed", "review.completed"] }).map(({ event }) => event);
    const executor = events.find((event) => event.type === "agent.started" && event.payload.agent_type === "executor");
    const executor_id = executor?.type === "agent.started" ? executor.payload.agent_id : undefined;
    const ended = events.find((event) => event.type === "agent.completed" && event.payload.agent_id === executor_id);
    const review = events.find((event) => event.type === "review.completed");
    if (executor === undefined || ended === undefined || review === undefined)
      throw new VerificationError("the run left no executor run or no review in its log");
    session.close();
    return { executor_ms: at(ended) - at(executor), gate_ms: at(review) - at(ended) };
  } finally {
    await server.close();
    if (previous_home === undefined) delete process.env.AIR_HOME;
    else process.env.AIR_HOME = previous_home;
    remove_dir(work);
  }
}

export async function bench_review_gate(rounds: number, model_delay_ms: number): Promise<ReviewGateBench> {
  const runs: { executor_ms: number; gate_ms: number }[] = [];
  for (let n = 0; n < rounds; n++) runs.push(await round(model_delay_ms));
  const gate = median(runs.map((run) => run.gate_ms));
  return {
    rounds,
    model_delay_ms,
    executor_p50_ms: median(runs.map((run) => run.executor_ms)),
    gate_p50_ms: gate,
    gate_overhead_p50_ms: gate - model_delay_ms,
  };
}

/** `npx tsx bench/review-gate.ts [rounds] [model delay ms]`: the figures, one line. */
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rounds = Number(process.argv[2] ?? 3);
  const delay = Number(process.argv[3] ?? 200);
  const result = await bench_review_gate(rounds, delay);
  process.stdout.write(
    `review gate per task: p50 ${result.gate_p50_ms} ms (model ${delay} ms, air ${result.gate_overhead_p50_ms} ms) beside the executor run it gates: p50 ${result.executor_p50_ms} ms (2 model turns of ${delay} ms); ${result.rounds} round(s)\n`,
  );
}

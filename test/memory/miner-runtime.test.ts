/**
 * The Scheduler triggers the ExperienceMiner through the real runtime: a task runs (Main Agent, executor and
 * miner all real workers over the scripted server), and the miner runs after the Scheduler's step or at
 * `Runtime.stop()`, in the background, never changing the run's outcome. Needs `npm run build`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { start_runtime } from "../../src/actors/runtime/runtime.js";
import { DEFAULT_TASK_DEFAULTS } from "../../src/cli/run-requirement.js";
import type { MinerSettings } from "../../src/memory/experience-miner.js";
import { permissions_for_project } from "../../src/permissions/session-permissions.js";
import { ProviderManager } from "../../src/providers/manager.js";
import type { ScriptInput } from "../../src/providers/scripted/script.js";
import { start_scripted_server } from "../../src/providers/scripted/server.js";
import { find_rows, open_temp_session } from "../fixtures/session.js";

const KEY = "sk-miner-runtime-test";

type MinerTurns = NonNullable<ScriptInput["turns"]>[string];

const tool = (name: string, input: Record<string, unknown>) => ({ reply: { content: [{ type: "tool_use" as const, name, input }] } });

function script(miner: MinerTurns): ScriptInput {
  return {
    turns: {
      main: [
        tool("classify_request", {
          intent: "task",
          title: "Write the note",
          description: "notes/a.txt says hello.",
          acceptance_criteria: ["notes/a.txt exists"],
          verification_commands: ["test -f notes/a.txt"],
        }),
      ],
      executor: [tool("fs.write", { path: "notes/a.txt", content: "hello\n" }), { reply: { content: [{ type: "text", text: "Wrote the note." }] } }],
      experience_miner: miner,
    },
  };
}

const NOTHING_TO_KEEP = [tool("memory.propose", { candidates: [] })];

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function run_task(miner_turns: MinerTurns, settings: MinerSettings) {
  const temp = open_temp_session();
  cleanups.push(() => temp.cleanup());
  const server = await start_scripted_server({ script: script(miner_turns), api_key: KEY });
  cleanups.push(() => server.close());
  const providers = ProviderManager.load({
    home: temp.root,
    env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
    retry: { sleep: async () => undefined },
  });
  const logs: string[] = [];
  const runtime = await start_runtime(temp.session, {
    provider: providers.for_session(),
    permissions: permissions_for_project(temp.project.layout, { mode: "accept-edits" }),
    task_defaults: DEFAULT_TASK_DEFAULTS,
    experience_miner: settings,
    on_worker_log: (entry) => logs.push(`${entry.level}: ${entry.message}`),
  });
  const outcome = await runtime.submit("write the note");
  await runtime.stop();
  const miner_requests = server.requests().filter((request) => request.requester === "experience_miner");
  const miner_agents = find_rows(temp.session.connection, "agents", "experience_miner", "agent_type");
  return { outcome, miner_requests, miner_agents, logs };
}

describe("the Scheduler's miner triggers", () => {
  it("mines after the step whose tool calls reach N, in the background, and not again at the end without new evidence", async () => {
    const { outcome, miner_requests, miner_agents } = await run_task(NOTHING_TO_KEEP, { enabled: true, every_n_tool_calls: 1 });
    expect(outcome).toMatchObject({ kind: "executed", run: { status: "completed" } });
    expect(miner_requests).toHaveLength(1);
    const handed = JSON.stringify(miner_requests[0]?.body);
    expect(handed).toContain("mined on tool calls");
    expect(handed).toContain("its verification passed");
    expect(miner_agents).toEqual([expect.objectContaining({ status: "completed" })]);
  });

  it("mines at Runtime.stop() what the steps did not", async () => {
    const { miner_requests } = await run_task(NOTHING_TO_KEEP, { enabled: true, every_n_tool_calls: 100 });
    expect(miner_requests).toHaveLength(1);
    expect(JSON.stringify(miner_requests[0]?.body)).toContain("mined on session end");
  });

  it("leaves the run's outcome as it was when the miner fails", async () => {
    const { outcome, miner_requests, logs } = await run_task([{ error: { status: 400 } }], { enabled: true, every_n_tool_calls: 1 });
    expect(outcome).toMatchObject({ kind: "executed", run: { status: "completed" } });
    expect(miner_requests).toHaveLength(1);
    expect(logs).toContainEqual(expect.stringContaining("warn: the experience miner's run ended"));
  });
});

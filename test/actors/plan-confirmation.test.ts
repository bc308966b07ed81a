/**
 * An interactive runtime asks before it records a plan of more than one task: the plan is shown, the turn
 * waits for `approve_plan` / `reject_plan`, and a rejected plan leaves no task. The real runtime and
 * AnthropicAdapter against the scripted model server; no task runs, so no worker is needed.
 */
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "xstate";
import { confirms_plans, start_runtime, type Runtime } from "../../src/actors/runtime/runtime.js";
import { DEFAULT_TASK_DEFAULTS } from "../../src/cli/run-requirement.js";
import type { PermissionMode } from "../../src/contracts/events/permission.js";
import type { RuntimeEvent } from "../../src/contracts/events/registry.js";
import { is_air_failure } from "../../src/contracts/errors.js";
import { permissions_for_project } from "../../src/permissions/session-permissions.js";
import { ProviderManager } from "../../src/providers/manager.js";
import { start_scripted_server } from "../../src/providers/scripted/server.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";

const KEY = "sk-plan-confirmation-test";

const task = (key: string, hard: string[] = []) => ({
  key,
  title: `Write ${key}`,
  description: `Create ${key}.txt.`,
  acceptance_criteria: [],
  verification_commands: [],
  write_area: [`${key}.txt`],
  depends_on: { hard, soft: [] },
});
const two_tasks = {
  reply: { content: [{ type: "tool_use" as const, name: "classify_request", input: { intent: "plan", tasks: [task("a"), task("b", ["a"])] } }] },
};

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function interactive_runtime(mode: PermissionMode): Promise<{ temp: TempSession; runtime: Runtime; shown: RuntimeEvent[] }> {
  const temp = open_temp_session();
  cleanups.push(() => temp.cleanup());
  const server = await start_scripted_server({ script: { turns: { main: [two_tasks] } }, api_key: KEY });
  cleanups.push(() => server.close());
  const providers = ProviderManager.load({
    home: temp.root,
    env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
    retry: { sleep: async () => undefined },
  });
  const runtime = await start_runtime(temp.session, {
    provider: providers.for_session(),
    permissions: permissions_for_project(temp.project.layout, { mode }),
    task_defaults: DEFAULT_TASK_DEFAULTS,
    interactive: true,
  });
  cleanups.push(() => runtime.stop());
  const shown: RuntimeEvent[] = [];
  cleanups.push(temp.session.bus.subscribe({ types: ["plan.proposed"] }, (event) => void shown.push(event)));
  return { temp, runtime, shown };
}

const task_rows = (temp: TempSession) => temp.session.connection.client.prepare("SELECT id FROM tasks").all();

describe("plan confirmation", () => {
  it("shows a plan of two tasks and, rejected, ends the turn with nothing recorded", async () => {
    const { temp, runtime, shown } = await interactive_runtime("default");
    const turn = runtime.submit("write a and b");
    await waitFor(runtime.main_agent, () => runtime.awaiting_plan());
    expect(shown).toHaveLength(1);
    expect(shown[0]?.payload).toMatchObject({ awaiting_confirmation: true, tasks: [{ title: "Write a" }, { title: "Write b" }] });
    expect(runtime.busy()).toBe(true);
    runtime.reject_plan("not now");
    expect(await turn).toEqual({ kind: "rejected", reason: "not now", task_count: 2 });
    expect(runtime.awaiting_plan()).toBe(false);
    expect(task_rows(temp)).toEqual([]);
    expect(temp.session.store.query({ types: ["task.created"] })).toEqual([]);
    const told = temp.session.store.query({ types: ["assistant.message.created"] }).map(({ event }) => event.payload);
    expect(told).toMatchObject([{ content: "The plan of 2 tasks was rejected (not now); nothing was recorded or changed." }]);
  });

  it("refuses approve and reject when no plan waits", async () => {
    const { runtime } = await interactive_runtime("default");
    for (const act of [() => runtime.approve_plan(), () => runtime.reject_plan("no")]) {
      let refused: unknown;
      try {
        act();
      } catch (error) {
        refused = error;
      }
      expect(is_air_failure(refused) && refused.error).toMatchObject({ kind: "user_error", message: "no plan is waiting for approval" });
    }
  });
});

describe("confirms_plans", () => {
  it("asks only in an interactive session whose mode asks before acting", () => {
    expect(confirms_plans(true, "default")).toBe(true);
    expect(confirms_plans(true, "plan")).toBe(true);
    expect(confirms_plans(true, "accept-edits")).toBe(false);
    expect(confirms_plans(true, "bypass")).toBe(false);
    expect(confirms_plans(false, "default")).toBe(false);
  });
});

/**
 * A replan from the architecture gate, through the Scheduler: the designer (against the scripted model server)
 * names a task that has not started as impacted; the task in hand and that one are interrupted, the task that
 * does not depend on them still runs, and the Scheduler ends blocked with the replan. The project is no git
 * checkout, so the gate reads the change from the files the worker reported.
 */
import path from "node:path";
import * as v from "valibot";
import { createActor, fromPromise, toPromise } from "xstate";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_MAX_PARALLEL, provide_scheduler } from "../../src/actors/runtime/scheduler-actors.js";
import { read_task } from "../../src/actors/runtime/task-graph.js";
import { make_architecture_designer } from "../../src/architecture/designer.js";
import { TaskId } from "../../src/contracts/ids.js";
import { WorkerResult } from "../../src/contracts/worker-result.js";
import type { WorkerRunOutcome } from "../../src/machines/worker-run-settlement.js";
import { PermissionEngine } from "../../src/permissions/engine.js";
import { ProviderManager } from "../../src/providers/manager.js";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import { create_tool_registry } from "../../src/tools/builtin.js";
import { model_complete_tool } from "../../src/tools/model/complete.js";
import { task_created_event, worker_result } from "../fixtures/events.js";
import { open_temp_session, set_air_home, type TempSession } from "../fixtures/session.js";

const KEY = "sk-architecture-replan-test";

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

function add_task(temp: TempSession, title: string, write_area: string[], hard: string[] = []): TaskId {
  const event = task_created_event(temp.session.origin, { title, scope: { write_area }, dependencies: { hard, soft: [] } });
  temp.session.ingestor.ingest(event);
  return v.parse(TaskId, event.payload.task.id);
}

describe("the architecture gate's replan", () => {
  it("interrupts the task and the impacted task not started, lets the others run, and ends the Scheduler with the replan", async () => {
    const temp = open_temp_session();
    cleanups.push(() => temp.cleanup());
    cleanups.push(set_air_home(path.join(temp.root, "air-home")));
    const header = add_task(temp, "Widen add", ["include/**"]);
    const caller = add_task(temp, "Use the wide add", ["src/**"], [header]);
    const docs = add_task(temp, "Write the docs", ["docs/**"]);
    const verdict = { result_class: "requires_replan", summary: "callers of add must be planned again", impacted_task_ids: [caller] };
    const server: ScriptedServer = await start_scripted_server({
      script: { turns: { architect: [{ reply: { content: [{ type: "tool_use", id: "toolu_1", name: "submit_impact", input: verdict }] } }] } },
      api_key: KEY,
    });
    cleanups.push(() => server.close());
    const providers = ProviderManager.load({
      home: temp.root,
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
      retry: { sleep: async () => undefined },
    });
    const registry = create_tool_registry({ permissions: new PermissionEngine() });
    registry.register(model_complete_tool(providers.for_session()));
    const designer = make_architecture_designer({ session: temp.session, registry, mode: "default" });
    const ran: string[] = [];
    const worker = fromPromise<WorkerRunOutcome, { task_id: string; agent_id: string }>(async ({ input }) => {
      ran.push(input.task_id);
      const changed_files = input.task_id === header ? ["include/calc.h"] : ["docs/calc.md"];
      return { status: "completed", exit_code: 0, result: v.parse(WorkerResult, worker_result(input.task_id, input.agent_id, { changed_files })) };
    });
    const scheduler = provide_scheduler(temp.session, worker, { registry, max_parallel: DEFAULT_MAX_PARALLEL, architecture_designer: designer });
    const result = await toPromise(createActor(scheduler, { input: { autostart: true } }).start());

    expect(result).toMatchObject({ status: "blocked", replan: { task_ids: [header, caller], reason: "callers of add must be planned again" } });
    expect([header, caller, docs].map((task_id) => read_task(temp.session.connection, task_id).status)).toEqual(["interrupted", "interrupted", "completed"]);
    expect(ran.sort()).toEqual([header, docs].sort());
    expect(server.requests().map((request) => request.requester)).toEqual(["architect"]);
    const [impact] = temp.session.store.query({ types: ["architecture.impact.completed"] }).map(({ event }) => event.payload);
    expect(impact).toMatchObject({
      result_class: "requires_replan",
      impacted_task_ids: [caller],
      triggers: [{ kind: "public_interface", file: "include/calc.h" }],
    });
  });
});

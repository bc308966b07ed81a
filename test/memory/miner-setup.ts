/**
 * The ExperienceMiner against real parts: a temp session, the real worker process (dist/), the session's
 * registry with `model.complete` over the real Anthropic adapter, and the scripted model server.
 */
import fs from "node:fs";
import path from "node:path";
import type { WorkerLogEntry } from "../../src/actors/worker-bridge/index.js";
import { SessionPrompts } from "../../src/context/session-prompts.js";
import { make_event } from "../../src/contracts/events/registry.js";
import { new_id } from "../../src/contracts/ids.js";
import { ExperienceMiner, type MinerSettings } from "../../src/memory/experience-miner.js";
import { permissions_for_project } from "../../src/permissions/session-permissions.js";
import { ProviderManager } from "../../src/providers/manager.js";
import type { ScriptInput } from "../../src/providers/scripted/script.js";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import { create_tool_registry } from "../../src/tools/builtin.js";
import { model_complete_tool } from "../../src/tools/model/complete.js";
import type { ToolRegistry } from "../../src/tools/registry.js";
import { minimal_task_spec, worker_result } from "../fixtures/events.js";
import { find_rows, open_temp_session, type TempSession } from "../fixtures/session.js";

const KEY = "sk-experience-miner-test";

/** The evidence id the seeded task's verification carries, so a script can cite it. */
export const EVIDENCE_ID = `evd_01J${"0".repeat(22)}1`;

export type MinerBench = {
  readonly temp: TempSession;
  readonly server: ScriptedServer;
  readonly registry: ToolRegistry;
  readonly miner: ExperienceMiner;
  readonly logs: WorkerLogEntry[];
  /** The miner's model requests so far. */
  miner_requests(): ReturnType<ScriptedServer["requests"]>;
  close(): Promise<void>;
};

export async function miner_bench(script: ScriptInput, settings: Partial<MinerSettings> = {}, setup?: (temp: TempSession) => void): Promise<MinerBench> {
  const temp = open_temp_session();
  setup?.(temp);
  const server = await start_scripted_server({ script, api_key: KEY });
  const providers = ProviderManager.load({
    home: temp.root,
    env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
    retry: { sleep: async () => undefined },
  });
  const provider = providers.for_session();
  const registry = create_tool_registry({ permissions: permissions_for_project(temp.project.layout, { mode: "default" }) });
  registry.register(model_complete_tool(provider));
  const prompts = new SessionPrompts({ session: temp.session, mode: "default", context_window: provider.capabilities.context_window });
  const logs: WorkerLogEntry[] = [];
  const miner = new ExperienceMiner({
    session: temp.session,
    registry,
    prompts,
    model_id: provider.model_id,
    settings: { enabled: true, every_n_tool_calls: 3, ...settings },
    on_log: (entry) => logs.push(entry),
  });
  return {
    temp,
    server,
    registry,
    miner,
    logs,
    miner_requests: () => server.requests().filter((request) => request.requester === "experience_miner"),
    async close() {
      await miner.idle();
      await server.close();
      temp.cleanup();
    },
  };
}

/** A task completed with passing verification, its evidence under `EVIDENCE_ID` (or a new id). */
export function seed_verified_task(temp: TempSession, evidence_id: string = EVIDENCE_ID): string {
  const { session } = temp;
  const task_id = new_id("task");
  const agent_id = new_id("agent");
  session.ingestor.ingest(make_event("task.created", { task: minimal_task_spec({ id: task_id, title: "Fix the header" }) }, session.origin));
  session.ingestor.ingest(make_event("task.started", { task_id, attempt_id: new_id("attempt"), agent_id }, session.origin));
  const result = worker_result(task_id, agent_id, {
    verification: [{ command: "ctest --output-on-failure", exit_code: 0, passed: true }],
    evidence_refs: [{ id: evidence_id, kind: "command_run", ref: new_id("command_run"), claim: "`ctest --output-on-failure` exited 0" }],
  });
  session.ingestor.ingest(make_event("task.completed", { task_id, worker_result: result }, session.origin));
  return task_id;
}

/** What the Debugger records after a verified fix (another zone writes the record itself). */
export function seed_debug_record(temp: TempSession): string {
  const debug_record_id = new_id("debug_record");
  const { session } = temp;
  session.ingestor.ingest(
    make_event(
      "debug.record.created",
      { debug_record_id, failure_signature: "gcc:missing-include:vector", summary: "added #include <vector>" },
      session.origin,
    ),
  );
  return debug_record_id;
}

/** `count` real tool calls of an agent through the registry (fs.list of the project). */
export async function agent_tool_calls(bench: MinerBench, count: number): Promise<void> {
  const agent_id = new_id("agent");
  for (let index = 0; index < count; index += 1) {
    const outcome = await bench.registry.call({ tool_name: "fs.list", input: { path: "." } }, { session: bench.temp.session, agent_id });
    if (!outcome.ok) throw new Error(outcome.error.message);
  }
}

export function events_of(temp: TempSession, type: string): unknown[] {
  return find_rows(temp.session.connection, "events", type, "type").map((row) => row.payload_json);
}

export function write_policy(temp: TempSession, yaml: string): void {
  fs.writeFileSync(path.join(temp.project.layout.shared, "memory-policy.yaml"), yaml);
}

/**
 * A real project + session + tool registry in a temp folder, and readers of what the calls recorded.
 * The project root is `<temp>/project`; `<temp>` itself is outside the project (a place for escapes).
 */
import fs from "node:fs";
import path from "node:path";
import type { ToolOutcome } from "../../src/contracts/tool.js";
import type { RuntimeEvent } from "../../src/contracts/events/registry.js";
import type { AgentId, TaskId } from "../../src/contracts/ids.js";
import type { TaskScope } from "../../src/contracts/task.js";
import { PermissionEngine, type PermissionEngineOptions } from "../../src/permissions/engine.js";
import { create_tool_registry } from "../../src/tools/builtin.js";
import type { ToolRegistry } from "../../src/tools/registry.js";
import { ACCEPT_EDITS } from "../fixtures/permissions.js";
import { decode_json_columns, open_temp_session, rows_of, type Row, type TempSession } from "../fixtures/session.js";

export type ToolHarness = {
  readonly temp: TempSession;
  readonly registry: ToolRegistry;
  /** The project root. */
  readonly root: string;
  /** A folder next to the project, outside it. */
  readonly outside: string;
  call(tool_name: string, input: Record<string, unknown>, options?: CallOptions): Promise<ToolOutcome>;
  /** Durable events of the session (payload decoded), optionally of some types only. */
  events(...types: string[]): { type: string; payload: Record<string, unknown> }[];
  tool_runs(): Row[];
  artifacts(): Row[];
  /** An artifact's file content. */
  artifact_text(id: string): string;
  /** Every event the bus delivered (ephemeral included), in order. */
  readonly bus_events: RuntimeEvent[];
  cleanup(): void;
};

type CallOptions = {
  scope?: TaskScope;
  agent_id?: AgentId;
  task_id?: TaskId;
  signal?: AbortSignal;
  on_stream?: (chunk: unknown) => void;
};

/** A harness whose engine is in `accept-edits` mode unless `options.policy` says otherwise. */
export function tool_harness(options: PermissionEngineOptions = {}): ToolHarness {
  const temp = open_temp_session();
  const registry = create_tool_registry({ permissions: new PermissionEngine({ policy: ACCEPT_EDITS, ...options }) });
  const root = temp.project.layout.root;
  const bus_events: RuntimeEvent[] = [];
  const unsubscribe = temp.session.bus.subscribe({}, (event) => bus_events.push(event));
  const connection = temp.session.connection;
  return {
    temp,
    registry,
    root,
    outside: temp.root,
    bus_events,
    call(tool_name, input, call_options = {}) {
      const { on_stream, ...context } = call_options;
      return registry.call({ tool_name, input }, { session: temp.session, ...context }, on_stream);
    },
    events(...types) {
      const rows = connection.client.prepare("SELECT type, payload_json FROM events ORDER BY seq").all() as { type: string; payload_json: string }[];
      return rows
        .filter((row) => types.length === 0 || types.includes(row.type))
        .map((row) => ({ type: row.type, payload: JSON.parse(row.payload_json) as Record<string, unknown> }));
    },
    tool_runs: () => rows_of(connection, "tool_runs").map(decode_json_columns),
    artifacts: () => rows_of(connection, "artifacts"),
    artifact_text(id) {
      const row = rows_of(connection, "artifacts").find((artifact) => artifact.id === id);
      if (row === undefined) throw new Error(`no artifact ${id}`);
      return fs.readFileSync(temp.session.artifacts.path_of(String(row.path)), "utf8");
    },
    cleanup() {
      unsubscribe();
      temp.cleanup();
    },
  };
}

export function write(root: string, relative: string, content: string): string {
  const file = path.join(root, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

/** The error of a failed outcome (fails loudly on success). */
export function error_of(outcome: ToolOutcome) {
  if (outcome.ok) throw new Error(`expected a failed outcome, got ${JSON.stringify(outcome.output)}`);
  return outcome.error;
}

/** The output of a successful outcome (fails loudly, with the error, on failure). */
export function output_of<T = Record<string, unknown>>(outcome: ToolOutcome): T {
  if (!outcome.ok) throw new Error(`expected success, got ${JSON.stringify(outcome.error)}`);
  return outcome.output as T;
}

/** Every file under a folder (relative paths), to prove a refused call created nothing. */
export function files_under(folder: string): string[] {
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
    .sort();
}

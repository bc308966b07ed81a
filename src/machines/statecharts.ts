import { lifecycle_machines } from "./index.js";
import { main_agent_machine } from "./main-agent.js";
import { mcp_server_machine } from "./mcp-server.js";
import { scheduler_machine } from "./scheduler.js";
import { worker_run_machine } from "./worker-run.js";
import { to_mermaid } from "./to-mermaid.js";

/** Every machine with a committed chart: the entity lifecycles, the orchestration machines, a worker run, an MCP server. */
export const charted_machines = [...Object.values(lifecycle_machines), scheduler_machine, main_agent_machine, worker_run_machine, mcp_server_machine];

/**
 * Every committed statechart file (`statecharts/<id>.json` and `statecharts/<id>.mmd`), keyed by
 * file name. Pure, so the freshness test can compare without writing anything.
 */
export function render_statecharts(): Map<string, string> {
  const files = new Map<string, string>();
  for (const machine of charted_machines) {
    files.set(`${machine.id}.json`, `${JSON.stringify(machine.config, null, 2)}\n`);
    files.set(`${machine.id}.mmd`, to_mermaid(machine));
  }
  return files;
}

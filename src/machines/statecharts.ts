import { lifecycle_machines } from "./index.js";
import { to_mermaid } from "./to-mermaid.js";

/**
 * Every committed statechart file (`statecharts/<id>.json` and `statecharts/<id>.mmd`), keyed by
 * file name. Pure, so the freshness test can compare without writing anything.
 */
export function render_statecharts(): Map<string, string> {
  const files = new Map<string, string>();
  for (const machine of Object.values(lifecycle_machines)) {
    files.set(`${machine.id}.json`, `${JSON.stringify(machine.config, null, 2)}\n`);
    files.set(`${machine.id}.mmd`, to_mermaid(machine));
  }
  return files;
}

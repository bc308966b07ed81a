import { open_client } from "../../db/sqlite.js";
import { session_db_path, type ProjectLayout } from "../../project/layout.js";

/**
 * Where an end-to-end run's wall time went: the commands it ran (cmake, ctest), the model's answers
 * (model.complete tool runs), and the rest — air's own runtime overhead.
 */
export function e2e_timing(layout: ProjectLayout, session_id: string, wall_ms: number): string {
  const client = open_client(session_db_path(layout, session_id));
  try {
    const commands = client.prepare("SELECT coalesce(sum(duration_ms), 0) AS ms FROM command_runs").get() as { ms: number };
    const model = client.prepare("SELECT coalesce(sum(duration_ms), 0) AS ms FROM tool_runs WHERE tool_name = 'model.complete'").get() as { ms: number };
    const overhead = wall_ms - Number(commands.ms) - Number(model.ms);
    return [
      `  wall time ${wall_ms.toFixed(0)} ms = commands ${Number(commands.ms).toFixed(0)} ms`,
      ` + scripted model ${Number(model.ms).toFixed(0)} ms + runtime overhead ${overhead.toFixed(0)} ms\n`,
    ].join("");
  } finally {
    client.close();
  }
}

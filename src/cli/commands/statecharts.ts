import { air_failure } from "../../contracts/errors.js";
import { charted_machines } from "../../machines/statecharts.js";
import { to_mermaid } from "../../machines/to-mermaid.js";
import type { Io } from "../output.js";

/**
 * `air statecharts [--machine NAME]`: the Mermaid `stateDiagram-v2` of each machine (the same text as
 * the committed `statecharts/*.mmd`), offline. With `--machine` only that diagram, ready to pipe into a
 * renderer; without, every machine under a `%% <id>` comment line.
 */
export async function run_statecharts(io: Io, options: { machine?: string }): Promise<number> {
  if (options.machine === undefined) {
    io.out(charted_machines.map((machine) => `%% ${machine.id}\n${to_mermaid(machine)}`).join("\n"));
    return 0;
  }
  const machine = charted_machines.find((candidate) => candidate.id === options.machine);
  if (machine === undefined) {
    throw air_failure({
      kind: "user_error",
      message: `no machine named "${options.machine}"`,
      retryability: "retryable_after_change",
      user_action: `Choose one of: ${charted_machines.map((candidate) => candidate.id).join(", ")}.`,
    });
  }
  io.out(to_mermaid(machine));
  return 0;
}

import { fromPromise } from "xstate";
import { to_air_error } from "../contracts/errors.js";
import { make_event, type EventOrigin, type EventType, type PayloadInputOf } from "../contracts/events/registry.js";
import type { AgentId } from "../contracts/ids.js";
import { worker_run_machine } from "../machines/worker-run.js";
import type { AgentEnding } from "../machines/worker-run-settlement.js";
import { worker_process_logic, write_log, type WorkerServices } from "./worker-bridge/index.js";

/**
 * The worker-run machine with the I/O of one session: its `worker_process` actor, and the durable `agent.*`
 * events of each run, ingested under the bridge's origin. Every run of the session is an actor of it.
 */
export function worker_run_logic(services: WorkerServices) {
  const origin: EventOrigin = { ...services.session.origin, source: { kind: "system" }, route: ["runtime", "worker-bridge"] };
  const ingest = <T extends EventType>(type: T, payload: PayloadInputOf<T>) => services.session.ingestor.ingest(make_event(type, payload, origin));
  /** After the start, a record that is refused is logged: it must not keep the run from its outcome. */
  const record = <T extends EventType>(agent_id: AgentId, type: T, payload: PayloadInputOf<T>) => {
    try {
      ingest(type, payload);
    } catch (error) {
      const air_error = to_air_error(error);
      write_log(services.on_log, {
        agent_id,
        source: "bridge",
        level: "error",
        message: `could not record ${type}: ${air_error.message}`,
        data: { error: air_error },
      });
    }
  };
  const record_ending = (agent_id: AgentId, ending: AgentEnding) => {
    switch (ending.type) {
      case "agent.completed":
        return record(agent_id, ending.type, ending.payload);
      case "agent.failed":
        return record(agent_id, ending.type, ending.payload);
      case "agent.lost":
        return record(agent_id, ending.type, ending.payload);
      case "agent.cancelled":
        return record(agent_id, ending.type, ending.payload);
    }
  };
  return worker_run_machine.provide({
    actors: {
      worker_process: worker_process_logic(services),
      // The worker does not run without its row: a refusal here fails the run.
      announce: fromPromise(async ({ input }) => {
        ingest("agent.started", input);
      }),
    },
    actions: {
      record_running: ({ context }, payload) => record(context.agent_id, "agent.started", payload),
      record_ending: ({ context }, ending) => {
        if (ending !== undefined) record_ending(context.agent_id, ending);
      },
    },
  });
}

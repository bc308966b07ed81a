import type { AgentType } from "../../contracts/worker-result.js";
import type { WorkerRole } from "./role.js";

/**
 * The roles this worker can run, by `agent_type`, each loaded when a run asks for it: the worker answers
 * `worker.ready` before it loads the role's loop and the prompt modules the loop uses, so the handshake
 * costs only the protocol. The compactor has none: compaction runs in the parent, as `context.compact`.
 */
const ROLES: Readonly<Partial<Record<AgentType, () => Promise<WorkerRole>>>> = {
  executor: async () => (await import("./executor.js")).executor_role,
  experience_miner: async () => (await import("./experience-miner.js")).experience_miner_role,
  debugger: async () => (await import("./debugger.js")).debugger_role,
  reviewer: async () => (await import("./reviewer.js")).reviewer_role,
};

/** Loads `agent_type`'s role; undefined when this worker has none. */
export function role_loader(agent_type: AgentType): (() => Promise<WorkerRole>) | undefined {
  return ROLES[agent_type];
}

import type { AgentType } from "../../contracts/worker-result.js";
import { executor_role } from "./executor.js";
import type { WorkerRole } from "./role.js";

export type { WorkerRole } from "./role.js";

/** The roles this worker can run, by `agent_type`; the others (reviewer, debugger, …) arrive later. */
export const ROLES: Readonly<Partial<Record<AgentType, WorkerRole>>> = {
  executor: executor_role,
};

export function role_for(agent_type: AgentType): WorkerRole | undefined {
  return ROLES[agent_type];
}

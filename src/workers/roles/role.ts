import type { AgentBrief } from "../../contracts/ipc.js";
import type { TaskSpec } from "../../contracts/task.js";
import type { AgentType, WorkerResult } from "../../contracts/worker-result.js";
import type { WorkerRuntime } from "../runtime.js";

/** One loop per role (seeds 000 §8.3): it ends by returning a WorkerResult of its own `agent_type`. */
export interface WorkerRole {
  readonly agent_type: AgentType;
  run(task: TaskSpec, brief: AgentBrief, runtime: WorkerRuntime): Promise<WorkerResult>;
}

import type { WorkerRole } from "./role.js";
import { TaskRun } from "./task-run.js";

export { SHELL_TOOL } from "./verification-run.js";

/** The executor: the task loop, its report as an executor's WorkerResult. */
export const executor_role: WorkerRole = {
  agent_type: "executor",
  run: async (task, brief, runtime) => {
    const { fields, commands_run, notes } = await new TaskRun(task, brief, runtime).run();
    return {
      task_id: task.id,
      agent_id: runtime.address.agent_id,
      agent_type: "executor",
      ...fields,
      artifacts: [],
      follow_up_tasks: [],
      result: { commands_run, tests_added: [], ...(notes === undefined ? {} : { notes }) },
    };
  },
};

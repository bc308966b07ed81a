import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import type { ToolSchema } from "../../contracts/tool.js";
import { DebuggerResult } from "../../contracts/worker-result.js";
import type { WorkerRole } from "./role.js";
import { type LocalTool, TaskRun } from "./task-run.js";

/** The Debugger's last call: its diagnosis, answered in the worker, ending the model loop before verification. */
export const SUBMIT_DIAGNOSIS_TOOL = "submit_diagnosis";

const DIAGNOSIS_SCHEMA: ToolSchema = {
  name: SUBMIT_DIAGNOSIS_TOOL,
  description:
    "Report your diagnosis once you have fixed the failure (or found that you cannot): its root cause, the failure signature " +
    "you were given, whether you applied a fix, how to reproduce it, the debug record you used as a known fix, and a blocker " +
    "when the fix needs something outside the task's write area. The task's verification runs after this call.",
  input_schema: toJsonSchema(DebuggerResult, { errorMode: "ignore" }) as Record<string, unknown>,
};

/** What the model reported through submit_diagnosis: untrusted until it parses, the last valid one kept. */
class Diagnosis {
  #result: DebuggerResult | undefined;

  get result(): DebuggerResult | undefined {
    return this.#result;
  }

  readonly tool: LocalTool = {
    schema: DIAGNOSIS_SCHEMA,
    answer: (input) => {
      const parsed = v.safeParse(DebuggerResult, input);
      if (!parsed.success) {
        const issues = parsed.issues.map((issue) => `${v.getDotPath(issue) ?? "input"}: ${issue.message}`).join("; ");
        return { content: `error: the diagnosis does not parse (${issues}); call ${SUBMIT_DIAGNOSIS_TOOL} again`, is_error: true, ends_run: false };
      }
      this.#result = parsed.output;
      return { content: "Diagnosis recorded; the task's verification runs now.", is_error: false, ends_run: true };
    },
  };

  /** A blocker the Debugger reported without a fix: the run stops there, unverified. */
  blocker(): string | undefined {
    const result = this.#result;
    if (result?.blocker === undefined || result.fix_applied) return undefined;
    return `The Debugger could not fix the failure: ${result.blocker.summary} Needed: ${result.blocker.needed}`;
  }
}

/**
 * The Debugger (seeds 000 §8.3): the executor's loop on the same task, with the same tools and write area,
 * briefed with the repeated failure's evidence and any known fix; it ends with a structured diagnosis and the
 * task's verification, or `blocked` with its BlockerReport.
 */
export const debugger_role: WorkerRole = {
  agent_type: "debugger",
  run: async (task, brief, runtime) => {
    const diagnosis = new Diagnosis();
    const { fields, notes } = await new TaskRun(task, brief, runtime, {
      local_tools: [diagnosis.tool],
      blocked_by: () => diagnosis.blocker(),
    }).run();
    const result: DebuggerResult = diagnosis.result ?? {
      root_cause: notes ?? "",
      failure_signature: "undiagnosed",
      fix_applied: fields.changed_files.length > 0,
    };
    return {
      task_id: task.id,
      agent_id: runtime.address.agent_id,
      agent_type: "debugger",
      ...fields,
      artifacts: [],
      follow_up_tasks: [],
      result,
    };
  },
};

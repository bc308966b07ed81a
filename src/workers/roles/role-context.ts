import type { AgentBrief } from "../../contracts/ipc.js";
import type { ModelRequest } from "../../contracts/provider.js";
import type { TaskSpec } from "../../contracts/task.js";
import { CONTEXT_COMPACT_TOOL, type ToolSchema } from "../../contracts/tool.js";
import { AgentContext } from "../../context/agent-context.js";
import { DEFAULT_CONTEXT_WINDOW, token_budget_of } from "../../context/budget.js";
import { task_spec_layer } from "../../context/layers.js";
import { AirFailure, type AirError } from "../../contracts/errors.js";
import { is_cancellation, type WorkerRuntime } from "../runtime.js";

/** `context.compact` for this agent; a failure is logged and the run goes on uncompacted. */
async function compact(runtime: WorkerRuntime, task: TaskSpec, reason: string): Promise<unknown> {
  const outcome = await runtime.call_tool({
    tool_name: CONTEXT_COMPACT_TOOL,
    input: { agent_id: runtime.address.agent_id, task_id: task.id, reason },
  });
  if (outcome.ok) return outcome.output;
  runtime.log("warn", `context.compact failed, going on without compaction: ${outcome.error.message}`);
  return undefined;
}

/**
 * A role's conversation: the stable layers the parent built (the task specification alone when it sent none),
 * the tools the model is offered (the brief's, plus the role's own structured tools), each message persisted
 * as an event, and `context.compact` when the parent serves it. Every role loop starts from one.
 */
export function role_context(
  task: TaskSpec,
  brief: AgentBrief,
  runtime: WorkerRuntime,
  purpose: ModelRequest["purpose"],
  tools: readonly ToolSchema[] = brief.tools,
): AgentContext {
  const context_window = brief.context_window ?? DEFAULT_CONTEXT_WINDOW;
  const ids = { task_id: task.id, agent_id: runtime.address.agent_id };
  return new AgentContext({
    purpose,
    layers: brief.layers ?? [task_spec_layer(task, brief.project_root)],
    tools,
    context_window,
    token_budget: brief.token_budget ?? token_budget_of(context_window),
    persist: (message) =>
      message.role === "user"
        ? runtime.emit("user.message.created", { message_id: message.message_id, content: message.content, ...ids })
        : runtime.emit("assistant.message.created", {
            message_id: message.message_id,
            content: message.response.content,
            model_id: message.response.model_id,
            stop_reason: message.response.stop_reason,
            usage: message.response.usage,
            ...ids,
          }),
    ...(brief.compaction === undefined ? {} : { compaction: brief.compaction }),
    ...(brief.internal_tools?.includes(CONTEXT_COMPACT_TOOL) ? { compact: (reason: string) => compact(runtime, task, reason) } : {}),
  });
}

/**
 * A role's work, guarded: cancellation and AirFailures (a provider outage, a broken channel) end the run with a
 * result — `cancelled`, or `error` with the failure handed to `on_failure` — while a bug propagates.
 */
export async function guarded<E extends string>(
  runtime: WorkerRuntime,
  work: () => Promise<E>,
  on_failure: (error: AirError) => void,
): Promise<E | "cancelled" | "error"> {
  try {
    return await work();
  } catch (error) {
    if (is_cancellation(error) || runtime.cancelled) return "cancelled";
    if (error instanceof AirFailure) {
      on_failure(error.error);
      return "error";
    }
    throw error;
  }
}

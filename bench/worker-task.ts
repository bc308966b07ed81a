import * as v from "valibot";
import { air } from "./dist.js";
import { workers, type AgentBrief, type TaskSpec } from "./dist-workers.js";

/** A valid `execute` TaskSpec, parsed by the built contract. */
export function bench_task(title: string, hard_timeout_ms = 120_000): TaskSpec {
  return v.parse(workers.task.TaskSpec, {
    id: air.ids.new_id("task"),
    type: "execute",
    title,
    description: "a bench task",
    acceptance_criteria: [],
    scope: {},
    dependencies: { hard: [], soft: [] },
    verification: { required: false, fallback_allowed: true },
    constraints: { max_turns: 1, soft_timeout_ms: hard_timeout_ms, hard_timeout_ms, retry_budget: 1, model_policy: "agent_select" },
    context_refs: {},
    output_contract: "ExecutorResult",
  });
}

/** The tools a model is offered (built-ins, internal ones excepted), as the runtime puts them in `agent.start`. */
export function model_tools(): AgentBrief["tools"] {
  const registry = workers.builtin.create_tool_registry();
  const internal = new Set(
    registry
      .list()
      .filter((tool) => tool.category === "internal")
      .map((tool) => tool.name),
  );
  return registry.schemas().filter((schema) => !internal.has(schema.name));
}

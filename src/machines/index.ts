import type { AnyStateMachine, AnyStateNodeDefinition, EventFromLogic } from "xstate";
import { agent_machine } from "./agent.js";
import { capability_machine } from "./capability.js";
import { task_machine } from "./task.js";
import { workspace_machine } from "./workspace.js";

export { agent_machine, type AgentLifecycleEvent } from "./agent.js";
export { capability_machine, type CapabilityLifecycleEvent } from "./capability.js";
export { task_machine, type TaskLifecycleEvent } from "./task.js";
export { workspace_machine, type WorkspaceLifecycleEvent } from "./workspace.js";

/** Every entity lifecycle, keyed by machine id (which is also the entity name). */
export const lifecycle_machines = {
  task: task_machine,
  agent: agent_machine,
  workspace: workspace_machine,
  capability: capability_machine,
} as const;

type LifecycleMachines = typeof lifecycle_machines;
export type LifecycleMachineId = keyof LifecycleMachines;

function walk(node: AnyStateNodeDefinition, visit: (node: AnyStateNodeDefinition) => void): void {
  visit(node);
  for (const child of Object.values(node.states)) walk(child, visit);
}

/**
 * The event types a machine has transitions for, read from its definition so that a registry
 * check cannot drift from the machine. XState's own `xstate.*` events (delays, done, error) are
 * left out: they are never durable events. Sorted, without duplicates.
 */
export function machine_event_types<TMachine extends AnyStateMachine>(machine: TMachine): Array<EventFromLogic<TMachine>["type"]> {
  const types = new Set<string>();
  walk(machine.definition, (node) => {
    for (const type of Object.keys(node.on)) if (!type.startsWith("xstate.")) types.add(type);
  });
  return [...types].sort() as Array<EventFromLogic<TMachine>["type"]>;
}

/** The names of a machine's top-level states, in definition order (they are the status values). */
export function machine_state_names(machine: AnyStateMachine): string[] {
  return Object.keys(machine.definition.states);
}

import { describe, expect, expectTypeOf, it } from "vitest";
import type { StateValueFrom } from "xstate";
import { AgentStatus, CapabilityStatus, TaskStatus, WorkspaceStatus } from "../../src/contracts/status.js";
import {
  type agent_machine,
  type capability_machine,
  lifecycle_machines,
  machine_state_names,
  type task_machine,
  type workspace_machine,
} from "../../src/machines/index.js";

const status_picklists = {
  task: TaskStatus,
  agent: AgentStatus,
  workspace: WorkspaceStatus,
  capability: CapabilityStatus,
} as const;

describe("lifecycle machines and status columns", () => {
  it("has one machine per lifecycle, keyed by its id", () => {
    expect(Object.keys(lifecycle_machines).sort()).toEqual(Object.keys(status_picklists).sort());
    for (const [id, machine] of Object.entries(lifecycle_machines)) expect(machine.id).toBe(id);
  });

  for (const [id, picklist] of Object.entries(status_picklists)) {
    it(`names the ${id} states exactly after the ${id} status values`, () => {
      const machine = lifecycle_machines[id as keyof typeof lifecycle_machines];
      expect([...machine_state_names(machine)].sort()).toEqual([...picklist.options].sort());
    });
  }

  it("types the state values as the status types (checked by tsc)", () => {
    expectTypeOf<StateValueFrom<typeof task_machine>>().toEqualTypeOf<TaskStatus>();
    expectTypeOf<StateValueFrom<typeof agent_machine>>().toEqualTypeOf<AgentStatus>();
    expectTypeOf<StateValueFrom<typeof workspace_machine>>().toEqualTypeOf<WorkspaceStatus>();
    expectTypeOf<StateValueFrom<typeof capability_machine>>().toEqualTypeOf<CapabilityStatus>();
  });
});

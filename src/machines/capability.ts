import { setup } from "xstate";

/**
 * Capability lifecycle (seeds 000 §20.6). Nothing here is final: a capability can always be
 * re-discovered after an update or a fix, so the machine is a cycle.
 */
export type CapabilityLifecycleEvent =
  | { type: "capability.discovered" }
  | { type: "capability.validated" }
  | { type: "capability.doctor_checked" }
  | { type: "capability.enabled" }
  | { type: "capability.tools_registered" }
  | { type: "capability.activated" }
  | { type: "capability.disabled" }
  | { type: "capability.failed" }
  | { type: "capability.updated" };

export const capability_machine = setup({
  types: { events: {} as CapabilityLifecycleEvent },
}).createMachine({
  id: "capability",
  initial: "discovered",
  states: {
    // Any trust step can fail, so `capability.failed` is legal from every state that does work.
    discovered: {
      on: {
        "capability.validated": { target: "validated" },
        "capability.failed": { target: "failed" },
      },
    },
    // Trust policy or the user can leave a valid capability off, or it does not apply: its dependencies are never
    // probed (doctor's check spawns every program's --version the first time), and it never was enabled.
    validated: {
      on: {
        "capability.doctor_checked": { target: "doctor_checked" },
        "capability.disabled": { target: "disabled" },
        "capability.failed": { target: "failed" },
      },
    },
    doctor_checked: {
      on: {
        "capability.enabled": { target: "enabled" },
        "capability.failed": { target: "failed" },
      },
    },
    enabled: {
      on: {
        "capability.tools_registered": { target: "registered" },
        "capability.disabled": { target: "disabled" },
        "capability.failed": { target: "failed" },
      },
    },
    registered: {
      on: {
        "capability.activated": { target: "active" },
        "capability.disabled": { target: "disabled" },
        "capability.failed": { target: "failed" },
      },
    },
    active: {
      on: {
        "capability.disabled": { target: "disabled" },
        "capability.failed": { target: "failed" },
        "capability.updated": { target: "updated" },
      },
    },
    // New code must pass validation again, so an update goes back to the start.
    updated: {
      on: { "capability.discovered": { target: "discovered" } },
    },
    // Re-enabling skips validation: the code did not change while it was disabled.
    disabled: {
      on: { "capability.enabled": { target: "enabled" } },
    },
    // A fix is new code, so it is re-discovered rather than resumed.
    failed: {
      on: { "capability.discovered": { target: "discovered" } },
    },
  },
});

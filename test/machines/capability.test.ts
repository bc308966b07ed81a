import { describe, expect, it } from "vitest";
import { transition } from "xstate";
import { capability_machine, type CapabilityLifecycleEvent } from "../../src/machines/index.js";
import { describe_lifecycle, type LifecycleSpec } from "./lifecycle.js";

const e = (type: CapabilityLifecycleEvent["type"]): CapabilityLifecycleEvent => ({ type });

const spec: LifecycleSpec<typeof capability_machine> = {
  initial: "discovered",
  finals: [],
  alphabet: [
    e("capability.discovered"),
    e("capability.validated"),
    e("capability.doctor_checked"),
    e("capability.enabled"),
    e("capability.tools_registered"),
    e("capability.activated"),
    e("capability.disabled"),
    e("capability.failed"),
    e("capability.updated"),
  ],
  moves: [
    ["discovered", e("capability.validated"), "validated"],
    ["discovered", e("capability.failed"), "failed"],
    ["validated", e("capability.doctor_checked"), "doctor_checked"],
    ["validated", e("capability.disabled"), "disabled"],
    ["validated", e("capability.failed"), "failed"],
    ["doctor_checked", e("capability.enabled"), "enabled"],
    ["doctor_checked", e("capability.failed"), "failed"],
    ["enabled", e("capability.tools_registered"), "registered"],
    ["enabled", e("capability.disabled"), "disabled"],
    ["enabled", e("capability.failed"), "failed"],
    ["registered", e("capability.activated"), "active"],
    ["registered", e("capability.disabled"), "disabled"],
    ["registered", e("capability.failed"), "failed"],
    ["active", e("capability.disabled"), "disabled"],
    ["active", e("capability.failed"), "failed"],
    ["active", e("capability.updated"), "updated"],
    ["updated", e("capability.discovered"), "discovered"],
    ["disabled", e("capability.enabled"), "enabled"],
    ["failed", e("capability.discovered"), "discovered"],
  ],
};

describe("capability machine", () => {
  describe_lifecycle(capability_machine, spec);

  const at = (value: string) => capability_machine.resolveState({ value, context: {} });

  it("rejects capability.enabled while discovered: validation and doctor check come first", () => {
    expect(at("discovered").can({ type: "capability.enabled" })).toBe(false);
  });

  it("rejects capability.activated while enabled: tools must be registered first", () => {
    expect(at("enabled").can({ type: "capability.activated" })).toBe(false);
  });

  it("sends an updated capability back through discovery", () => {
    const [discovered] = transition(capability_machine, at("updated"), { type: "capability.discovered" });
    expect(discovered.value).toBe("discovered");
    expect(discovered.can({ type: "capability.activated" })).toBe(false);
  });

  it("never finishes: every status still accepts some event", () => {
    for (const status of Object.keys(capability_machine.definition.states)) {
      expect(
        spec.alphabet.some((event) => at(status).can(event)),
        status,
      ).toBe(true);
    }
  });
});

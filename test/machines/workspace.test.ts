import { describe, expect, it } from "vitest";
import { transition } from "xstate";
import { workspace_machine, type WorkspaceLifecycleEvent } from "../../src/machines/index.js";
import { describe_lifecycle, type LifecycleSpec } from "./lifecycle.js";

const e = (type: WorkspaceLifecycleEvent["type"]): WorkspaceLifecycleEvent => ({ type });

const spec: LifecycleSpec<typeof workspace_machine> = {
  initial: "active",
  finals: ["cleaned"],
  alphabet: [
    e("workspace.merge.started"),
    e("workspace.merge.completed"),
    e("workspace.merge.conflicted"),
    e("workspace.abandoned"),
    e("workspace.reactivated"),
    e("workspace.cleaned"),
  ],
  moves: [
    ["active", e("workspace.merge.started"), "active"],
    ["active", e("workspace.merge.completed"), "merged"],
    ["active", e("workspace.merge.conflicted"), "conflicted"],
    ["active", e("workspace.abandoned"), "abandoned"],
    ["conflicted", e("workspace.abandoned"), "abandoned"],
    ["conflicted", e("workspace.reactivated"), "active"],
    ["merged", e("workspace.cleaned"), "cleaned"],
    ["abandoned", e("workspace.cleaned"), "cleaned"],
  ],
};

describe("workspace machine", () => {
  describe_lifecycle(workspace_machine, spec);

  const active = workspace_machine.resolveState({ value: "active", context: {} });

  it("accepts workspace.merge.started without leaving active: a merge in progress is not a status", () => {
    expect(active.can({ type: "workspace.merge.started" })).toBe(true);
    const [next] = transition(workspace_machine, active, { type: "workspace.merge.started" });
    expect(next.value).toBe("active");
  });

  it("rejects workspace.cleaned while active: only a merged or abandoned workspace is collected", () => {
    expect(active.can({ type: "workspace.cleaned" })).toBe(false);
  });

  it("lets a conflicted workspace retry the merge", () => {
    const [conflicted] = transition(workspace_machine, active, { type: "workspace.merge.conflicted" });
    const [retried] = transition(workspace_machine, conflicted, { type: "workspace.reactivated" });
    const [merged] = transition(workspace_machine, retried, { type: "workspace.merge.completed" });
    expect(merged.value).toBe("merged");
  });
});

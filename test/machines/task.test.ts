import { describe, expect, it } from "vitest";
import { transition } from "xstate";
import { task_machine, type TaskLifecycleEvent } from "../../src/machines/index.js";
import { describe_lifecycle, type LifecycleSpec } from "./lifecycle.js";

const e = (type: TaskLifecycleEvent["type"]): TaskLifecycleEvent => ({ type });

const spec: LifecycleSpec<typeof task_machine> = {
  initial: "pending",
  finals: ["completed", "cancelled"],
  alphabet: [
    e("task.started"),
    e("task.completed"),
    e("task.failed"),
    e("task.blocked"),
    e("task.cancelled"),
    e("task.interrupted"),
    e("task.retried"),
    e("task.resumed"),
    e("task.unblocked"),
    e("context.compaction.started"),
    e("context.compaction.completed"),
    e("context.compaction.failed"),
  ],
  moves: [
    ["pending", e("task.started"), "running"],
    ["pending", e("context.compaction.started"), "running"],
    ["pending", e("task.cancelled"), "cancelled"],
    ["pending", e("task.interrupted"), "interrupted"],
    ["running", e("task.completed"), "completed"],
    ["running", e("context.compaction.completed"), "completed"],
    ["running", e("task.failed"), "failed"],
    ["running", e("context.compaction.failed"), "failed"],
    ["running", e("task.blocked"), "blocked"],
    ["running", e("task.cancelled"), "cancelled"],
    ["running", e("task.interrupted"), "interrupted"],
    ["failed", e("task.retried"), "pending"],
    ["failed", e("task.cancelled"), "cancelled"],
    ["interrupted", e("task.resumed"), "pending"],
    ["interrupted", e("task.cancelled"), "cancelled"],
    ["blocked", e("task.unblocked"), "pending"],
    ["blocked", e("task.cancelled"), "cancelled"],
  ],
};

describe("task machine", () => {
  describe_lifecycle(task_machine, spec);

  const pending = task_machine.resolveState({ value: "pending", context: {} });
  const running = task_machine.resolveState({ value: "running", context: {} });

  it("rejects task.completed while pending", () => {
    expect(pending.can({ type: "task.completed" })).toBe(false);
  });

  it("rejects task.failed while pending: a task that never ran cannot fail", () => {
    expect(pending.can({ type: "task.failed" })).toBe(false);
  });

  it("rejects task.started while running", () => {
    expect(running.can({ type: "task.started" })).toBe(false);
  });

  it("sends a retried task back to pending for a new attempt", () => {
    const [failed] = transition(task_machine, running, { type: "task.failed" });
    const [retried] = transition(task_machine, failed, { type: "task.retried" });
    expect(retried.value).toBe("pending");
  });

  it("rejects everything after task.completed", () => {
    const [completed] = transition(task_machine, running, { type: "task.completed" });
    expect(completed.status).toBe("done");
    for (const event of spec.alphabet) expect(completed.can(event), event.type).toBe(false);
  });

  it("ignores payload fields the write path sends along", () => {
    const event = { type: "task.started", task_id: "t1", attempt: 2 } as TaskLifecycleEvent;
    expect(transition(task_machine, pending, event)[0].value).toBe("running");
  });
});

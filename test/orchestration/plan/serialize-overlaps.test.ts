import { describe, expect, it } from "vitest";
import { plan_text, plan_view } from "../../../src/cli/plan-view.js";
import { validate_plan } from "../../../src/orchestration/plan/validate-plan.js";

const DEFAULTS = { max_turns: 7, soft_timeout_ms: 1000, hard_timeout_ms: 2000, retry_budget: 1 };

type Planned = { key: string; write_area?: string[]; hard?: string[] };

function plan(...tasks: Planned[]) {
  return {
    intent: "plan",
    tasks: tasks.map(({ key, write_area, hard }) => ({
      key,
      title: `Task ${key}`,
      description: `Do ${key}.`,
      acceptance_criteria: [],
      verification_commands: [],
      ...(write_area === undefined ? {} : { write_area }),
      depends_on: { hard: hard ?? [], soft: [] },
    })),
  };
}

const serialized = (reply: unknown) => {
  const specs = validate_plan(reply, DEFAULTS);
  const number_of = new Map(specs.map((spec, index) => [spec.id, index + 1]));
  return specs.map((spec) => spec.dependencies.serialization.map((id) => number_of.get(id)));
};

describe("validate_plan: serialization of overlapping write areas", () => {
  it("puts a task whose area overlaps an earlier one's after it, as a durable serialization dependency", () => {
    expect(serialized(plan({ key: "a", write_area: ["src/net/**"] }, { key: "b", write_area: ["src/net/http.cpp"] }))).toEqual([[], [1]]);
  });

  it("leaves tasks with provably disjoint areas free to run together", () => {
    expect(
      serialized(plan({ key: "a", write_area: ["libs/alpha/**"] }, { key: "b", write_area: ["libs/beta/**"] }, { key: "c", write_area: ["app/*.cpp"] })),
    ).toEqual([[], [], []]);
  });

  it("adds nothing where a hard dependency, direct or not, already orders the two tasks", () => {
    const reply = plan(
      { key: "a", write_area: ["src/**"] },
      { key: "b", write_area: ["src/b/**"], hard: ["a"] },
      { key: "c", write_area: ["src/c/**"], hard: ["b"] },
    );
    expect(serialized(reply)).toEqual([[], [], []]);
  });

  it("serializes a task that may write the whole project after every earlier one", () => {
    expect(serialized(plan({ key: "a", write_area: ["docs/**"] }, { key: "b", write_area: ["**"] }, { key: "c", write_area: ["src/**"] }))).toEqual([
      [],
      [1],
      [2],
    ]);
  });

  it("shows the order in the plan the user approves", () => {
    const specs = validate_plan(plan({ key: "a", write_area: ["src/net/**"] }, { key: "b", write_area: ["src/net/**", "docs/**"] }), DEFAULTS);
    const text = plan_text(plan_view(specs, false));
    expect(text).toContain("2. Task b — writes src/net/**, docs/** — not beside 1 (overlapping write areas)");
    expect(plan_view(specs, false).tasks[1]?.depends_on.serialized).toEqual([specs[0]?.id]);
  });
});

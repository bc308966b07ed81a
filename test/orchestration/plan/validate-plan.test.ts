import { describe, expect, it } from "vitest";
import { AirFailure } from "../../../src/contracts/errors.js";
import { find_cycle } from "../../../src/orchestration/plan/plan-cycle.js";
import { PLAN_REFUSED, validate_plan } from "../../../src/orchestration/plan/validate-plan.js";

const DEFAULTS = { max_turns: 7, soft_timeout_ms: 1000, hard_timeout_ms: 2000, retry_budget: 1 };

type Planned = {
  key: string;
  write_area?: unknown;
  expected_files?: string[];
  depends_on?: { hard?: string[]; soft?: string[] };
  [field: string]: unknown;
};

function planned({ key, ...rest }: Planned) {
  return {
    key,
    title: `Fix ${key}`,
    description: `Make the tests of ${key} pass.`,
    acceptance_criteria: [`${key} tests pass`],
    verification_commands: [`ctest -R ${key}`],
    write_area: [`libs/${key}`],
    ...rest,
  };
}

const plan = (...tasks: Planned[]) => ({ intent: "plan", tasks: tasks.map(planned) });

/** The message of the failure `validate_plan` throws, checking it is a refused plan the model may fix. */
function refusal(reply: unknown): string {
  try {
    validate_plan(reply, DEFAULTS);
  } catch (error) {
    expect(error).toBeInstanceOf(AirFailure);
    if (!(error instanceof AirFailure)) throw error;
    expect(error.error).toMatchObject({ kind: "agent_error", retryability: "retryable_after_change", metadata: { reason: PLAN_REFUSED } });
    expect(error.error.user_action).toBeDefined();
    return error.message;
  }
  throw new Error("the plan was accepted");
}

describe("validate_plan", () => {
  it("gives every task a fresh TaskId and names its dependencies by those ids", () => {
    const specs = validate_plan(
      plan({ key: "lib-a" }, { key: "lib-b" }, { key: "app", write_area: ["app"], depends_on: { hard: ["lib-a", "lib-b"], soft: [] } }),
      DEFAULTS,
    );
    const [a, b, app] = specs;
    expect(specs).toHaveLength(3);
    expect(new Set(specs.map((spec) => spec.id)).size).toBe(3);
    for (const spec of specs) expect(spec.id).toMatch(/^tsk_/);
    expect(app?.dependencies).toEqual({ hard: [a?.id, b?.id], soft: [], conflict: [], serialization: [] });
    expect(a?.dependencies.hard).toEqual([]);
  });

  it("fills each TaskSpec from the task and the defaults", () => {
    const [spec] = validate_plan(plan({ key: "lib-a", expected_files: ["./libs/lib-a/a.cpp"] }), DEFAULTS);
    expect(spec).toMatchObject({
      type: "execute",
      title: "Fix lib-a",
      description: "Make the tests of lib-a pass.",
      acceptance_criteria: ["lib-a tests pass"],
      scope: { write_area: ["libs/lib-a"], expected_files: ["libs/lib-a/a.cpp"] },
      verification: { commands: ["ctest -R lib-a"], required: true, fallback_allowed: false },
      constraints: { max_turns: 7, soft_timeout_ms: 1000, hard_timeout_ms: 2000, retry_budget: 1, model_policy: "agent_select" },
      output_contract: "ExecutorResult",
    });
  });

  it("carries verification tools into the TaskSpec, and a task verified only by tools still requires verification", () => {
    const [spec] = validate_plan(
      plan({ key: "lib-a", verification_commands: [], verification_tools: [{ tool_name: "cpp.build" }, { tool_name: "cpp.test", input: { regex: "lib_a" } }] }),
      DEFAULTS,
    );
    expect(spec?.verification).toEqual({
      commands: [],
      tools: [
        { tool_name: "cpp.build", input: {} },
        { tool_name: "cpp.test", input: { regex: "lib_a" } },
      ],
      required: true,
      fallback_allowed: false,
    });
    expect(refusal(plan({ key: "lib-a", verification_tools: [{ tool_name: "build" }] }))).toContain("tool name");
  });

  it("reads missing dependencies and expected files as none, and a key named twice as one dependency", () => {
    const specs = validate_plan(
      {
        intent: "plan",
        tasks: [planned({ key: "a" }), planned({ key: "b", depends_on: { soft: ["a", "a"] } }), planned({ key: "c", depends_on: { hard: ["a", "a"] } })],
      },
      DEFAULTS,
    );
    const [a, b, c] = specs;
    expect(a?.scope.expected_files).toBeUndefined();
    expect(b?.dependencies).toMatchObject({ hard: [], soft: [a?.id] });
    expect(c?.dependencies).toMatchObject({ hard: [a?.id], soft: [] });
  });

  it("refuses a cycle, naming its tasks in order", () => {
    const message = refusal(
      plan({ key: "a", depends_on: { hard: ["c"] } }, { key: "b", depends_on: { hard: ["a"] } }, { key: "c", depends_on: { hard: ["b"] } }),
    );
    expect(message).toBe('the plan is invalid: the dependencies form a cycle: "a" → "c" → "b" → "a"');
  });

  it("refuses a cycle made with soft dependencies too", () => {
    expect(refusal(plan({ key: "a", depends_on: { hard: ["b"] } }, { key: "b", depends_on: { soft: ["a"] } }))).toContain('cycle: "a" → "b" → "a"');
  });

  it("refuses a dependency on a task the plan does not have", () => {
    expect(refusal(plan({ key: "a" }, { key: "b", depends_on: { hard: ["lib-z"] } }))).toBe(
      'the plan is invalid: task "b" depends on "lib-z", which is not a task of the plan (its tasks: "a", "b")',
    );
  });

  it("refuses a task that depends on itself", () => {
    expect(refusal(plan({ key: "a", depends_on: { soft: ["a"] } }))).toContain('task "a" depends on itself');
  });

  it("refuses two tasks with the same key", () => {
    expect(refusal(plan({ key: "a" }, { key: "a", write_area: ["other"] }))).toContain('two tasks share the key "a"');
  });

  it("refuses a write area in .git, naming the task", () => {
    expect(refusal(plan({ key: "a" }, { key: "hooks", write_area: ["src", ".git/hooks"] }))).toBe(
      'the plan is invalid: task 2 ("hooks") write_area[1]: a write area must not be in .git or .air',
    );
  });

  it("refuses a write area in .air", () => {
    expect(refusal(plan({ key: "a", write_area: [".air/local"] }))).toContain("must not be in .git or .air");
  });

  it("refuses a write area that climbs out with ..", () => {
    expect(refusal(plan({ key: "a", write_area: ["src/../../etc"] }))).toContain('task 1 ("a") write_area[0]: a write area glob must not climb out with ..');
  });

  it("refuses a write area outside the project", () => {
    expect(refusal(plan({ key: "a", write_area: ["/etc/passwd"] }))).toContain("a write area glob must be relative to the project");
  });

  it("refuses an empty write area and a missing one", () => {
    expect(refusal(plan({ key: "a", write_area: [] }))).toContain("a write area needs at least one glob");
    expect(refusal(plan({ key: "a", write_area: ["  "] }))).toContain("a write area glob must not be empty");
    expect(refusal({ intent: "plan", tasks: [{ ...planned({ key: "a" }), write_area: undefined }] })).toContain('task 1 ("a") write_area');
  });

  it("refuses an expected file outside its task's write area", () => {
    expect(refusal(plan({ key: "a", write_area: ["libs/a"], expected_files: ["libs/a/a.cpp", "libs/b/b.cpp"] }))).toBe(
      'the plan is invalid: task "a" expects to change "libs/b/b.cpp", which is outside its write area ("libs/a")',
    );
    expect(refusal(plan({ key: "a", write_area: ["libs/**/*.cpp"], expected_files: ["../a.cpp"] }))).toContain('expects to change "../a.cpp"');
  });

  it("accepts expected files matched by a glob area", () => {
    const [spec] = validate_plan(plan({ key: "a", write_area: ["libs/**/*.cpp"], expected_files: ["libs/a/x.cpp"] }), DEFAULTS);
    expect(spec?.scope.expected_files).toEqual(["libs/a/x.cpp"]);
  });

  it("refuses an empty plan and a task without a title", () => {
    expect(refusal({ intent: "plan", tasks: [] })).toContain("a plan needs at least one task");
    expect(refusal({ intent: "plan", tasks: [planned({ key: "a", title: "" })] })).toContain('task 1 ("a") title');
  });

  it("names at most three schema problems, and how many more there are", () => {
    const bad = { key: "a", write_area: [".git"] };
    const message = refusal(plan(bad, { ...bad, key: "b" }, { ...bad, key: "c" }, { ...bad, key: "d" }, { ...bad, key: "e" }));
    expect(message).toContain('task 3 ("c")');
    expect(message).not.toContain('task 4 ("d")');
    expect(message).toMatch(/\(and 2 more\)$/);
  });
});

describe("find_cycle", () => {
  const graph = (edges: Record<string, string[]>) => (node: string) => edges[node] ?? [];

  it("finds none in a graph whose nodes share dependencies (a diamond)", () => {
    expect(find_cycle(["a", "b", "c", "d"], graph({ a: ["b", "c"], b: ["d"], c: ["d"] }))).toBeUndefined();
  });

  it("finds a cycle reached only through other nodes, without the nodes before it", () => {
    expect(find_cycle(["a", "b", "c", "d"], graph({ a: ["b"], b: ["c"], c: ["d"], d: ["b"] }))).toEqual(["b", "c", "d"]);
  });

  it("walks a chain of 100 000 nodes without overflowing the stack", () => {
    const nodes = Array.from({ length: 100_000 }, (_, index) => index);
    expect(find_cycle(nodes, (node) => (node + 1 < nodes.length ? [node + 1] : []))).toBeUndefined();
  });
});

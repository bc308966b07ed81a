import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { AirError, ErrorKind, make_air_error, semantic_signature_of } from "../../src/contracts/errors.js";
import { new_id, ProjectId, SessionId, TaskId, new_project_id } from "../../src/contracts/ids.js";
import { TaskSpec } from "../../src/contracts/task.js";
import { WorkerResult } from "../../src/contracts/worker-result.js";

describe("ids", () => {
  it("are prefixed by entity and sort in creation order", () => {
    const ids = Array.from({ length: 1000 }, () => new_id("task"));
    expect(ids.every((id) => /^tsk_[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
  });

  it("are validated per entity: a task id is not a session id", () => {
    const id = new_id("task");
    expect(v.is(TaskId, id)).toBe(true);
    expect(v.is(SessionId, id)).toBe(false);
    expect(v.is(TaskId, "tsk_not-a-ulid")).toBe(false);
  });

  it("makes project ids UUIDs", () => {
    expect(v.is(ProjectId, new_project_id())).toBe(true);
    expect(v.is(ProjectId, "not-a-uuid")).toBe(false);
  });
});

describe("make_air_error", () => {
  it("knows the 22 error kinds of the taxonomy", () => {
    expect(ErrorKind.options).toHaveLength(22);
  });

  it("fills defaults and produces a valid AirError", () => {
    const error = make_air_error({ kind: "tool_error", message: "fs.read failed", user_action: "Check the path." });
    expect(v.parse(AirError, error)).toEqual(error);
    expect(error).toMatchObject({ severity: "error", retryability: "unknown", user_action: "Check the path." });
    expect(error.error_id).toMatch(/^err_/);
  });

  it("derives the same semantic signature for the same failure with different ids, paths and numbers", () => {
    const a = make_air_error({ kind: "build_error", message: "main.cpp:12: undefined reference in /tmp/a/x.o (task tsk_01M8MGQR43JG9CYGGWFCEFR3TC)" });
    const b = make_air_error({ kind: "build_error", message: "main.cpp:40: undefined reference in /home/b/y.o (task tsk_01M8MGVSCZGJDBVT7JXKN2Z7ZE)" });
    expect(a.semantic_signature).toBe(b.semantic_signature);
    expect(a.semantic_signature).not.toBe(semantic_signature_of("test_error", "main.cpp:12: undefined reference in /tmp/a/x.o"));
    expect(a.semantic_signature).not.toBe(semantic_signature_of("build_error", "expected ';' before '}'"));
  });

  it("keeps a given semantic signature", () => {
    expect(make_air_error({ kind: "test_error", message: "x", semantic_signature: "ctest:Foo" }).semantic_signature).toBe("ctest:Foo");
  });
});

const task_id = new_id("task");
const spec = {
  id: task_id,
  type: "docs",
  title: "Document the parser",
  description: "Write docs/parser.md",
  acceptance_criteria: ["docs/parser.md exists"],
  scope: { write_area: "docs/" },
  dependencies: { hard: [], soft: [], conflict: [new_id("task")], serialization: [new_id("task")] },
  verification: { required: false, fallback_allowed: true },
  constraints: { max_turns: 10, soft_timeout_ms: 60_000, hard_timeout_ms: 120_000, retry_budget: 2, model_policy: "agent_select" },
  context_refs: {},
  output_contract: "ExecutorResult",
};

describe("TaskSpec", () => {
  it("accepts docs tasks with conflict and serialization dependencies", () => {
    expect(v.safeParse(TaskSpec, spec).success).toBe(true);
  });

  it("defaults conflict and serialization dependencies to none", () => {
    const parsed = v.parse(TaskSpec, { ...spec, dependencies: { hard: [], soft: [] } });
    expect(parsed.dependencies).toEqual({ hard: [], soft: [], conflict: [], serialization: [] });
  });

  it("rejects a soft timeout beyond the hard one and a forced model without an id", () => {
    expect(v.safeParse(TaskSpec, { ...spec, constraints: { ...spec.constraints, soft_timeout_ms: 200_000 } }).success).toBe(false);
    expect(v.safeParse(TaskSpec, { ...spec, constraints: { ...spec.constraints, model_policy: "scheduler_forced" } }).success).toBe(false);
  });
});

describe("WorkerResult", () => {
  const common = {
    task_id,
    agent_id: new_id("agent"),
    status: "completed",
    summary: "Reviewed the change.",
    changed_files: [],
    artifacts: [],
    verification: [],
    risks: [],
    follow_up_tasks: [],
    evidence_refs: [],
  };

  it("types the result by agent type", () => {
    expect(v.safeParse(WorkerResult, { ...common, agent_type: "reviewer", result: { verdict: "approved", findings: [] } }).success).toBe(true);
  });

  it("rejects an executor result claimed by a reviewer", () => {
    const result = v.safeParse(WorkerResult, {
      ...common,
      agent_type: "reviewer",
      result: { commands_run: [], tests_added: [] },
    });
    expect(result.success).toBe(false);
  });
});

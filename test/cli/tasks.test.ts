/**
 * `air tasks` against a real session database: one line per task with its status, workspace, branch,
 * attempts and the usage of its model calls, then the session's total; `--json` the same; the latest session
 * by default, another with `--session`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { run_tasks } from "../../src/cli/commands/tasks.js";
import type { Io } from "../../src/cli/output.js";
import { is_air_failure } from "../../src/contracts/errors.js";
import { make_event, type EventType, type PayloadInputOf } from "../../src/contracts/events/registry.js";
import { new_id, type TaskId } from "../../src/contracts/ids.js";
import { MODEL_COMPLETE_TOOL } from "../../src/contracts/tool.js";
import { open_session } from "../../src/project/session-manager.js";
import { workspace_branch } from "../../src/workspaces/worktree.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";
import { task_created_event } from "../fixtures/events.js";

let temp: TempSession | undefined;
afterEach(() => temp?.cleanup());

function record<T extends EventType>(type: T, payload: PayloadInputOf<T>): void {
  temp!.session.ingestor.ingest(make_event(type, payload, temp!.session.origin));
}

/** One model call recorded as `model.complete` does: a tool run whose output carries the response's usage. */
function model_call(ids: { task_id?: string; agent_id?: string }, model_id: string, input_tokens: number, output_tokens: number): void {
  const tool_run_id = new_id("tool_run");
  record("tool.started", { tool_run_id, tool_name: MODEL_COMPLETE_TOOL, tool_version: 1, input: { purpose: "task_execution", messages: [] }, ...ids });
  const output = { model_id, content: [{ type: "text", text: "ok" }], stop_reason: "end_turn", usage: { input_tokens, output_tokens } };
  record("tool.completed", { tool_run_id, output, artifact_ids: [], evidence_ids: [], duration_ms: 5 });
}

function task(title: string): TaskId {
  const event = task_created_event(temp!.session.origin, { title });
  temp!.session.ingestor.ingest(event);
  return event.payload.task.id as TaskId;
}

function started(task_id: TaskId): string {
  const agent_id = new_id("agent");
  record("task.started", { task_id, attempt_id: new_id("attempt"), agent_id });
  record("agent.started", { agent_id, agent_type: "executor", status: "running", task_id });
  return agent_id;
}

async function air_tasks(options: { session?: string; json: boolean }): Promise<string> {
  let out = "";
  const io: Io = { cwd: temp!.project.layout.root, out: (text) => (out += text), err: () => undefined };
  expect(await run_tasks(io, options)).toBe(0);
  return out;
}

/** Two tasks: one in a worktree with two priced calls, one still pending in the main checkout; one Main Agent call. */
function two_tasks() {
  temp = open_temp_session();
  const in_worktree = task("Fix the parser");
  const agent_id = started(in_worktree);
  const workspace_id = new_id("workspace");
  record("workspace.created", {
    workspace_id,
    strategy: "worktree",
    path: "/p/.air/local/workspaces/one",
    base_ref: "air/snapshot-1",
    task_id: in_worktree,
    agent_id,
  });
  model_call({ task_id: in_worktree, agent_id }, "claude-sonnet-4-5", 1_000_000, 100_000);
  model_call({ task_id: in_worktree, agent_id }, "claude-sonnet-4-5", 1_000_000, 0);
  const pending = task("Document the parser");
  model_call({}, "claude-sonnet-4-5", 500, 20);
  return { in_worktree, pending, workspace_id };
}

describe("air tasks", () => {
  it("lists each task with status, workspace, branch, attempts and usage, and the session's total", async () => {
    const { in_worktree, pending, workspace_id } = two_tasks();
    const text = await air_tasks({ json: false });
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+ATTEMPTS\s+WORKSPACE\s+BRANCH\s+TURNS\s+TOKENS IN\s+TOKENS OUT\s+COST\s+TITLE$/);
    // Sonnet: $3 per million input tokens and $15 per million output tokens.
    expect(lines[1]).toMatch(
      new RegExp(
        `^${in_worktree}\\s+running\\s+1\\s+worktree /p/.air/local/workspaces/one\\s+air/${in_worktree}/${workspace_id}\\s+2\\s+2000000\\s+100000\\s+\\$7\\.5000\\s+Fix the parser$`,
      ),
    );
    expect(lines[2]).toMatch(new RegExp(`^${pending}\\s+pending\\s+0\\s+main\\s+-\\s+0\\s+0\\s+0\\s+\\$0\\.0000\\s+Document the parser$`));
    expect(text).toContain(
      "Total (every model call of the session, the Main Agent's too): 3 model call(s), 2000500 tokens in, 100020 tokens out, cost $7.5018",
    );
  });

  it("gives the same as JSON", async () => {
    const { in_worktree, workspace_id } = two_tasks();
    const listing = JSON.parse(await air_tasks({ json: true }));
    expect(listing.session_id).toBe(temp!.session.id);
    expect(listing.tasks[0]).toEqual({
      id: in_worktree,
      title: "Fix the parser",
      status: "running",
      status_reason: null,
      workspace: { id: workspace_id, strategy: "worktree", path: "/p/.air/local/workspaces/one" },
      branch: workspace_branch(in_worktree, workspace_id),
      attempts: 1,
      usage: { turns: 2, input_tokens: 2_000_000, output_tokens: 100_000, cost_usd: 7.5 },
    });
    expect(listing.tasks[1]).toMatchObject({ workspace: "main", branch: null, attempts: 0 });
    expect(listing.total).toEqual({ turns: 3, input_tokens: 2_000_500, output_tokens: 100_020, cost_usd: expect.closeTo(7.5018, 6) });
  });

  it("shows a cost only where every model called has a known price", async () => {
    temp = open_temp_session();
    const id = task("Local model work");
    model_call({ task_id: id, agent_id: started(id) }, "llama-local", 10, 10);
    expect(JSON.parse(await air_tasks({ json: true })).tasks[0].usage.cost_usd).toBeNull();
    expect(await air_tasks({ json: false })).toContain("cost unknown");
  });

  it("reads the latest session by default and another one with --session", async () => {
    two_tasks();
    const first = temp!.session.id;
    const later = open_session(temp!.project, { title: "later" });
    try {
      expect(await air_tasks({ json: false })).toBe(
        `Session ${later.id} has no tasks.\nTotal (every model call of the session, the Main Agent's too): 0 model call(s), 0 tokens in, 0 tokens out, cost $0.0000\n`,
      );
      expect(JSON.parse(await air_tasks({ session: first, json: true })).tasks).toHaveLength(2);
    } finally {
      later.close();
    }
  });

  it("refuses a session that is not in the project", async () => {
    temp = open_temp_session();
    const io: Io = { cwd: temp.project.layout.root, out: () => undefined, err: () => undefined };
    const refused = await run_tasks(io, { session: "ses_01M8S17MAZVZVF0CEBJC2Y6XA5", json: false }).catch((error: unknown) => error);
    expect(is_air_failure(refused) && refused.error).toMatchObject({
      kind: "user_error",
      message: "no session ses_01M8S17MAZVZVF0CEBJC2Y6XA5 in this project",
    });
  });
});

/**
 * The text `air run -p` prints for a team's run, rendered from typed events as the bus hands them over: each
 * wave (what starts together, what waits and why), where each agent works, and each merge step.
 */
import { describe, expect, it } from "vitest";
import { progress_lines } from "../../src/cli/progress-lines.js";
import { RunNames } from "../../src/cli/run-names.js";
import { make_event, parse_event, type EventType, type PayloadInputOf, type RuntimeEvent } from "../../src/contracts/events/registry.js";
import { new_id } from "../../src/contracts/ids.js";
import { VERIFICATION_FAILED_DETAIL } from "../../src/workspaces/merge-result.js";

const origin = { session_id: new_id("session"), source: { kind: "scheduler" as const }, route: ["main", "scheduler"] };

function event<T extends EventType>(type: T, payload: PayloadInputOf<T>): RuntimeEvent {
  return parse_event(make_event(type, payload, origin));
}

/** The lines of `events` in order, each event learnt before it is rendered, as `follow` does. */
function printed(...events: RuntimeEvent[]): string[] {
  const names = new RunNames();
  return events.flatMap((each) => {
    names.learn(each);
    return progress_lines(each, names);
  });
}

const net = new_id("task");
const ui = new_id("task");
const docs = new_id("task");
const agent_id = new_id("agent");
const workspace_id = new_id("workspace");

const wave = event("wave.planned", {
  dispatched: [
    { task_id: net, title: "Fix the socket" },
    { task_id: ui, title: "Fix the menu" },
  ],
  waiting: [{ task_id: docs, title: "Document the socket", reason: { kind: "overlap", on: net, glob: "src/net/**" } }],
});

describe("progress_lines", () => {
  it("says which tasks run together and why the others wait", () => {
    expect(printed(wave)).toEqual([
      `▸ wave: 2 tasks run together: Fix the socket (${net}), Fix the menu (${ui})`,
      `  · Document the socket (${docs}) waits for ${net} which also writes src/net/**`,
    ]);
  });

  it("says once, first, why tasks run one at a time", () => {
    const serial = event("wave.planned", {
      dispatched: [{ task_id: net, title: "Fix the socket" }],
      waiting: [{ task_id: ui, title: "Fix the menu", reason: { kind: "capacity" } }],
      one_at_a_time: "not a git repository: tasks run one at a time in the project folder",
    });
    expect(printed(serial)).toEqual([
      "! not a git repository: tasks run one at a time in the project folder",
      `▸ wave: Fix the socket (${net}) starts`,
      `  · Fix the menu (${ui}) waits for a free worker slot`,
    ]);
  });

  it("gives each started agent a line with its task, its id and its worktree's branch", () => {
    const created = event("workspace.created", {
      workspace_id,
      strategy: "worktree",
      path: "/p/.air/workspaces/w",
      base_ref: "abc123",
      task_id: net,
      agent_id,
    });
    const started = event("task.started", { task_id: net, attempt_id: new_id("attempt"), agent_id, workspace_id });
    expect(printed(wave, created, started).at(-1)).toBe(
      `▸ Fix the socket (${net}) started — agent ${agent_id} in worktree /p/.air/workspaces/w on branch air/${net}/${workspace_id}`,
    );
    const alone = event("task.started", { task_id: ui, attempt_id: new_id("attempt"), agent_id: new_id("agent") });
    expect(printed(wave, alone).at(-1)).toMatch(/^▸ Fix the menu \(tsk_\w+\) started — agent agt_\w+ in the project folder$/);
  });

  it("shows each merge step of a task's workspace, by the task's title", () => {
    const created = event("workspace.created", { workspace_id, strategy: "worktree", path: "/p/w", base_ref: "abc123", task_id: net, agent_id });
    const lines = printed(
      wave,
      created,
      event("workspace.merge.started", { workspace_id }),
      event("workspace.merge.conflicted", { workspace_id, conflicting_files: ["src/net/socket.c", "src/net/socket.h"] }),
      event("workspace.merge.started", { workspace_id }),
      event("workspace.merge.conflicted", {
        workspace_id,
        cause: "verification_failed",
        conflicting_files: ["src/net/socket.c"],
        detail: `${VERIFICATION_FAILED_DETAIL}: \`ctest\` exited 8`,
      }),
      event("workspace.merge.started", { workspace_id }),
      event("workspace.merge.completed", { workspace_id, merged_ref: "def456" }),
    );
    const subject = `Fix the socket (${net})`;
    expect(lines.slice(-6)).toEqual([
      `⇢ merging ${subject} into the checkout`,
      `✗ merge of ${subject} conflicted in src/net/socket.c, src/net/socket.h; the checkout is as it was`,
      `⇢ merging ${subject} into the checkout`,
      `✗ merge of ${subject} rolled back, the checkout restored: post-merge verification failed: \`ctest\` exited 8`,
      `⇢ merging ${subject} into the checkout`,
      `✓ merged ${subject}`,
    ]);
  });

  it("names a task's end by its title, and a worker by the task it works on", () => {
    const started = event("task.started", { task_id: net, attempt_id: new_id("attempt"), agent_id });
    const ready = event("agent.started", { agent_id, agent_type: "executor", status: "running", task_id: net });
    const blocked = event("task.blocked", { task_id: ui, reason: "needs a decision" });
    expect(printed(wave, started, ready, blocked).slice(-2)).toEqual([
      `  worker ${agent_id} ready for Fix the socket`,
      `! Fix the menu (${ui}) blocked: needs a decision`,
    ]);
  });
});

/**
 * The TUI with a team: one line per task (status, agent, usage from `air tasks`' listing) and the total, and
 * the wave and merge lines printed once in the transcript.
 */
import { cleanup } from "ink-testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { new_id } from "../../src/contracts/ids.js";
import type { ListedTask, TaskListing } from "../../src/contracts/task-listing.js";
import type { TaskView, TeamLineView } from "../../src/projection/types.js";
import { base_state, render_app, state_with, task, until, type Rendered } from "./fixtures.js";

afterEach(() => cleanup());

function frame(rendered: Rendered): string {
  return rendered.lastFrame() ?? "";
}

function listed(view: TaskView, turns: number, cost_usd: number | null): ListedTask {
  return {
    id: view.id,
    title: view.title,
    status: view.status,
    status_reason: null,
    workspace: "main",
    branch: null,
    attempts: view.attempt,
    usage: { turns, input_tokens: turns * 1000, output_tokens: turns * 200, cost_usd },
  };
}

function line(text: string, tone: TeamLineView["tone"] = "info"): TeamLineView {
  return { id: new_id("event"), at: new Date().toISOString(), tone, text };
}

const agent_id = new_id("agent");
const socket = task("Fix the socket", { agent_id });
const menu = task("Fix the menu", { status: "pending" });

describe("the team view", () => {
  it("shows each task with its status, agent, branch and usage, and the session's total", async () => {
    const listing: TaskListing = {
      tasks: [listed(socket, 3, 0.0125), listed(menu, 0, null)],
      total: { turns: 5, input_tokens: 6000, output_tokens: 900, cost_usd: null },
    };
    const branch = `air/${socket.id}/wsp_1`;
    const workspaces = [{ id: new_id("workspace"), task_id: socket.id, strategy: "worktree" as const, path: "/p/.air/workspaces/w", branch }];
    const rendered = render_app(state_with(base_state(), { tasks: [socket, menu], workspaces }), { read_tasks: () => listing });
    await until(
      () => frame(rendered).includes("total"),
      () => frame(rendered),
    );
    const lines = frame(rendered).split("\n");
    expect(lines.find((each) => each.includes("Fix the socket"))).toContain(`Fix the socket · 3600 tok · $0.0125 · 3 turns · ${agent_id} · air/`);
    expect(lines.find((each) => each.includes("Fix the menu"))).toContain("0 tok · cost – · 0 turns");
    expect(lines.find((each) => each.includes("total"))).toContain("total 6900 tok · cost – · 5 turns (the Main Agent's too)");
  });

  it("reads the listing again only when a task or the count of model calls changed", async () => {
    let reads = 0;
    const read_tasks = (): TaskListing => {
      reads += 1;
      return { tasks: [], total: { turns: reads, input_tokens: 0, output_tokens: 0, cost_usd: null } };
    };
    const rendered = render_app(state_with(base_state(), { tasks: [socket, menu] }), { read_tasks });
    await until(() => reads === 1);
    rendered.holder.update({ agents: [] });
    rendered.holder.update({ tool_runs: [] });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reads).toBe(1);
    rendered.holder.update({ tasks: [socket, { ...menu, status: "running" }] });
    await until(
      () => frame(rendered).includes("total 0 tok · cost – · 2 turns"),
      () => frame(rendered),
    );
    expect(reads).toBe(2);
  });

  it("stays away for a lone task", () => {
    const rendered = render_app(state_with(base_state(), { tasks: [socket] }), {
      read_tasks: () => ({ tasks: [], total: { turns: 0, input_tokens: 0, output_tokens: 0, cost_usd: null } }),
    });
    expect(frame(rendered)).not.toContain("total");
  });

  it("prints the wave and merge lines once in the transcript", async () => {
    const wave = line(`▸ wave: 2 tasks run together: Fix the socket (${socket.id}), Fix the menu (${menu.id})`);
    const conflict = line(`✗ merge of Fix the menu (${menu.id}) conflicted in src/menu.c; the checkout is as it was`, "error");
    const rendered = render_app(state_with(base_state(), { tasks: [socket, menu], team_lines: [wave] }));
    await until(
      () => frame(rendered).includes("▸ wave: 2 tasks run together"),
      () => frame(rendered),
    );
    rendered.holder.update({ team_lines: [wave, conflict] });
    await until(
      () => frame(rendered).includes("conflicted in src/menu.c"),
      () => frame(rendered),
    );
    expect(frame(rendered).split("▸ wave:").length).toBe(2);
  });
});

/**
 * The Architecture Designer's gate end to end: the real runtime, worker process and AnthropicAdapter against
 * the scripted model server, in a real git checkout whose task changes the public header include/calc.h. Each
 * result class does what it says; a change that sets nothing off costs no model call.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { start_runtime } from "../../src/actors/runtime/runtime.js";
import { DEFAULT_REVIEW_SETTINGS } from "../../src/orchestration/review/settings.js";
import type { LoneTask } from "../../src/actors/runtime/task-workspaces.js";
import { DEFAULT_TASK_DEFAULTS } from "../../src/cli/run-requirement.js";
import type { DurableEventType, RuntimeEvent } from "../../src/contracts/events/registry.js";
import type { RequestOutcome } from "../../src/machines/main-agent.js";
import type { PromptAnswerer } from "../../src/permissions/prompts.js";
import { permissions_for_project } from "../../src/permissions/session-permissions.js";
import { ProviderManager } from "../../src/providers/manager.js";
import type { ScriptInput } from "../../src/providers/scripted/script.js";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import { commit_files, init_repo } from "../fixtures/git-repo.js";
import { open_temp_session, set_air_home, type TempSession } from "../fixtures/session.js";

const KEY = "sk-architecture-gate-test";
const HEADER = "#pragma once\nint add(int a, int b);\n";
const WIDER = "#pragma once\nlong add(long a, long b);\n";
const PLAN = "# Architecture\ncalc exposes add(int, int) in include/calc.h.\n";

const classify = (file: string) => ({
  reply: {
    content: [
      {
        type: "tool_use" as const,
        name: "classify_request",
        input: {
          intent: "task",
          title: "Widen add",
          description: `Change ${file}.`,
          acceptance_criteria: [],
          verification_commands: [],
          write_area: ["include/**", "src/**"],
        },
      },
    ],
  },
});

/** The executor reads the file, rewrites it and reports. */
const executor = (file: string, content: string) => [
  { reply: { content: [{ type: "tool_use" as const, name: "fs.read", input: { path: file } }] } },
  { reply: { content: [{ type: "tool_use" as const, name: "fs.write", input: { path: file, content } }] } },
  { reply: { content: [{ type: "text" as const, text: `Rewrote ${file}.` }] } },
];

const verdict = (input: Record<string, unknown>) => ({
  reply: { content: [{ type: "tool_use" as const, id: "toolu_arch", name: "submit_impact", input: { impacted_task_ids: [], ...input } }] },
});

const ALLOW: PromptAnswerer = { answer: async () => ({ answer: "allow", grant_scope: "once", resolved_by: "user" }) };
const DENY: PromptAnswerer = { answer: async () => ({ answer: "deny", grant_scope: "once", resolved_by: "user" }) };

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

type Gated = { temp: TempSession; server: ScriptedServer; outcome: RequestOutcome; root: string };

type GateSetup = { answerer?: PromptAnswerer; user_edits?: Record<string, string>; lone_task?: LoneTask };

async function run_gated(script: ScriptInput, setup: GateSetup = {}): Promise<Gated> {
  const { answerer, user_edits = {}, lone_task } = setup;
  const temp = open_temp_session();
  cleanups.push(() => temp.cleanup());
  cleanups.push(set_air_home(path.join(temp.root, "air-home")));
  const root = temp.project.layout.root;
  init_repo(root);
  commit_files(root, "start", { "include/calc.h": HEADER, "src/calc.cpp": "int add(int a, int b) { return a + b; }\n", ".gitignore": ".air/\n" });
  fs.mkdirSync(temp.project.layout.plan, { recursive: true });
  fs.writeFileSync(path.join(temp.project.layout.plan, "architecture.md"), PLAN);
  for (const [file, text] of Object.entries(user_edits)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  const server = await start_scripted_server({ script, api_key: KEY });
  cleanups.push(() => server.close());
  const providers = ProviderManager.load({
    home: temp.root,
    env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
    retry: { sleep: async () => undefined },
  });
  const runtime = await start_runtime(temp.session, {
    provider: providers.for_session(),
    permissions: permissions_for_project(temp.project.layout, { mode: "accept-edits", ...(answerer === undefined ? {} : { answerer }) }),
    task_defaults: DEFAULT_TASK_DEFAULTS,
    // A header change is significant to the review gate too; that gate has tests of its own.
    review: { ...DEFAULT_REVIEW_SETTINGS, policy: "never" },
    ...(lone_task === undefined ? {} : { lone_task }),
  });
  cleanups.push(() => runtime.stop());
  const outcome = await runtime.submit("widen add to long");
  return { temp, server, outcome, root };
}

const header_script = (...architect: ReturnType<typeof verdict>[]): ScriptInput => ({
  turns: { main: [classify("include/calc.h")], executor: executor("include/calc.h", WIDER), architect },
});

const events_of = (temp: TempSession, ...types: DurableEventType[]): RuntimeEvent[] => temp.session.store.query({ types }).map(({ event }) => event);
const payloads_of = (temp: TempSession, type: DurableEventType) => events_of(temp, type).map((event) => event.payload);
const task_statuses = (temp: TempSession) => events_of(temp, "task.completed", "task.blocked", "task.interrupted").map((event) => event.type);

describe("the architecture gate", () => {
  it("passes a change that sets nothing off without asking the designer, whatever else the user has not committed", async () => {
    const { temp, server, outcome } = await run_gated(
      { turns: { main: [classify("src/calc.cpp")], executor: executor("src/calc.cpp", "int add(int a, int b) { return b + a; }\n") } },
      { user_edits: { "libs/extra/CMakeLists.txt": "add_library(extra extra.cpp)\n", "include/extra.h": "#pragma once\n" } },
    );
    expect(outcome).toMatchObject({ kind: "executed", run: { status: "completed" } });
    expect(server.requests().filter((request) => request.requester === "architect")).toEqual([]);
    expect(events_of(temp, "architecture.impact.completed")).toEqual([]);
  });

  it("silent_continue: records the impact with its trigger and lets the work land", async () => {
    const { temp, server, outcome, root } = await run_gated(header_script(verdict({ result_class: "silent_continue", summary: "add widens as planned" })));
    expect(outcome).toMatchObject({ kind: "executed", run: { status: "completed" } });
    const [asked] = server.requests().filter((request) => request.requester === "architect");
    expect(JSON.stringify(asked?.body)).toContain("calc exposes add(int, int)");
    expect(JSON.stringify(asked?.body)).toContain("+long add(long a, long b);");
    expect(payloads_of(temp, "architecture.impact.completed")).toEqual([
      {
        impact: "none",
        result_class: "silent_continue",
        triggers: [{ kind: "public_interface", detail: "public interface include/calc.h changed (+1 −1 lines)", file: "include/calc.h" }],
        impacted_task_ids: [],
        summary: "add widens as planned",
      },
    ]);
    expect(task_statuses(temp)).toEqual(["task.completed"]);
    expect(fs.readFileSync(path.join(root, "include/calc.h"), "utf8")).toBe(WIDER);
  });

  it("reads a worktree task's change against the worktree's base, and the work lands through the merge queue", async () => {
    const { temp, outcome, root } = await run_gated(header_script(verdict({ result_class: "silent_continue", summary: "add widens as planned" })), {
      lone_task: "worktree",
    });
    expect(outcome).toMatchObject({ kind: "executed", run: { status: "completed" } });
    expect(payloads_of(temp, "architecture.impact.completed")).toMatchObject([{ triggers: [{ kind: "public_interface", file: "include/calc.h" }] }]);
    expect(events_of(temp, "workspace.merge.completed")).toHaveLength(1);
    expect(fs.readFileSync(path.join(root, "include/calc.h"), "utf8")).toBe(WIDER);
  });

  it("requires_user_confirmation, allowed: asks through the permission prompt path, writes the plan update through plan.write, completes", async () => {
    const plan_update = { path: "architecture.md", content: "# Architecture\ncalc exposes add(long, long) in include/calc.h.\n", summary: "add takes longs" };
    const { temp, outcome, root } = await run_gated(
      header_script(verdict({ result_class: "requires_user_confirmation", summary: "add's signature changes for every caller", plan_update })),
      { answerer: ALLOW },
    );
    expect(outcome).toMatchObject({ kind: "executed", run: { status: "completed" } });
    const [prompt] = payloads_of(temp, "permission.prompt.requested");
    expect(prompt).toMatchObject({ tool_name: "architecture.gate", offered_scopes: ["once"] });
    expect(JSON.stringify(prompt)).toContain("add's signature changes for every caller");
    expect(payloads_of(temp, "permission.prompt.resolved")).toMatchObject([{ answer: "allow", resolved_by: "user" }]);
    expect(fs.readFileSync(path.join(root, ".air/shared/plan/architecture.md"), "utf8")).toBe(plan_update.content);
    const write = events_of(temp, "tool.started").find((event) => event.type === "tool.started" && event.payload.tool_name === "plan.write");
    expect(write?.payload).toMatchObject({ input: { path: "architecture.md" } });
    const [updated] = payloads_of(temp, "architecture.plan.updated");
    expect(updated).toMatchObject({ plan_ref: ".air/shared/plan/architecture.md", plan_version: 1, summary: "add takes longs" });
    expect(updated).toHaveProperty("artifact_id");
    expect(payloads_of(temp, "architecture.impact.completed")).toMatchObject([{ impact: "design", result_class: "requires_user_confirmation" }]);
    expect(task_statuses(temp)).toEqual(["task.completed"]);
  });

  it("requires_user_confirmation, denied: blocks the task and writes no plan", async () => {
    const plan_update = { path: "architecture.md", content: "# changed\n", summary: "add takes longs" };
    const { temp, outcome, root } = await run_gated(
      header_script(verdict({ result_class: "requires_user_confirmation", summary: "add's signature changes", plan_update })),
      { answerer: DENY },
    );
    expect(outcome).toMatchObject({ kind: "executed", run: { status: "blocked" } });
    expect(task_statuses(temp)).toEqual(["task.blocked"]);
    expect(payloads_of(temp, "task.blocked")).toMatchObject([{ reason: "the architecture change was not confirmed: add's signature changes" }]);
    expect(fs.readFileSync(path.join(root, ".air/shared/plan/architecture.md"), "utf8")).toBe(PLAN);
    expect(events_of(temp, "architecture.plan.updated")).toEqual([]);
  });

  it("requires_replan: interrupts the task and ends the run with a replan naming it", async () => {
    const { temp, outcome } = await run_gated(header_script(verdict({ result_class: "requires_replan", summary: "callers of add must be planned again" })));
    const task_id = outcome.kind === "executed" ? outcome.task_ids[0] : undefined;
    expect(outcome).toMatchObject({
      kind: "executed",
      run: { status: "blocked", replan: { task_ids: [task_id], reason: "callers of add must be planned again" } },
    });
    expect(task_statuses(temp)).toEqual(["task.interrupted"]);
    expect(payloads_of(temp, "architecture.impact.completed")).toMatchObject([{ impact: "design", result_class: "requires_replan" }]);
  });

  it("reject_or_escalate: blocks the task with the designer's summary", async () => {
    const { temp, outcome } = await run_gated(header_script(verdict({ result_class: "reject_or_escalate", summary: "the ABI of add is frozen" })));
    expect(outcome).toMatchObject({ kind: "executed", run: { status: "blocked" } });
    expect(payloads_of(temp, "task.blocked")).toMatchObject([
      { reason: "the Architecture Designer rejected the change: the ABI of add is frozen", error: { kind: "architecture_error" } },
    ]);
  });

  it("blocks the task with a clear error when the designer answers off the schema twice", async () => {
    const { temp, outcome } = await run_gated(header_script(verdict({ result_class: "maybe", summary: "?" }), verdict({ summary: "" })));
    expect(outcome).toMatchObject({ kind: "executed", run: { status: "blocked" } });
    const [blocked] = payloads_of(temp, "task.blocked");
    expect(blocked).toMatchObject({ error: { kind: "architecture_error" } });
    expect(JSON.stringify(blocked)).toContain("the Architecture Designer's answer was refused twice");
    expect(events_of(temp, "architecture.impact.completed")).toEqual([]);
  });
});

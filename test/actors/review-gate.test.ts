/**
 * The review gate through a real Runtime: real executor and reviewer worker processes, the AnthropicAdapter
 * against the scripted model server, a real git checkout, the task in a worktree of its own (lone_task
 * worktree) so that its work lands through the merge queue only once the gate passes.
 */
import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { start_runtime } from "../../src/actors/runtime/runtime.js";
import { read_task_graph } from "../../src/actors/runtime/task-graph.js";
import { DEFAULT_TASK_DEFAULTS } from "../../src/cli/run-requirement.js";
import { tasks } from "../../src/db/schema.js";
import { ReviewSettings, type ReviewSettingsInput } from "../../src/orchestration/review/settings.js";
import { permissions_for_project } from "../../src/permissions/session-permissions.js";
import { ProviderManager } from "../../src/providers/manager.js";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import type { ScriptInput } from "../../src/providers/scripted/script.js";
import { commit_files, git, init_repo } from "../fixtures/git-repo.js";
import { REVIEWER_ATTACKS } from "../fixtures/reviewer-attacks.js";
import { open_temp_session, set_air_home, type TempSession } from "../fixtures/session.js";

const KEY = "sk-review-gate-test";

const CLASSIFY = {
  reply: {
    content: [
      {
        type: "tool_use" as const,
        name: "classify_request",
        input: {
          intent: "task",
          title: "Write the note",
          description: "Write today's note in notes/today.md.",
          acceptance_criteria: ["notes/today.md holds today's note"],
          verification_commands: [],
          write_area: ["notes/**"],
        },
      },
    ],
  },
};

const write = (file: string, content: string) => ({ reply: { content: [{ type: "tool_use" as const, name: "fs.write", input: { path: file, content } }] } });
const say = (text: string) => ({ reply: { content: [{ type: "text" as const, text }] } });
const submit = (input: Record<string, unknown>) => ({ reply: { content: [{ type: "tool_use" as const, name: "submit_review", input }] } });

const NO_SOURCES = {
  severity: "P1",
  confidence: 0.9,
  category: "correctness",
  file: "notes/today.md",
  line_start: 1,
  message: "the note names no sources",
  suggestion: "list them in notes/sources.md",
};

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

type Run = { temp: TempSession; root: string; server: ScriptedServer; outcome: Awaited<ReturnType<Awaited<ReturnType<typeof start_runtime>>["submit"]>> };

async function run_with_review(script: ScriptInput, review: ReviewSettingsInput): Promise<Run> {
  const temp = open_temp_session();
  cleanups.push(() => temp.cleanup());
  cleanups.push(set_air_home(path.join(temp.root, "air-home")));
  const root = temp.project.layout.root;
  init_repo(root);
  commit_files(root, "start", { "README.md": "notes live in notes/\n", ".gitignore": ".air/\n" });
  const server = await start_scripted_server({ script, api_key: KEY });
  cleanups.push(() => server.close());
  const providers = ProviderManager.load({
    home: temp.root,
    env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
    retry: { sleep: async () => undefined },
  });
  const runtime = await start_runtime(temp.session, {
    provider: providers.for_session(),
    permissions: permissions_for_project(temp.project.layout, { mode: "accept-edits" }),
    task_defaults: DEFAULT_TASK_DEFAULTS,
    lone_task: "worktree",
    review: v.parse(ReviewSettings, review),
  });
  cleanups.push(() => runtime.stop());
  const outcome = await runtime.submit("write today's note");
  return { temp, root, server, outcome };
}

const requests_of = (server: ScriptedServer, requester: string) => server.requests().filter((request) => request.requester === requester);

function first_user_text(body: unknown): string {
  const messages = (body as { messages: { role: string; content: unknown }[] }).messages;
  return JSON.stringify(messages[0]?.content ?? "");
}

describe("ReviewGate", () => {
  it("sends changes_requested back to the executor with its findings, then merges the approved repair", async () => {
    const { temp, root, server, outcome } = await run_with_review(
      {
        turns: {
          main: [CLASSIFY],
          executor: [write("notes/today.md", "written\n"), say("Wrote it."), write("notes/sources.md", "the calendar\n"), say("Added the sources.")],
          reviewer: [submit({ verdict: "changes_requested", findings: [NO_SOURCES] }), submit({ verdict: "approved", findings: [] })],
        },
      },
      { policy: "always" },
    );
    expect(outcome).toMatchObject({ kind: "executed", run: { status: "completed" } });
    expect(fs.readFileSync(path.join(root, "notes/sources.md"), "utf8")).toBe("the calendar\n");

    const executor = requests_of(server, "executor");
    expect(executor).toHaveLength(4);
    const repair = first_user_text(executor[2]?.body);
    expect(repair).toContain("The reviewer's findings");
    expect(repair).toContain("[P1 correctness] notes/today.md:1: the note names no sources (suggestion: list them in notes/sources.md)");
    expect(first_user_text(executor[0]?.body)).not.toContain("reviewer");

    const reviews = temp.session.store.query({ types: ["review.completed"] }).map(({ event }) => event.payload);
    expect(reviews).toMatchObject([
      { verdict: "changes_requested", gating: true, advisory: 0, findings: [{ message: "the note names no sources" }] },
      { verdict: "approved", gating: false },
    ]);
    expect(temp.session.store.query({ types: ["task.retried"] }).map(({ event }) => event.payload)).toMatchObject([{ change: "review_findings" }]);
    expect(temp.session.store.query({ types: ["workspace.merge.completed"] })).toHaveLength(1);
  });

  it("blocks the task on rejected, with the findings in its reason, and lands nothing", async () => {
    const { temp, root, outcome } = await run_with_review(
      {
        turns: {
          main: [CLASSIFY],
          executor: [write("notes/today.md", "written\n"), say("Wrote it.")],
          reviewer: [submit({ verdict: "rejected", findings: [{ ...NO_SOURCES, severity: "P0", message: "the note is someone else's" }] })],
        },
      },
      { policy: "always" },
    );
    expect(outcome).toMatchObject({ kind: "executed", run: { status: "blocked" } });
    const reasons = temp.session.store.query({ types: ["task.blocked"] }).flatMap(({ event }) => (event.type === "task.blocked" ? [event.payload.reason] : []));
    expect(reasons[0]).toContain("the reviewer rejected the work");
    expect(reasons[0]).toContain("[P0 correctness] notes/today.md:1: the note is someone else's");
    expect(temp.session.connection.db.select({ status: tasks.status, reason: tasks.status_reason }).from(tasks).all()).toMatchObject([
      { status: "blocked", reason: expect.stringContaining("the note is someone else's") },
    ]);
    expect(fs.existsSync(path.join(root, "notes/today.md"))).toBe(false);
  });

  it("rejects an empty-diff completion at the gate before any reviewer, and retries it with the failure", async () => {
    const { temp, server, outcome } = await run_with_review(
      {
        turns: {
          main: [CLASSIFY],
          executor: [say("Done: the note is written."), say("Done, really.")],
          debugger: [say("Done, truly.")],
          reviewer: [],
        },
      },
      { policy: "always" },
    );
    expect(outcome).toMatchObject({ kind: "executed", run: { status: "blocked" } });
    expect(requests_of(server, "reviewer")).toEqual([]);
    const failures = temp.session.store.query({ types: ["task.failed"] }).flatMap(({ event }) => (event.type === "task.failed" ? [event.payload.error] : []));
    // The same false success twice goes to the Debugger, as any repeated failure does; its empty claim ends it.
    expect(failures).toHaveLength(3);
    expect(failures[1]?.semantic_signature).toBe(failures[0]?.semantic_signature);
    const changes = temp.session.store
      .query({ types: ["task.retried"] })
      .map(({ event }) => (event.type === "task.retried" ? event.payload.change : undefined));
    expect(changes).toEqual(["failure_in_context", "debug"]);
    expect(failures[0]).toMatchObject({ kind: "agent_error", metadata: { false_success: true } });
    expect(failures[0]?.message).toContain("diff against its base is empty");
    expect(first_user_text(requests_of(server, "executor")[1]?.body)).toContain("diff against its base is empty");
    expect(read_task_graph(temp.session.connection).counts.completed).toBe(0);
  });

  it("refuses every write the reviewer's model tries, and under policy never runs no reviewer at all", async () => {
    const attacks = REVIEWER_ATTACKS.map((attack, index) => ({
      type: "tool_use" as const,
      id: `attack_${index}`,
      name: attack.tool_name,
      input: attack.input,
    }));
    const attacked = await run_with_review(
      {
        turns: {
          main: [CLASSIFY],
          executor: [write("notes/today.md", "written\n"), say("Wrote it.")],
          reviewer: [{ reply: { content: attacks } }, submit({ verdict: "approved", findings: [] })],
        },
      },
      { policy: "always" },
    );
    expect(attacked.outcome).toMatchObject({ kind: "executed", run: { status: "completed" } });
    expect(fs.readFileSync(path.join(attacked.root, "notes/today.md"), "utf8")).toBe("written\n");
    expect(git(attacked.root, "log", "--format=%s").trim()).toBe("start");
    const answered = JSON.stringify(requests_of(attacked.server, "reviewer")[1]?.body);
    expect(answered.match(/no tool named/g)).toHaveLength(REVIEWER_ATTACKS.length);

    const unreviewed = await run_with_review(
      { turns: { main: [CLASSIFY], executor: [write("notes/today.md", "written\n"), say("Wrote it.")], reviewer: [] } },
      { policy: "never" },
    );
    expect(unreviewed.outcome).toMatchObject({ kind: "executed", run: { status: "completed" } });
    expect(requests_of(unreviewed.server, "reviewer")).toEqual([]);
    expect(unreviewed.temp.session.store.query({ types: ["review.completed"] })).toEqual([]);
  });
});

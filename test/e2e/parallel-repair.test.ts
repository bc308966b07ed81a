/**
 * A merge that does not land, then its repair, end to end through the built CLI (issue 12's acceptance): two
 * tasks declared disjoint whose edits touch the same line give `workspace.merge.conflicted`, and a post-merge
 * verification failure rolls the merge back; either way the main checkout is byte for byte what it was
 * before that merge, the failure reaches the retried worker's first message, and the retry resolves it.
 *
 * The scripted model server holds two turns so that what the test sees does not depend on timing: the
 * second task's last turn until the first task's merge has landed (the checkout is read then, before the
 * second merge), and the retry's first turn until the failed merge is recorded (read again, before the retry
 * writes anything).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { RETRY_HEADING } from "../../src/actors/runtime/retry-brief.js";
import { commit_fixture_project } from "../../src/cli/commands/e2e-git.js";
import type { Connection } from "../../src/db/connection.js";
import { start_scripted_server, type HeldTurn, type ScriptedServer } from "../../src/providers/scripted/server.js";
import {
  air_env,
  AirProcess,
  type EventRecord,
  events_of,
  open_readonly,
  peek,
  query,
  require_build,
  rows,
  session_files,
  session_ids,
  temp_dir,
  wait_until,
} from "./helpers.js";

const missing_tools = ["git", "make", "grep"].filter((tool) => spawnSync("bash", ["-c", `command -v ${tool}`]).status !== 0);
const FIXTURE = path.join(import.meta.dirname, "..", "fixtures", "repair");

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** A turn of the script kept back until the test releases it; `reached` once its request has arrived. */
class Gate {
  reached = false;
  readonly #opened: Promise<void>;
  #open: () => void = () => undefined;

  constructor() {
    this.#opened = new Promise((resolve) => {
      this.#open = resolve;
    });
  }

  hold(): Promise<void> {
    this.reached = true;
    return this.#opened;
  }

  release(): void {
    this.#open();
  }
}

/**
 * Every file of the checkout but git's and air's own folders, tracked, untracked and ignored alike, as its
 * mode and bytes: what "byte for byte" compares.
 */
function checkout_bytes(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const name = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (name === ".git" || name === ".air") continue;
      if (entry.isDirectory()) walk(name);
      else {
        const mode = fs.lstatSync(path.join(root, name)).mode.toString(8);
        files.set(name, `${mode} ${fs.readFileSync(path.join(root, name)).toString("base64")}`);
      }
    }
  };
  walk("");
  return files;
}

type Scenario = {
  readonly script: string;
  readonly request: string;
  /** The task whose merge lands first, by title. */
  readonly first: string;
  /** The conversation turn of the second task held until the first task's merge has landed. */
  readonly second_last_turn: { readonly conversation: string; readonly index: number };
  /** The retry's conversation: its first turn is held until the failed merge is recorded. */
  readonly repair: string;
  /** A third task's last turn, held until the failed merge is recorded: it is still running when the retry is due. */
  readonly bystander?: { readonly conversation: string; readonly index: number };
};

type Played = {
  readonly project: string;
  readonly server: ScriptedServer;
  readonly connection: Connection;
  readonly before_merge: Map<string, string>;
  readonly after_failed_merge: Map<string, string>;
};

/** The fixture project as a user's repository: committed, plus an untracked note and an ignored build file. */
function fixture_project(into: string): string {
  const project = path.join(into, "project");
  fs.cpSync(path.join(FIXTURE, "project"), project, { recursive: true });
  commit_fixture_project(project);
  fs.writeFileSync(path.join(project, "notes.txt"), "the user's own notes, never committed\n");
  fs.mkdirSync(path.join(project, "build"));
  fs.writeFileSync(path.join(project, "build", "cache.txt"), "ignored build output\n");
  fs.chmodSync(path.join(project, "build", "cache.txt"), 0o600);
  return project;
}

type Gates = { readonly second_done: Gate; readonly repair_starts: Gate; readonly bystander_done: Gate };

/** The scenario's scripted server, holding its turns behind the gates the test opens. */
async function gated_server(scenario: Scenario): Promise<{ server: ScriptedServer; gates: Gates }> {
  const gates = { second_done: new Gate(), repair_starts: new Gate(), bystander_done: new Gate() };
  const { second_done, repair_starts, bystander_done } = gates;
  const server = await start_scripted_server({
    script: path.join(FIXTURE, scenario.script),
    hold: (turn: HeldTurn) => {
      const { conversation, index } = scenario.second_last_turn;
      if (turn.conversation === conversation && turn.index === index) return second_done.hold();
      if (turn.conversation === scenario.repair && turn.index === 0) return repair_starts.hold();
      const { bystander } = scenario;
      if (bystander !== undefined && turn.conversation === bystander.conversation && turn.index === bystander.index) return bystander_done.hold();
      return undefined;
    },
  });
  cleanups.push(() => server.close());
  return { server, gates };
}

/** Runs the scenario's request to its end, reading the checkout right before the failing merge and right after it. */
async function play(scenario: Scenario): Promise<Played> {
  require_build();
  const work = temp_dir("air-e2e-repair-");
  cleanups.push(work.cleanup);
  const project = fixture_project(work.dir);
  const { server, gates } = await gated_server(scenario);
  const env = air_env(path.join(work.dir, "air-home"), { ANTHROPIC_API_KEY: "sk-scripted", ANTHROPIC_BASE_URL: server.url });
  const runtime = new AirProcess(["run", "-p", scenario.request, "--permission-mode", "accept-edits"], { cwd: project, env });
  cleanups.push(() => runtime.kill());
  const session_id = await wait_until("the session database", () => session_ids(project)[0], 30_000);
  const { db } = session_files(project, session_id);
  // A wait that times out says what the run did: the model's requests and how each was answered, and air's output.
  const explained = <T>(waiting: Promise<T>) =>
    waiting.catch((error: unknown) => {
      const requests = server.requests().map((entry) => `${entry.conversation ?? entry.requester}#${entry.turn_index}: ${JSON.stringify(entry.outcome)}`);
      throw new Error(`${String(error)}\n--- requests ---\n${requests.join("\n")}\n${runtime.transcript}`);
    });

  await explained(
    wait_until(
      "the first task merged, the second held at its last turn",
      () => {
        const merged = peek(db, (client) =>
          rows(client, "SELECT t.title FROM workspaces w JOIN tasks t ON t.id = w.task_id WHERE w.merged_at IS NOT NULL").map((row) => row.title),
        );
        return gates.second_done.reached && merged?.includes(scenario.first) === true;
      },
      30_000,
    ),
  );
  const before_merge = checkout_bytes(project);
  gates.second_done.release();

  // Nothing writes the checkout after the failed merge until the retry's first answer, which is held.
  await explained(
    wait_until(
      "the second merge recorded as failed",
      () => (peek(db, (client) => rows(client, "SELECT seq FROM events WHERE type = 'workspace.merge.conflicted'").length) ?? 0) > 0,
      30_000,
    ),
  );
  const after_failed_merge = checkout_bytes(project);
  gates.bystander_done.release();
  gates.repair_starts.release();

  const exit = await runtime.exit;
  expect(exit, runtime.transcript).toEqual({ code: 0, signal: null });
  const connection = open_readonly(db);
  cleanups.push(() => connection.close());
  return { project, server, connection, before_merge, after_failed_merge };
}

/** The task of that title, its attempts and status. */
function task_titled(connection: Connection, title: string) {
  const [task] = query(connection, "SELECT id, status, attempt_count FROM tasks WHERE title = ?", title);
  if (task === undefined) throw new Error(`no task titled ${title}`);
  return { id: String(task.id), status: task.status, attempt_count: Number(task.attempt_count) };
}

/** Of a Messages API request body, the messages and their text. */
const MessagesBody = v.object({
  messages: v.array(v.object({ role: v.string(), content: v.union([v.string(), v.array(v.object({ type: v.string(), text: v.optional(v.string()) }))]) })),
});

/** Of a `task.failed` payload, the error's kind and its verification output. */
const FailedPayload = v.object({ error: v.object({ kind: v.string(), metadata: v.optional(v.object({ detail: v.optional(v.string()) })) }) });

/** The error of the task's `task.failed` event. */
function failure_of(events: readonly EventRecord[], task_id: string) {
  const failed = events.find((event) => event.type === "task.failed" && event.task_id === task_id);
  return { seq: failed?.seq ?? 0, ...v.parse(FailedPayload, failed?.payload).error };
}

/** The first user message of the retry's first request, as the model received it. */
function retry_first_message(server: ScriptedServer, conversation: string): string {
  const request = server.requests().find((entry) => entry.conversation === conversation && entry.turn_index === 0);
  const body = v.safeParse(MessagesBody, request?.body);
  const first = body.success ? body.output.messages.find((message) => message.role === "user") : undefined;
  if (first === undefined) return "";
  return typeof first.content === "string" ? first.content : first.content.map((block) => block.text ?? "").join("\n");
}

/** Whether no other task ran while the retry did: every other one had ended before it started. */
function ran_alone(connection: Connection, task_id: string): boolean {
  const events = events_of(connection);
  const starts = events.filter((event) => event.type === "task.started" && event.task_id === task_id);
  const retry_start = starts.at(-1)?.seq ?? 0;
  const retry_end = events.find((event) => event.seq > retry_start && event.type === "task.completed" && event.task_id === task_id)?.seq ?? 0;
  const others = events.filter((event) => event.task_id !== null && event.task_id !== task_id);
  return (
    starts.length === 2 &&
    others.every((event) => event.type !== "task.started" || event.seq < retry_start) &&
    others.filter((event) => event.type === "task.completed").every((event) => event.seq < retry_start) &&
    retry_end > retry_start
  );
}

/** The worktrees git lists besides the main checkout, as real paths. */
function extra_worktrees(project: string): string[] {
  const listing = spawnSync("git", ["worktree", "list", "--porcelain"], { cwd: project, encoding: "utf8" }).stdout;
  const paths = [...listing.matchAll(/^worktree (.+)$/gm)].map((match) => fs.realpathSync(match[1] ?? ""));
  return paths.filter((worktree) => worktree !== fs.realpathSync(project)).sort();
}

/** The workspace whose merge failed is kept for its retention (3 days, 003 §15); no other worktree is left. */
function expect_only_abandoned_worktrees(project: string, connection: Parameters<typeof query>[0]): void {
  const abandoned = query(connection, "SELECT path FROM workspaces WHERE status = 'abandoned'").map((row) => fs.realpathSync(String(row.path)));
  expect(abandoned).toHaveLength(1);
  expect(extra_worktrees(project)).toEqual(abandoned.sort());
}

const read = (project: string, file: string) => fs.readFileSync(path.join(project, file), "utf8");

describe.skipIf(missing_tools.length > 0)("a merge that does not land, then its repair", () => {
  it("two tasks declared disjoint that change the same line: merge.conflicted, the checkout as before, a retry alone resolves it", async () => {
    const timeout = "Raise the timeout to 500 ms";
    const { project, server, connection, before_merge, after_failed_merge } = await play({
      script: "conflict.yaml",
      request: "Raise the timeout to 500 ms and retry three times.",
      first: "Retry three times",
      second_last_turn: { conversation: "timeout", index: 4 },
      repair: "timeout-repair",
      bystander: { conversation: "changes", index: 1 },
    });

    expect(after_failed_merge).toEqual(before_merge);
    expect(before_merge.get("src/config.h")).toBeDefined();
    expect([...before_merge.keys()]).toEqual(expect.arrayContaining(["notes.txt", "build/cache.txt", "src/config.h.in"]));
    const task = task_titled(connection, timeout);
    const events = events_of(connection);
    const [workspace] = query(connection, "SELECT id FROM workspaces WHERE task_id = ? AND strategy = 'worktree'", task.id);
    const conflicted = events.filter((event) => event.type === "workspace.merge.conflicted");
    expect(conflicted.map((event) => [event.payload.workspace_id, event.payload.conflicting_files])).toEqual([[workspace?.id, ["src/config.h"]]]);
    expect(failure_of(events, task.id).kind).toBe("merge_error");
    const retried = events.filter((event) => event.type === "task.retried").map((event) => [event.task_id, event.payload.change]);
    expect(retried).toEqual([[task.id, "serialize"]]);
    // The workspace whose merge conflicted is given up: its work will not land, the retry starts afresh.
    expect(events.filter((event) => event.type === "workspace.abandoned").map((event) => event.payload.workspace_id)).toEqual([workspace?.id]);

    const told = retry_first_message(server, "timeout-repair");
    expect(told).toContain(RETRY_HEADING);
    expect(told).toContain("### src/config.h");
    expect(told).toMatch(/<<<<<<< [^\n]*\n[^\n]*\.retries = 3[^\n]*\n=======\n[^\n]*\.timeout_ms = 500[^\n]*\n>>>>>>> /);
    // The change notes were still running when the conflict was recorded: the retry waited for them.
    const notes = task_titled(connection, "Write the change notes");
    const notes_done = events.find((event) => event.type === "task.completed" && event.task_id === notes.id)?.seq ?? 0;
    expect(notes_done).toBeGreaterThan(conflicted[0]?.seq ?? Number.POSITIVE_INFINITY);
    expect(ran_alone(connection, task.id)).toBe(true);

    expect(query(connection, "SELECT status FROM tasks").map((row) => row.status)).toEqual(["completed", "completed", "completed"]);
    expect(task.attempt_count).toBe(2);
    const both = "#define SETTINGS { .timeout_ms = 500, .retries = 3 }\n";
    expect(read(project, "src/config.h.in")).toBe(both);
    expect(read(project, "src/config.h")).toBe(`/* Generated from src/config.h.in by make config. */\n${both}`);
    expect(read(project, "notes.txt")).toBe("the user's own notes, never committed\n");
    expect(read(project, "build/cache.txt")).toBe("ignored build output\n");
    expect(read(project, "docs/changes.md")).toContain("A longer timeout, and more retries.");
    expect_only_abandoned_worktrees(project, connection);
  }, 60_000);

  it("a verification that fails on the merged checkout: the merge rolled back byte for byte, the retry told the output resolves it", async () => {
    const docs = "Document the limits";
    const { project, server, connection, before_merge, after_failed_merge } = await play({
      script: "verify.yaml",
      request: "Raise the user limit to 20 and document the limits.",
      first: "Raise the user limit to 20",
      second_last_turn: { conversation: "docs", index: 3 },
      repair: "docs-repair",
    });

    expect(after_failed_merge).toEqual(before_merge);
    expect(read(project, "src/limit.txt")).toBe("max_users=20\n");
    const task = task_titled(connection, docs);
    const events = events_of(connection);
    const failed = failure_of(events, task.id);
    expect(failed.kind).toBe("test_error");
    expect(failed.metadata?.detail).toContain("docs/limits.md does not state max_users=20");
    const conflicted = events.filter((event) => event.type === "workspace.merge.conflicted");
    expect(conflicted).toHaveLength(1);
    expect(String(conflicted[0]?.payload.detail)).toContain("post-merge verification failed");
    const retried = events.filter((event) => event.type === "task.retried").map((event) => [event.task_id, event.payload.change]);
    expect(retried).toEqual([[task.id, "failure_in_context"]]);
    expect(failed.seq).toBeLessThan(events.find((event) => event.type === "task.retried")?.seq ?? 0);

    const told = retry_first_message(server, "docs-repair");
    expect(told).toContain(RETRY_HEADING);
    expect(told).toContain("## What the verification printed");
    expect(told).toContain("docs/limits.md does not state max_users=20");

    expect(query(connection, "SELECT status FROM tasks").map((row) => row.status)).toEqual(["completed", "completed"]);
    expect(task.attempt_count).toBe(2);
    expect(read(project, "docs/limits.md")).toBe("# Limits\n\nA team has a limit of users; the server refuses one more.\n\nmax_users=20\n");
    expect(spawnSync("make", ["-s", "check-docs"], { cwd: project }).status).toBe(0);
    expect_only_abandoned_worktrees(project, connection);
  }, 60_000);
});

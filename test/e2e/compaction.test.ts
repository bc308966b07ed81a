/**
 * Compaction end to end, through the real `air` CLI against the scripted model server: a long executor
 * conversation is compacted by the runtime itself (a small context window), then `air compact` compacts what
 * grew after; the originals stay, `air history` shows both, and the request after a compaction still holds
 * every project rule and the pinned task state verbatim.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import type { ScriptInput, TurnInput } from "../../src/providers/scripted/script.js";
import { project_layout, session_lock_path } from "../../src/project/layout.js";
import {
  air,
  air_env,
  CLASSIFY_GREETING,
  copy_fixture_project,
  fixture_requirement,
  only_session,
  open_readonly,
  query,
  require_build,
  session_files,
  temp_dir,
} from "./helpers.js";

const KEY = "sk-e2e-compaction";
const MODEL = "claude-e2e-small-window";
const STYLE_RULE = "# Style\n\n- Every function name is snake_case.\n- Never add a dependency without asking the user first.";
const AGENTS_RULE = "# Agents\n\nRun the verification command before you say the task is done.";
const READS = 9;
const FIRST_SUMMARY = "The executor read notes.txt several times looking for the greeting's wording; it is `hello from air`.";
const SECOND_SUMMARY = "After the first compaction the executor kept reading notes.txt, then wrote greeting.txt.";

/** The executor reads a large file turn after turn (the conversation grows ~2,000 tokens a turn), then writes the greeting. */
function script(): ScriptInput {
  const reads: TurnInput[] = Array.from({ length: READS }, (_, index) => ({
    reply: {
      content: [
        { type: "text", text: `Reading the notes, pass ${index + 1}.` },
        { type: "tool_use", name: "fs.read", input: { path: "notes.txt" } },
      ],
    },
  }));
  return {
    turns: {
      main: [CLASSIFY_GREETING],
      executor: [
        ...reads,
        { reply: { content: [{ type: "tool_use", name: "fs.write", input: { path: "greeting.txt", content: "hello from air" } }] } },
        { reply: { content: [{ type: "text", text: "Wrote greeting.txt." }] } },
      ],
      compactor: [
        { expect: { system_contains: "Summarise the conversation transcript" }, reply: { content: [{ type: "text", text: FIRST_SUMMARY }] } },
        { reply: { content: [{ type: "text", text: SECOND_SUMMARY }] } },
        { reply: { content: [{ type: "text", text: SECOND_SUMMARY }] } },
      ],
    },
  };
}

function write(root: string, relative: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
  fs.writeFileSync(path.join(root, relative), text);
}

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function setup() {
  require_build();
  const work = temp_dir("air-e2e-compaction-");
  cleanups.push(work.cleanup);
  const server: ScriptedServer = await start_scripted_server({ script: script(), api_key: KEY });
  cleanups.push(() => server.close());
  const project = copy_fixture_project("worker", work.dir);
  write(project, ".air/shared/rules/style.md", `${STYLE_RULE}\n`);
  write(project, "AGENTS.md", `${AGENTS_RULE}\n`);
  write(project, "notes.txt", `${"The greeting must read exactly: hello from air. ".repeat(160)}\n`);
  // The project tier of the compaction rules: compact at half the window, keep one turn.
  write(
    project,
    ".air/shared/compaction-rules.md",
    "---\nthreshold_ratio: 0.5\nkeep_recent_turns: 1\nmin_covered_messages: 2\n---\nKeep the greeting's exact wording.\n",
  );
  const air_home = path.join(work.dir, "air-home");
  write(air_home, "models.yaml", `models:\n  ${MODEL}:\n    context_window: 24000\n`);
  const env = air_env(air_home, { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url, AIR_MODEL: MODEL });
  return { server, project, env };
}

type Body = { system?: unknown; messages: { role: string; content: unknown }[] };

describe("compaction of a long scripted session", () => {
  it("compacts mid-task and with air compact; originals stay; history shows both; the next request keeps rules and task state verbatim", async () => {
    const { server, project, env } = await setup();
    const run = await air(["run", "-p", fixture_requirement("worker"), "--permission-mode", "accept-edits"], { cwd: project, env });
    expect(run.result, run.transcript).toEqual({ code: 0, signal: null });
    const session_id = only_session(project);
    const { db } = session_files(project, session_id);

    // --- the runtime compacted the executor's conversation by itself -----------------------------------
    const requests = server.requests();
    const first_compaction = requests.findIndex((request) => request.requester === "compactor");
    expect(first_compaction, "a compactor request").toBeGreaterThan(0);
    const next = requests.slice(first_compaction + 1).find((request) => request.requester === "executor");
    expect(next, "an executor request after the compaction").toBeDefined();
    let connection = open_readonly(db);
    const [summary] = query(connection, "SELECT * FROM summaries ORDER BY rowid");
    connection.close();
    expect(summary).toBeDefined();
    const body = next!.body as Body;
    const request_text = JSON.stringify(body);
    // Every project rule (L3 of the system prompt) and the summary with its pinned sections, verbatim.
    for (const rule of [STYLE_RULE, AGENTS_RULE]) expect(JSON.stringify(body.system)).toContain(JSON.stringify(rule).slice(1, -1));
    expect(JSON.stringify(body.messages[0])).toContain(JSON.stringify(summary!.content).slice(1, -1));
    expect(String(summary!.content)).toMatch(
      /## Pinned: task list\n\nDone:\n- \(none yet\)\n\nNext \(in progress or pending\):\n- \[ \] tsk_\w+ \(running\) Add the greeting file/,
    );
    for (const rule of [STYLE_RULE, AGENTS_RULE]) expect(String(summary!.content)).toContain(rule);
    expect(request_text).toContain(FIRST_SUMMARY);
    // The compactor got the project tier's instructions after the built-in ones.
    expect(JSON.stringify((requests[first_compaction]!.body as Body).system)).toContain("Keep the greeting's exact wording.");

    // --- air compact: what grew since is compacted too ---------------------------------------------------
    const compact = await air(["compact", "--json"], { cwd: project, env });
    expect(compact.result, compact.transcript).toEqual({ code: 0, signal: null });
    const report = JSON.parse(compact.stdout) as {
      session_id: string;
      compacted: { scope: string; summary_id: string; covered: number }[];
      skipped: { scope: string }[];
    };
    expect(report.session_id).toBe(session_id);
    expect(report.compacted).toHaveLength(1);
    expect(report.compacted[0]!.scope).toMatch(/^agent agt_/);
    expect(report.skipped.map((skip) => skip.scope)).toEqual(["main conversation"]);

    connection = open_readonly(db);
    const summaries = query(connection, "SELECT id, kind, covered_message_ids_json, tokens_before, tokens_after FROM summaries ORDER BY rowid");
    const message_events = query(connection, "SELECT payload_json FROM events WHERE type IN ('user.message.created', 'assistant.message.created')");
    const message_rows = query(connection, "SELECT id FROM messages");
    const compact_tasks = query(connection, "SELECT status, summary_id FROM tasks WHERE type = 'compact' ORDER BY rowid");
    connection.close();
    const last = summaries.at(-1)!;
    expect(last.id).toBe(report.compacted[0]!.summary_id);
    const covered = last.covered_message_ids_json as string[];
    expect(covered.length).toBe(report.compacted[0]!.covered);
    // The last summary folds in the earlier ones: it covers every message the first covered.
    for (const id of summaries[0]!.covered_message_ids_json as string[]) expect(covered).toContain(id);
    // Copy-on-write: every message ever recorded is still a row.
    const recorded = message_events.map((event) => (event.payload_json as { message_id: string }).message_id).sort();
    expect(message_rows.map((row) => row.id).sort()).toEqual(recorded);
    for (const id of covered) expect(recorded).toContain(id);
    expect(compact_tasks.every((task) => task.status === "completed" && typeof task.summary_id === "string")).toBe(true);

    // --- air history shows the original messages and the compactions -------------------------------------
    const history = await air(["history"], { cwd: project, env });
    expect(history.result, history.transcript).toEqual({ code: 0, signal: null });
    for (const type of [
      "user.message.created",
      "assistant.message.created",
      "context.compaction.requested",
      "context.compaction.started",
      "summary.created",
      "context.compaction.completed",
    ]) {
      expect(history.stdout).toContain(type);
    }
    expect(history.stdout).toMatch(
      new RegExp(`summary\\.created .* summary_id=${String(last.id)} tokens_before=\\d+ tokens_after=\\d+ covers=${covered.length} message\\(s\\)`),
    );
  }, 120_000);

  it("refuses to compact a session a running air holds, saying what to do", async () => {
    const { project, env } = await setup();
    const run = await air(["run", "-p", fixture_requirement("worker"), "--permission-mode", "accept-edits"], { cwd: project, env });
    expect(run.result, run.transcript).toEqual({ code: 0, signal: null });
    const session_id = only_session(project);
    // This test process stands for the running runtime: a live pid holds the session's writer lock.
    const lock = session_lock_path(project_layout(project), session_id);
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, hostname: os.hostname(), acquired_at: new Date().toISOString() }));
    cleanups.push(() => fs.rmSync(lock, { force: true }));
    const compact = await air(["compact", "--session", session_id], { cwd: project, env });
    expect(compact.result.code).not.toBe(0);
    expect(compact.stderr).toContain(`session ${session_id} is running (air pid ${process.pid} holds it); it cannot be compacted from outside`);
    expect(compact.stderr).toContain("Wait for that run to end");
  }, 120_000);
});

/**
 * Crash: the runtime is SIGKILLed while the worker is mid-task; `air resume` marks and re-runs the task
 * to completion; no durable event is lost or duplicated.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { referential_check } from "../../src/event-store/referential-check.js";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import type { ScriptInput } from "../../src/providers/scripted/script.js";
import { choose_sandbox } from "../../src/tools/shell/sandbox.js";
import {
  air,
  air_env,
  AirProcess,
  copy_fixture_project,
  events_of,
  fixture_requirement,
  open_readonly,
  pid_alive,
  peek,
  pids_with_cmdline,
  query,
  rows,
  require_build,
  session_files,
  session_ids,
  temp_dir,
  wait_until,
  CLASSIFY_GREETING,
} from "./helpers.js";

const KEY = "sk-e2e-resume";

/**
 * Attempt 1 starts a command that would take a minute; the runtime is killed under it. Attempt 2 (after
 * `air resume`) starts over with a fresh conversation, writes the file and finishes.
 */
function crash_script(marker: string): ScriptInput {
  return {
    turns: {
      main: [CLASSIFY_GREETING],
      executor: [
        {
          reply: {
            content: [
              { type: "text", text: "First, a slow look around." },
              { type: "tool_use", name: "shell.run", input: { command: `sleep 60 && echo ${marker}` } },
            ],
          },
        },
        {
          // A new attempt is a new conversation: its first request holds only the task prompt.
          expect: { last_user_contains: "# Task: Add the greeting file" },
          reply: { content: [{ type: "tool_use", name: "fs.write", input: { path: "greeting.txt", content: "hello from air" } }] },
        },
        { reply: { content: [{ type: "text", text: "Wrote greeting.txt." }] } },
      ],
    },
  };
}

function kill_quietly(pid: number, signal: NodeJS.Signals = "SIGKILL"): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/**
 * shell.run starts `bash -c <command>` as the leader of its own process group; the bash whose command line
 * holds `marker` names the group to end (its `sleep` child included).
 */
function kill_command_groups(marker: string): void {
  for (const pid of pids_with_cmdline(marker)) {
    kill_quietly(-pid);
    kill_quietly(pid);
  }
}

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

describe("a runtime SIGKILLed mid-task, then air resume", () => {
  it("interrupts attempt 1, loses its agent, re-runs the task to completion and keeps every committed event exactly once", async () => {
    require_build();
    const work = temp_dir("air-e2e-resume-");
    cleanups.push(work.cleanup);
    const marker = `air-e2e-crash-${crypto.randomUUID()}`;
    const server: ScriptedServer = await start_scripted_server({ script: crash_script(marker), api_key: KEY });
    cleanups.push(() => server.close());
    const project = copy_fixture_project("worker", work.dir);
    const env = air_env(path.join(work.dir, "air-home"), { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url });

    // --- attempt 1: run until the slow command has started, then SIGKILL the runtime ------------------
    const runtime = new AirProcess(["run", "-p", fixture_requirement("worker"), "--permission-mode", "accept-edits"], { cwd: project, env });
    let worker_pid: number | undefined;
    cleanups.push(() => {
      runtime.kill();
      // Whatever the dead runtime left behind (its worker, the command's process group): ours to end, by pid.
      if (worker_pid !== undefined) kill_quietly(worker_pid);
      kill_command_groups(marker);
    });
    let exited_early = false;
    void runtime.exit.then(() => (exited_early = true));

    const session_id = await wait_until("the session database", () => {
      if (exited_early) throw new Error(`air run exited before the crash point\n${runtime.transcript}`);
      return session_ids(project)[0];
    });
    const { db } = session_files(project, session_id);
    const running = await wait_until("the slow command to start", () => {
      if (exited_early) throw new Error(`air run exited before the crash point\n${runtime.transcript}`);
      return peek(db, (client) => {
        const [command] = rows(client, "SELECT * FROM command_runs WHERE command LIKE ? AND completed_at IS NULL", `%${marker}%`);
        const [agent] = rows(client, "SELECT * FROM agents WHERE status = 'running'");
        const [task] = rows(client, "SELECT * FROM tasks WHERE status = 'running'");
        return command !== undefined && agent !== undefined && task !== undefined ? { command, agent, task } : undefined;
      });
    });
    // command.started is recorded just before bash is spawned: wait for the process too, so the kill lands mid-command.
    const has_proc = fs.existsSync("/proc/self/cmdline");
    if (has_proc) await wait_until("the slow command's bash", () => pids_with_cmdline(marker).length > 0);
    worker_pid = Number(running.agent.pid);
    expect(pid_alive(worker_pid)).toBe(true);

    runtime.kill("SIGKILL");
    expect(await runtime.exit).toEqual({ code: null, signal: "SIGKILL" });

    // The worker loses its parent: its stdin closes and it leaves by itself (the cleanup kills it otherwise).
    await wait_until("the orphaned worker to exit by itself", () => !pid_alive(worker_pid!), 10_000);
    if (choose_sandbox().mode === "bwrap") {
      // In the sandbox (bwrap --die-with-parent, its own pid namespace) the command dies with its runtime.
      await wait_until("the sandboxed command to die with its runtime", () => pids_with_cmdline(marker).every((pid) => !pid_alive(pid)), 10_000);
    } else if (has_proc) {
      // Unsandboxed, the command runs on in its own process group under the dead runtime: nothing ends it but us.
      expect(pids_with_cmdline(marker).length, "the orphaned command's bash").toBeGreaterThan(0);
    }
    kill_command_groups(marker);
    await wait_until("the orphaned command to be gone", () => pids_with_cmdline(marker).every((pid) => !pid_alive(pid)), 5_000);

    const before = open_readonly(db);
    const committed = events_of(before);
    const rows_before = {
      task: query(before, "SELECT status, attempt_count FROM tasks"),
      agents: query(before, "SELECT id, status FROM agents"),
    };
    before.close();
    expect(rows_before.task).toEqual([{ status: "running", attempt_count: 1 }]);
    expect(rows_before.agents).toEqual([{ id: running.agent.id, status: "running" }]);
    expect(committed.map((event) => event.type)).toContain("command.started");
    expect(committed.map((event) => event.type)).not.toContain("task.completed");
    expect(fs.existsSync(path.join(project, "greeting.txt"))).toBe(false);

    // --- air resume: same project, same scripted server ----------------------------------------------
    const resume = await air(["resume", "--permission-mode", "accept-edits"], { cwd: project, env });
    expect(resume.result, resume.transcript).toEqual({ code: 0, signal: null });
    expect(resume.stdout).toContain(`Resumed ${session_id}: 1 lost agent(s), 1 task(s) re-queued`);
    expect(resume.stdout).toContain("Scheduler completed");

    const after = open_readonly(db);
    cleanups.push(() => after.close());

    const [task] = query(after, "SELECT * FROM tasks");
    expect(task).toMatchObject({ status: "completed", attempt_count: 2 });
    expect((task!.worker_result_json as { status: string }).status).toBe("completed");

    const attempts = query(after, "SELECT attempt_index, status, agent_id FROM task_attempts ORDER BY attempt_index");
    expect(attempts.map((attempt) => [attempt.attempt_index, attempt.status])).toEqual([
      [1, "interrupted"],
      [2, "completed"],
    ]);
    expect(attempts[0]!.agent_id).toBe(running.agent.id);

    const agents = query(after, "SELECT id, status, status_reason FROM agents ORDER BY started_at");
    expect(agents).toHaveLength(2);
    expect(agents[0]).toMatchObject({ id: running.agent.id, status: "lost" });
    expect(agents[1]).toMatchObject({ id: attempts[1]!.agent_id, status: "completed" });

    // The command that was cut off is closed as cancelled by recovery: no exit code, nothing pretends it passed.
    const [cut] = query(after, "SELECT * FROM command_runs WHERE id = ?", running.command.id);
    expect(cut).toMatchObject({ agent_id: running.agent.id, exit_code: null });
    expect(cut!.completed_at).not.toBeNull();
    expect(cut!.cancelled_at).not.toBeNull();

    // No durable event lost or duplicated: the log before the kill is an exact prefix of the log after.
    const events = events_of(after);
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.slice(0, committed.length)).toEqual(committed);
    const count = new Map<string, number>();
    for (const event of events) count.set(event.id, (count.get(event.id) ?? 0) + 1);
    for (const event of committed) expect(count.get(event.id), event.type).toBe(1);

    // What resume added: the resumed runtime's capabilities (none applies here), recovery, then the second attempt.
    const added = events.slice(committed.length).map((event) => event.type);
    expect(added.slice(0, 3)).toEqual(["capability.discovered", "capability.validated", "capability.disabled"]);
    expect(added.slice(3, 8)).toEqual(["command.failed", "tool.cancelled", "agent.lost", "task.interrupted", "task.resumed"]);
    expect(added).toContain("task.started");
    expect(added.at(-1)).toBe("task.completed");
    expect(events.filter((event) => event.type === "task.started")).toHaveLength(2);

    expect(referential_check(after)).toEqual({ ok: true, orphans: [] });
    expect(fs.readFileSync(path.join(project, "greeting.txt"), "utf8")).toBe("hello from air");

    // The model saw: the classification, attempt 1's first turn, then attempt 2's two turns.
    expect(server.requests().map((request) => [request.requester, request.turn_index, request.outcome.kind])).toEqual([
      ["main", 0, "reply"],
      ["executor", 0, "reply"],
      ["executor", 1, "reply"],
      ["executor", 2, "reply"],
    ]);
  });
});

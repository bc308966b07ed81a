/**
 * A permission prompt outlives its runtime (issue 4): `air run` in default mode asks before writing a file;
 * the runtime is SIGKILLed while the question is open; `air resume` asks it again, the answer is recorded,
 * and the re-run task's same call goes ahead on that answer without a second question.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import type { ScriptInput } from "../../src/providers/scripted/script.js";
import {
  air_env,
  AirProcess,
  CLASSIFY_GREETING,
  copy_fixture_project,
  events_of,
  fixture_requirement,
  open_readonly,
  peek,
  require_build,
  rows,
  session_files,
  session_ids,
  temp_dir,
  wait_until,
} from "./helpers.js";

const KEY = "sk-e2e-permission-resume";
const WRITE_GREETING = { type: "tool_use", name: "fs.write", input: { path: "greeting.txt", content: "hello from air" } } as const;

/** Attempt 1 asks to write the file and is killed at the question; attempt 2 asks the same and finishes. */
const SCRIPT: ScriptInput = {
  turns: {
    main: [CLASSIFY_GREETING],
    executor: [
      { reply: { content: [WRITE_GREETING] } },
      { expect: { last_user_contains: "# Task: Add the greeting file" }, reply: { content: [WRITE_GREETING] } },
      { reply: { content: [{ type: "text", text: "Wrote greeting.txt." }] } },
    ],
  },
};

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

describe("a pending permission prompt across a SIGKILL", () => {
  it("is asked again by air resume, answered there, and the re-run call goes ahead on that answer", async () => {
    require_build();
    const work = temp_dir("air-e2e-prompt-");
    cleanups.push(work.cleanup);
    const server: ScriptedServer = await start_scripted_server({ script: SCRIPT, api_key: KEY });
    cleanups.push(() => server.close());
    const project = copy_fixture_project("worker", work.dir);
    const env = air_env(path.join(work.dir, "air-home"), { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url });

    const runtime = new AirProcess(["run", "-p", fixture_requirement("worker"), "--permission-mode", "default", "--prompts", "stdin"], {
      cwd: project,
      env,
      keep_stdin: true,
    });
    cleanups.push(() => runtime.kill());
    const session_id = await wait_until("the session database", () => session_ids(project)[0]);
    const { db } = session_files(project, session_id);
    const prompt = await wait_until("the permission prompt", () =>
      peek(db, (client) => rows(client, "SELECT payload_json FROM events WHERE type = 'permission.prompt.requested'")[0]),
    );
    await wait_until("the question on the terminal", () => runtime.stderr.includes("Allow?"));
    expect(runtime.stderr).toContain("write greeting.txt");
    expect(JSON.parse(String(prompt.payload_json))).toMatchObject({ tool_name: "fs.write", subjects: [{ kind: "path", op: "write", path: "greeting.txt" }] });

    runtime.kill("SIGKILL");
    expect(await runtime.exit).toEqual({ code: null, signal: "SIGKILL" });
    expect(fs.existsSync(path.join(project, "greeting.txt"))).toBe(false);
    const before = open_readonly(db);
    expect(
      events_of(before)
        .filter((event) => event.type.startsWith("permission.prompt"))
        .map((event) => event.type),
    ).toEqual(["permission.prompt.requested"]);
    before.close();

    const resume = new AirProcess(["resume", "--permission-mode", "default", "--prompts", "stdin"], { cwd: project, env, keep_stdin: true });
    cleanups.push(() => resume.kill());
    await wait_until("the question asked again", () => resume.stderr.includes("Allow?"), 30_000);
    expect(resume.stdout).toContain("1 permission prompt(s) were waiting when the session stopped; asking again");
    resume.child.stdin.write("y\n");
    expect(await resume.exit, resume.transcript).toEqual({ code: 0, signal: null });
    expect(resume.stderr.match(/Allow\?/g)).toHaveLength(1);
    expect(fs.readFileSync(path.join(project, "greeting.txt"), "utf8")).toBe("hello from air");

    const after = open_readonly(db);
    cleanups.push(() => after.close());
    const events = events_of(after);
    const requested = events.filter((event) => event.type === "permission.prompt.requested");
    const resolved = events.filter((event) => event.type === "permission.prompt.resolved");
    expect(requested).toHaveLength(1);
    expect(resolved).toHaveLength(1);
    expect(resolved[0]!.payload).toMatchObject({ prompt_id: requested[0]!.payload.prompt_id, answer: "allow", grant_scope: "once", resolved_by: "user" });
    const writes = events.filter((event) => event.type === "permission.decision.recorded" && event.payload.tool_name === "fs.write");
    expect(writes.map((event) => event.payload.action)).toEqual(["allow"]);
    expect(String(writes[0]!.payload.reason)).toContain("allowed by your earlier answer (once)");
    expect(events.at(-1)!.type).toBe("task.completed");
  });
});

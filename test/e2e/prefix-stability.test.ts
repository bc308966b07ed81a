/**
 * Issue 5's prefix-stability acceptance: over a 20-turn scripted executor session run by the built CLI, each
 * request the model server receives repeats the previous request byte for byte up to its newest turn, and
 * after the second request at least 90 % of the input is cache-eligible — over the Anthropic Messages API
 * and over OpenAI Chat Completions.
 */
import { afterAll, describe, expect, it } from "vitest";
import { run_session, SESSION_TURNS, type SessionApi, type SessionRun } from "../../bench/context-session.js";
import { prefix_report } from "../../src/context/prefix.js";
import { only_session, open_readonly, query, require_build, session_files, temp_dir } from "./helpers.js";

type Body = { tools?: unknown; system?: unknown; messages: { role: string; content: unknown }[] };

const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

async function session(api: SessionApi): Promise<SessionRun & { bodies: Body[] }> {
  require_build();
  const work = temp_dir(`air-e2e-prefix-${api}-`);
  cleanups.push(work.cleanup);
  const run = await run_session(api, work.dir);
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  return { ...run, bodies: run.executor_requests.map((request) => request.body as Body) };
}

describe.each(["anthropic", "openai"] as const)("a 20-turn executor session over %s", (api) => {
  let run: SessionRun & { bodies: Body[] };

  it("sends 20 requests, each starting with the previous one's bytes up to its newest turn", async () => {
    run = await session(api);
    expect(run.executor_requests.map((request) => request.outcome.kind)).toEqual(Array(SESSION_TURNS).fill("reply"));
    for (let index = 1; index < run.bodies.length; index += 1) {
      const previous = run.bodies[index - 1]!;
      const current = run.bodies[index]!;
      // Everything before the previous request's newest turn (its last message, or on Chat Completions its
      // trailing tool messages) is sent again unchanged.
      const newest = previous.messages.findLastIndex((message) => message.role === "assistant") + 1 || previous.messages.length - 1;
      const stable = (body: Body) => JSON.stringify([body.tools, body.system, body.messages.slice(0, newest)]);
      expect(stable(current), `request ${index + 1}`).toBe(stable(previous));
    }
    const report = prefix_report(run.bodies);
    expect(report.all_prefixes_identical).toBe(true);
  });

  it("has at least 90 % of each request's input cache-eligible after the second", () => {
    const report = prefix_report(run.bodies);
    expect(report.turns).toHaveLength(SESSION_TURNS);
    expect(report.ratio_after_second).toBeGreaterThanOrEqual(0.9);
    expect(report.min_ratio_after_second).toBeGreaterThanOrEqual(0.9);
    // The stable layers are what makes it so: the project rules are in every request's system prompt.
    for (const body of run.bodies) expect(JSON.stringify(body.system ?? body.messages[0])).toContain("Never edit files in this project; only look.");
  });

  it("stored the executor's 40 messages, the task prompt first", () => {
    const connection = open_readonly(session_files(run.project, only_session(run.project)).db);
    try {
      const rows = query(connection, "SELECT role, content_json FROM messages WHERE agent_id IS NOT NULL ORDER BY rowid");
      expect(rows).toHaveLength(2 * SESSION_TURNS);
      expect(String(rows[0]!.content_json)).toContain("# Task: Survey the project");
      expect(rows.map((row) => row.role)).toEqual(Array.from({ length: 2 * SESSION_TURNS }, (_, index) => (index % 2 === 0 ? "user" : "assistant")));
    } finally {
      connection.close();
    }
  });
});

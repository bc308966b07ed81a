/**
 * `air run -p` in this process: what it prints at the end is what the Main Agent told the user — its answer,
 * or the summary it recorded for the task it ran — taken from the Main Agent's message, not worked out again;
 * and a request that failed before the Main Agent spoke ends with its error. The real runtime, worker and
 * AnthropicAdapter against the scripted model server.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/output.js";
import { run_requirement } from "../../src/cli/run-requirement.js";
import { follow_replies } from "../../src/cli/replies.js";
import { make_event } from "../../src/contracts/events/registry.js";
import { new_id } from "../../src/contracts/ids.js";
import { Connection } from "../../src/db/connection.js";
import { ProviderManager } from "../../src/providers/manager.js";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import type { TurnInput } from "../../src/providers/scripted/script.js";
import { copy_fixture_project, fixture_requirement, only_session, require_build, session_files, SHIPPED_FIXTURES } from "../e2e/helpers.js";
import { open_temp_session, set_air_home } from "../fixtures/session.js";

const KEY = "sk-run-requirement-test";
const chat = (answer: string): TurnInput => ({ reply: { content: [{ type: "tool_use", name: "classify_request", input: { intent: "chat", answer } }] } });

let root: string;
let restore_air_home: () => void;
let servers: ScriptedServer[] = [];
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "air-run-requirement-"));
  restore_air_home = set_air_home(path.join(root, "air-home"));
});
afterEach(async () => {
  for (const server of servers) await server.close();
  servers = [];
  restore_air_home();
  fs.rmSync(root, { recursive: true, force: true });
});

type Result = { code: number; outcome: { kind: string }; summary: string };

async function run(script: Parameters<typeof start_scripted_server>[0]["script"], requirement: string) {
  const server = await start_scripted_server({ script, api_key: KEY });
  servers.push(server);
  const project = copy_fixture_project("worker", root);
  let out = "";
  const io: Io = { cwd: project, out: (text) => (out += text), err: () => undefined };
  const providers = ProviderManager.load({
    home: path.join(root, "air-home"),
    env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
    retry: { sleep: async () => undefined },
  });
  const report = await run_requirement(io, { requirement, format: "json", permissions: { mode: "accept-edits", prompts: "policy" } }, providers);
  const reader = Connection.open(session_files(project, only_session(project)).db, { must_exist: true });
  const told = reader.client.prepare("SELECT content_json FROM messages WHERE role = 'assistant' ORDER BY rowid").all() as { content_json: string }[];
  reader.close();
  return { report, result: JSON.parse(out) as Result, told: told.map((row) => JSON.parse(row.content_json) as unknown) };
}

describe("run_requirement", () => {
  it("prints the Main Agent's answer, as it recorded it, as the summary", async () => {
    const { result, told } = await run({ turns: { main: [chat("Forty-two.")] } }, "What is the answer?");
    expect(result).toMatchObject({ code: 0, outcome: { kind: "answered" }, summary: "Forty-two." });
    expect(told).toEqual(["Forty-two."]);
  });

  it("prints the summary the Main Agent recorded for the task it ran", async () => {
    require_build();
    const { result, told } = await run(path.join(SHIPPED_FIXTURES, "worker", "script.yaml"), fixture_requirement("worker"));
    expect(result).toMatchObject({ code: 0, outcome: { kind: "executed" } });
    // The executor's own closing words, with the facts under them.
    expect(result.summary).toMatch(
      /^Wrote greeting\.txt; the verification command checks its content\.\n\n- Task "Add the greeting file" is completed\.\n- Files changed: `greeting\.txt`\n- Verification: 1 of 1 passed — `grep -qx "hello from air" greeting\.txt` passed\n- Cost: \$\d+\.\d{4} \(2 model calls, [\d,]+ tokens\)$/,
    );
    expect(told.at(-1)).toBe(result.summary);
  });

  it("prints the error of a request that failed before the Main Agent spoke", async () => {
    const refusal: TurnInput = { error: { status: 400, message: "messages: the request is malformed (scripted)" } };
    const { result, told } = await run({ turns: { main: [refusal] } }, "What is the answer?");
    expect(result).toMatchObject({ code: 1, outcome: { kind: "failed" } });
    expect(result.summary).toMatch(/^The request failed: .*the request is malformed \(scripted\)/);
    expect(told).toEqual([]);
  });
});

describe("follow_replies", () => {
  it("keeps the text of the Main Agent's latest message since it began, not a worker's, until stopped", () => {
    const temp = open_temp_session();
    try {
      const { session } = temp;
      const say = (content: string | { type: "text"; text: string }[], source: { kind: "main" | "agent" }) =>
        session.ingestor.ingest(make_event("assistant.message.created", { message_id: new_id("message"), content }, { ...session.origin, source }));
      say("said before", { kind: "main" });
      const replies = follow_replies(session.bus);
      expect(replies.last()).toBeUndefined();
      say("a worker's turn", { kind: "agent" });
      expect(replies.last()).toBeUndefined();
      say(
        [
          { type: "text", text: "Done: " },
          { type: "text", text: "two files." },
        ],
        { kind: "main" },
      );
      expect(replies.last()).toBe("Done: \ntwo files.");
      replies.stop();
      say("after it stopped", { kind: "main" });
      expect(replies.last()).toBe("Done: \ntwo files.");
    } finally {
      temp.cleanup();
    }
  });
});

/**
 * `model.complete` keeps a large context whole as a messages artifact of its run (seeds 000 §10.1), and a
 * small one only in the run's record; a Main Agent request its assembler kept already is kept once. Real
 * AnthropicAdapter over the wire to the scripted server.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MESSAGES_ARTIFACT_THRESHOLD_BYTES } from "../../src/context/assembler.js";
import { SessionPrompts } from "../../src/context/session-prompts.js";
import { AnthropicAdapter } from "../../src/providers/anthropic.js";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import { Secret } from "../../src/providers/secret.js";
import { model_complete_tool } from "../../src/tools/model/complete.js";
import { output_of, tool_harness, type ToolHarness } from "./helpers.js";

const KEY = "sk-model-complete-test";
let h: ToolHarness;
let server: ScriptedServer;
beforeEach(async () => {
  server = await start_scripted_server({
    script: { turns: { main: [{ reply: { content: [{ type: "text", text: "ok" }] } }, { reply: { content: [{ type: "text", text: "ok" }] } }] } },
    api_key: KEY,
  });
  h = tool_harness();
  h.registry.register(model_complete_tool(new AnthropicAdapter({ api_key: new Secret(KEY), base_url: server.url, model_id: "claude-sonnet-4-5" })));
});
afterEach(async () => {
  h.cleanup();
  await server.close();
});

describe("model.complete", () => {
  it("writes a request larger than the threshold as a messages artifact of the run, and a small one not", async () => {
    const small = { purpose: "answer", messages: [{ role: "user", content: "hello" }] };
    output_of(await h.call("model.complete", small));
    expect(h.artifacts()).toEqual([]);

    const large = { purpose: "answer", messages: [{ role: "user", content: "x".repeat(MESSAGES_ARTIFACT_THRESHOLD_BYTES + 1) }] };
    const outcome = await h.call("model.complete", large);
    output_of(outcome);
    const [artifact] = h.artifacts();
    expect(artifact).toMatchObject({ type: "messages", tool_run_id: outcome.tool_run_id });
    expect(JSON.parse(h.artifact_text(String(artifact!.id)))).toEqual(large);
  });

  it("keeps a large Main Agent request once: the run lists the artifact its assembler wrote, and no second one", async () => {
    const prompts = new SessionPrompts({ session: h.temp.session, mode: "accept-edits", context_window: 1_000_000 });
    const content = "x".repeat(MESSAGES_ARTIFACT_THRESHOLD_BYTES + 1);
    const assembled = prompts.assemble_main("answer", [{ id: "msg_1", message: { role: "user", content } }], []);
    expect(assembled.messages_artifact_id).toMatch(/^art_/);
    const outcome = await h.call("model.complete", assembled.request);
    output_of(outcome);
    expect(h.artifacts().map((artifact) => artifact.id)).toEqual([assembled.messages_artifact_id]);
    expect(h.events("artifact.created")).toHaveLength(1);
    expect(h.events("tool.completed").map((event) => event.payload.artifact_ids)).toEqual([[assembled.messages_artifact_id]]);
    expect(JSON.parse(h.artifact_text(assembled.messages_artifact_id!))).toEqual(assembled.request);
  });
});

/**
 * Secrets never reach disk (seeds 000 §9.2, §16.2): the EventIngestor redacts every event payload and
 * the ArtifactStore every text artifact before they are written, so a key a command printed is scrubbed
 * from the events table, from command output on disk and from the tool's recorded output.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { EventIngestor } from "../../src/event-store/event-ingestor.js";
import { make_event, type RuntimeEvent } from "../../src/contracts/events/registry.js";
import { new_id } from "../../src/contracts/ids.js";
import { SecretRedactor } from "../../src/permissions/secret-redactor.js";
import { ArtifactStore } from "../../src/project/artifact-store.js";
import { session_artifacts_dir } from "../../src/project/layout.js";
import { open_temp_session, rows_of, type TempSession } from "../fixtures/session.js";
import { output_of, tool_harness, type ToolHarness } from "../tools/helpers.js";

/** Fake credentials, assembled at run time so that no scanner mistakes this file for a leak. */
const ANTHROPIC_KEY = "sk-" + "ant-api03-" + "Fake_Key-".repeat(8) + "9Q";
const GITHUB_TOKEN = "ghp" + "_" + "R2d2C3po".repeat(4) + "ab12";

function all_text_of(connection: TempSession["session"]["connection"], table: string): string {
  return JSON.stringify(rows_of(connection, table));
}

describe("redaction through shell.run", () => {
  let h: ToolHarness;
  afterEach(() => h.cleanup());

  it("scrubs a printed API key and token from events, artifacts on disk and the tool's recorded output", async () => {
    h = tool_harness();
    const command = `echo "ANTHROPIC_API_KEY=${ANTHROPIC_KEY}"; echo "push with ${GITHUB_TOKEN}" >&2`;
    const outcome = await h.call("shell.run", { command });
    const output = output_of<{ stdout_tail: string; stderr_tail: string; stdout_artifact_id: string; stderr_artifact_id: string }>(outcome);

    const connection = h.temp.session.connection;
    for (const table of ["events", "tool_runs", "command_runs", "artifacts"]) {
      const text = all_text_of(connection, table);
      expect(text, table).not.toContain(ANTHROPIC_KEY);
      expect(text, table).not.toContain(GITHUB_TOKEN);
    }
    const completed = h.events("tool.completed")[0]!.payload.output as { stdout_tail: string; stderr_tail: string };
    expect(completed.stdout_tail).toBe("ANTHROPIC_API_KEY=[REDACTED:anthropic_key]\n");
    expect(completed.stderr_tail).toBe("push with [REDACTED:github_token]\n");

    expect(h.artifact_text(output.stdout_artifact_id)).toBe("ANTHROPIC_API_KEY=[REDACTED:anthropic_key]\n");
    expect(h.artifact_text(output.stderr_artifact_id)).toBe("push with [REDACTED:github_token]\n");
    for (const row of h.artifacts()) {
      const bytes = fs.readFileSync(h.temp.session.artifacts.path_of(String(row.path)));
      expect(row.sha256).toBe(crypto.createHash("sha256").update(bytes).digest("hex"));
      expect(row.size_bytes).toBe(bytes.byteLength);
    }

    const live = JSON.stringify(h.bus_events);
    expect(live).not.toContain(ANTHROPIC_KEY);
    expect(live).not.toContain(GITHUB_TOKEN);
    expect(live).toContain("[REDACTED:github_token]");
  });
});

describe("redaction in the write path", () => {
  let temp: TempSession;
  afterEach(() => temp.cleanup());

  function pipeline(redactor: SecretRedactor) {
    temp = open_temp_session();
    const { session } = temp;
    const ingestor = new EventIngestor(session.store, session.bus, redactor);
    const ids = { project_id: session.project.file.project_id, session_id: session.id };
    const artifacts = new ArtifactStore(session_artifacts_dir(session.project.layout, session.id), ids, ingestor, session.origin);
    return { session, ingestor, artifacts };
  }

  it("replaces a known secret value in every string of a payload before the event is stored", () => {
    const { session, ingestor } = pipeline(new SecretRedactor([{ label: "DEPLOY_TOKEN", value: "plain-looking-deploy-value" }]));
    const tool_run_id = new_id("tool_run");
    ingestor.ingest(
      make_event(
        "tool.started",
        { tool_run_id, tool_name: "shell.run", tool_version: 1, input: { command: "deploy --auth plain-looking-deploy-value", cwd: "." } },
        session.origin,
      ),
    );
    const text = all_text_of(session.connection, "events");
    expect(text).not.toContain("plain-looking-deploy-value");
    expect(text).toContain("deploy --auth [REDACTED:DEPLOY_TOKEN]");
  });

  it("redacts ephemeral events before subscribers see them", () => {
    const { session, ingestor } = pipeline(new SecretRedactor());
    const seen: RuntimeEvent[] = [];
    session.bus.subscribe({}, (event) => seen.push(event));
    const command_run_id = new_id("command_run");
    ingestor.ingest(make_event("command.stdout.delta", { command_run_id, chunk: `token ${GITHUB_TOKEN}\n` }, session.origin));
    session.bus.drain();
    expect(JSON.stringify(seen)).not.toContain(GITHUB_TOKEN);
  });

  it("redacts text artifacts, keeps the bytes of non-UTF-8 output around a redaction, and leaves binary untouched", () => {
    const { session, artifacts } = pipeline(new SecretRedactor());
    const read = (id: string) => {
      const row = rows_of(session.connection, "artifacts").find((artifact) => artifact.id === id)!;
      return fs.readFileSync(artifacts.path_of(String(row.path)));
    };

    const diff = artifacts.create({ type: "diff", content: `+const key = "${ANTHROPIC_KEY}";\n`, extension: ".diff" });
    expect(read(diff.id).toString("utf8")).toBe(`+const key = "[REDACTED:anthropic_key]";\n`);

    const invalid_utf8 = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00]), Buffer.from(` ${GITHUB_TOKEN} `), Buffer.from([0xc3, 0x28])]);
    const log = artifacts.create({ type: "command_log", content: invalid_utf8, mime_type: "text/plain" });
    expect(read(log.id)).toEqual(Buffer.concat([Buffer.from([0xff, 0xfe, 0x00]), Buffer.from(" [REDACTED:github_token] "), Buffer.from([0xc3, 0x28])]));
    expect(log.size_bytes).toBe(read(log.id).byteLength);
    expect(log.sha256).toBe(crypto.createHash("sha256").update(read(log.id)).digest("hex"));

    const image = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.from(GITHUB_TOKEN)]);
    const screenshot = artifacts.create({ type: "screenshot", content: image, mime_type: "image/png", extension: ".png" });
    expect(read(screenshot.id)).toEqual(image);
  });
});

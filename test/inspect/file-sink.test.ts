import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { is_air_failure } from "../../src/contracts/errors.js";
import { start_inspection } from "../../src/inspect/attach.js";
import { open_file_sink } from "../../src/inspect/file-sink.js";
import { LiveSystem } from "../../src/inspect/live-system.js";
import { Child, kill_and_close, TempDirs } from "../fixtures/processes.js";
import { start_system, type Message, type RunningSystem } from "./helpers.js";

const temp = new TempDirs();
const children: Child[] = [];
const handles: Array<{ close(): void }> = [];
const systems: RunningSystem[] = [];
afterEach(() => {
  for (const system of systems.splice(0)) system.stop();
  kill_and_close(children, handles);
  temp.cleanup();
});

function read_ndjson(file: string): Message[] {
  const text = fs.readFileSync(file, "utf8");
  expect(text.endsWith("\n")).toBe(true);
  return text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Message);
}

const io = (cwd: string, err: string[] = []) => ({ err: (text: string) => void err.push(text), cwd });

describe("--inspect-file PATH", () => {
  it("writes the inspection stream as NDJSON: registrations with definitions, events, snapshots, in order", async () => {
    const dir = temp.make("air-inspect-file-");
    const inspection = (await start_inspection(io(dir), { inspect_file: "trace.ndjson" }))!;
    handles.push(inspection);
    expect(inspection.url).toBeUndefined();
    const running = await start_system(inspection.inspect);
    running.churn(2);
    running.stop();
    inspection.close();

    const file = path.join(dir, "trace.ndjson");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const messages = read_ndjson(file);
    expect(messages[0]).toMatchObject({ type: "@xstate.actor", name: "main-agent", _version: expect.any(String) });
    expect(JSON.parse(messages[0]!.definition!)).toMatchObject({ id: "main-agent" });
    const registered = new Set<string>();
    for (const message of messages) {
      if (message.type === "@xstate.actor") registered.add(message.sessionId);
      // Every message concerns an actor registered on an earlier line, so a viewer can replay the file.
      else expect(registered.has(message.sessionId), `${message.type} ${message.sessionId}`).toBe(true);
    }
    const scheduler = messages.find((m) => m.type === "@xstate.actor" && m.name === "scheduler")!;
    expect(messages.some((m) => m.sessionId === scheduler.sessionId && m.snapshot?.value === "monitoring")).toBe(true);
    expect(messages.filter((m) => m.type === "@xstate.event" && m.event?.type === "task.retried")).toHaveLength(2);
    expect(messages.at(-1)).toMatchObject({ type: "@xstate.snapshot", snapshot: { status: "stopped" } });
  });

  it("starts with the whole live system when it is opened after the actors started", async () => {
    const dir = temp.make("air-inspect-file-");
    const live = new LiveSystem();
    const running = await start_system(live.inspect);
    systems.push(running);
    const sink = open_file_sink(path.join(dir, "late.ndjson"), () => undefined);
    handles.push(sink);
    live.attach(sink, { replay: true });
    const names = read_ndjson(sink.path)
      .filter((m) => m.type === "@xstate.actor")
      .map((m) => m.name);
    expect(names).toEqual(expect.arrayContaining(["main-agent", "scheduler", "agent_1", "task"]));
  });

  it("leaves every line written before a crash readable (the process is SIGKILLed mid-run)", async () => {
    const dir = temp.make("air-inspect-crash-");
    const file = path.join(dir, "crash.ndjson");
    const child = new Child("../inspect/inspect-child.ts", ["-", file]);
    children.push(child);
    await child.line((line) => line === "started");
    child.send("churn 40");
    await child.line((line) => line === "churned");
    child.send("crash");
    expect((await child.exit).signal).toBe("SIGKILL");

    const messages = read_ndjson(file);
    expect(messages.filter((m) => m.type === "@xstate.event" && m.event?.type === "task.retried")).toHaveLength(40);
  });

  it("refuses a path it cannot write, before anything starts", async () => {
    const dir = temp.make("air-inspect-file-");
    const attempt = start_inspection(io(dir), { inspect_file: "no/such/folder/trace.ndjson" });
    await expect(attempt).rejects.toSatisfy(
      (error: unknown) => is_air_failure(error) && error.kind === "user_error" && /--inspect-file/.test(error.error.user_action ?? ""),
    );
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("keeps the file private to the user", async () => {
    const dir = temp.make("air-inspect-file-");
    const sink = open_file_sink(path.join(dir, "private.ndjson"), () => undefined);
    handles.push(sink);
    expect(fs.statSync(sink.path).mode & 0o077).toBe(0);
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { Child, kill_and_close, type Exit } from "../fixtures/processes.js";
import { InspectorClient } from "./helpers.js";

const CHILD = "../inspect/inspect-child.ts";
const SKY_STUB = new URL("./sky-thread-stub.mjs", import.meta.url).pathname;
/** Far above a prompt exit (well under a second), far below "never". */
const EXIT_WITHIN_MS = 10_000;

const children: Child[] = [];
const handles: Array<{ close(): void }> = [];
afterEach(() => kill_and_close(children, handles));

async function started(args: string[]): Promise<{ child: Child; url: string }> {
  const child = new Child(CHILD, args);
  children.push(child);
  const url = (await child.line((line) => line.startsWith("url "))).slice(4);
  await child.line((line) => line === "started");
  return { child, url };
}

async function finish(child: Child): Promise<Exit> {
  child.send("finish");
  const timeout = new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), EXIT_WITHIN_MS).unref());
  const exit = await Promise.race([child.exit, timeout]);
  if (exit === "still running") throw new Error(`the process did not exit within ${EXIT_WITHIN_MS} ms; stderr:\n${child.stderr}`);
  return exit;
}

describe("inspection never keeps air from exiting", () => {
  it("exits by itself while a client is connected to the relay", async () => {
    const { child, url } = await started(["local", "-"]);
    const client = await InspectorClient.connect(url);
    handles.push(client);
    await client.until((messages) => messages.length >= 8);
    expect(await finish(child)).toEqual({ code: 0, signal: null });
    await client.closed;
  });

  it("exits by itself with nothing connected", async () => {
    const { child } = await started(["local", "-"]);
    expect(await finish(child)).toEqual({ code: 0, signal: null });
  });

  it("exits by itself while a connected client has stopped reading", async () => {
    const { child, url } = await started(["local", "-"]);
    const client = await InspectorClient.connect(url);
    handles.push(client);
    (client.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    child.send("churn 3000");
    await child.line((line) => line === "churned");
    expect(await finish(child)).toEqual({ code: 0, signal: null });
  });

  it("exits by itself while the Sky thread retries an unreachable inspector forever, after warning first", async () => {
    const { child } = await started(["sky", "-", SKY_STUB]);
    for (let waited = 0; !child.stderr.includes("sky stub: actor main-agent"); waited += 10) {
      if (waited > EXIT_WITHIN_MS) throw new Error(`the Sky thread got no message; stderr:\n${child.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await finish(child)).toEqual({ code: 0, signal: null });
    const warning = child.stderr.indexOf("--inspect=sky uploads every statechart message");
    expect(warning).toBeGreaterThanOrEqual(0);
    expect(child.stderr.indexOf("sky stub: started")).toBeGreaterThan(warning);
    expect(child.stderr).toContain("sky stub: actor main-agent");
    // What the thread prints (Sky's share link) goes to stderr: stdout may carry --output-format json.
    expect(child.lines.join("\n")).not.toContain("sky stub");
  });
});

/**
 * Live statecharts (issue 6): `air run --inspect=0` serves the runtime's actors on 127.0.0.1; a WebSocket
 * client that connects after the run has started still receives the definitions and latest snapshots of the
 * Main Agent, its Scheduler, the worker run and the agent's machine.
 */
import crypto from "node:crypto";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { start_scripted_server } from "../../src/providers/scripted/server.js";
import type { ScriptInput } from "../../src/providers/scripted/script.js";
import { InspectorClient, type Message } from "../inspect/helpers.js";
import {
  air_env,
  AirProcess,
  CLASSIFY_GREETING,
  copy_fixture_project,
  fixture_requirement,
  peek,
  pids_with_cmdline,
  require_build,
  rows,
  session_ids,
  temp_dir,
  wait_until,
} from "./helpers.js";

const KEY = "sk-e2e-inspect";

/** The executor starts a command that takes a minute, so the run is in full swing when the client connects. */
function slow_script(marker: string): ScriptInput {
  return {
    turns: {
      main: [CLASSIFY_GREETING],
      executor: [{ reply: { content: [{ type: "tool_use", name: "shell.run", input: { command: `sleep 60 && echo ${marker}` } }] } }],
    },
  };
}

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

const actor_names = (messages: Message[]) => messages.filter((m) => m.type === "@xstate.actor").map((m) => m.name);

const is_worker_run = (m: Message) => m.type === "@xstate.actor" && m.definition !== undefined && JSON.parse(m.definition).id === "worker-run";

/** Every named actor and a worker run have been announced, and every announced actor has sent a snapshot. */
function replayed(messages: Message[], names: string[]): boolean {
  const actors = messages.filter((m) => m.type === "@xstate.actor");
  const has_snapshot = (actor: Message) => messages.some((m) => m.type === "@xstate.snapshot" && m.sessionId === actor.sessionId);
  return names.every((name) => actor_names(messages).includes(name)) && actors.some(is_worker_run) && actors.every(has_snapshot);
}

describe("air run --inspect", () => {
  it("replays every live actor's definition and latest snapshot to a client that connects mid-run", async () => {
    require_build();
    const work = temp_dir("air-e2e-inspect-");
    cleanups.push(work.cleanup);
    const marker = `air-e2e-inspect-${crypto.randomUUID()}`;
    const server = await start_scripted_server({ script: slow_script(marker), api_key: KEY });
    cleanups.push(() => server.close());
    const project = copy_fixture_project("worker", work.dir);
    const env = air_env(path.join(work.dir, "air-home"), { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url });
    const run = new AirProcess(["run", "-p", fixture_requirement("worker"), "--permission-mode", "accept-edits", "--inspect=0"], { cwd: project, env });
    cleanups.push(() => {
      run.kill();
      for (const pid of pids_with_cmdline(marker)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone already
        }
      }
    });

    const url = await wait_until("the inspector URL", () => /live statecharts at (http:\/\/127\.0\.0\.1:\d+\/?\S*)/.exec(run.stderr)?.[1]);
    const session_id = await wait_until("the session", () => session_ids(project)[0]);
    const db = path.join(project, ".air", "local", "sessions", session_id, "session.db");
    await wait_until("the slow command", () => peek(db, (client) => rows(client, "SELECT id FROM command_runs WHERE completed_at IS NULL")[0]));

    const client = await InspectorClient.connect(url);
    cleanups.push(() => client.close());
    // The replay arrives as a stream of messages: wait for all of it, not just the first actors' announcements.
    const messages = await client.until(
      (received) => replayed(received, ["main-agent", "scheduler"]) && actor_names(received).some((name) => name?.startsWith("agt_") === true),
      10_000,
    );
    for (const actor of messages.filter((m) => m.type === "@xstate.actor")) {
      expect(actor.definition, `${actor.name} has its definition`).toBeTruthy();
      expect(
        messages.some((m) => m.type === "@xstate.snapshot" && m.sessionId === actor.sessionId),
        `${actor.name} has a snapshot`,
      ).toBe(true);
    }
    const main_agent = messages.find((m) => m.type === "@xstate.actor" && m.name === "main-agent")!;
    expect(JSON.parse(main_agent.definition!)).toMatchObject({ id: "main-agent" });
    const worker_runs = messages.filter(is_worker_run);
    expect(worker_runs.length, `actors: ${actor_names(messages).join(", ")}`).toBeGreaterThan(0);
  });
});

/**
 * A Main Agent that stays responsive (seeds 000 §20.1): while a wave runs, a question is answered from the
 * plan's rows as the tasks go on, and a requirement change pauses dispatch, cancels and revises exactly the
 * tasks it names. The real runtime, worker processes and AnthropicAdapter against the scripted model server,
 * in a real git checkout; the server holds turns so that what runs when is decided by events, not timings.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "xstate";
import { start_runtime, type Runtime } from "../../src/actors/runtime/runtime.js";
import { DEFAULT_TASK_DEFAULTS } from "../../src/cli/run-requirement.js";
import type { RuntimeEvent } from "../../src/contracts/events/registry.js";
import { workspaces } from "../../src/db/schema.js";
import { permissions_for_project } from "../../src/permissions/session-permissions.js";
import { ProviderManager } from "../../src/providers/manager.js";
import { load_script } from "../../src/providers/scripted/script.js";
import { start_scripted_server, type HeldTurn } from "../../src/providers/scripted/server.js";
import { REPO_ROOT } from "../fixtures/cli.js";
import { commit_files, init_repo } from "../fixtures/git-repo.js";
import { open_temp_session, set_air_home, type TempSession } from "../fixtures/session.js";

const KEY = "sk-responsive-main-agent-test";

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** Resolves on the first event recorded from now on that `matches`. */
function next_event(temp: TempSession, matches: (event: RuntimeEvent) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const off = temp.session.bus.subscribe({}, (event) => {
      if (!matches(event)) return;
      off();
      resolve();
    });
  });
}

async function runtime_for(
  script: string,
  hold: (turn: HeldTurn, temp: TempSession) => Promise<unknown> | undefined,
): Promise<{ temp: TempSession; runtime: Runtime }> {
  const temp = open_temp_session();
  cleanups.push(() => temp.cleanup());
  cleanups.push(set_air_home(path.join(temp.root, "air-home")));
  init_repo(temp.project.layout.root);
  commit_files(temp.project.layout.root, "start", { "README.md": "letters\n", ".gitignore": ".air/\n" });
  const server = await start_scripted_server({
    script: load_script(path.join(REPO_ROOT, "test/fixtures/scripts", script)),
    api_key: KEY,
    hold: (turn) => hold(turn, temp),
  });
  cleanups.push(() => server.close());
  const providers = ProviderManager.load({
    home: temp.root,
    env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
    retry: { sleep: async () => undefined },
  });
  const runtime = await start_runtime(temp.session, {
    provider: providers.for_session(),
    permissions: permissions_for_project(temp.project.layout, { mode: "accept-edits" }),
    task_defaults: DEFAULT_TASK_DEFAULTS,
  });
  cleanups.push(() => runtime.stop());
  return { temp, runtime };
}

const has_task = (event: RuntimeEvent) => typeof event.payload === "object" && event.payload !== null && "task_id" in event.payload;
const events_of = (temp: TempSession) => temp.session.store.query({}).map(({ event }) => event);
const task_row = (temp: TempSession, title: string) =>
  temp.session.connection.client.prepare("SELECT id, status, spec_json FROM tasks WHERE title = ?").get(title) as {
    id: string;
    status: string;
    spec_json: string;
  };

/** Once `started` tasks have started (their agents running), with the Main Agent listening beside them. */
async function wave_running(runtime: Runtime, temp: TempSession, started: number): Promise<void> {
  const enough = () => temp.session.store.query({ types: ["task.started"] }).length >= started;
  while (!enough()) await next_event(temp, (event) => event.type === "task.started");
  await waitFor(runtime.main_agent, (snapshot) => snapshot.matches({ executing: "listening" }));
}

describe("the Main Agent while a wave runs", () => {
  it("answers a question from the plan's rows while the tasks' events keep arriving", async () => {
    // The answer is held until a task records something after the question: the wave did not wait for it.
    const { temp, runtime } = await runtime_for("mid-run-question.yaml", (turn, temp) =>
      turn.requester === "main" && turn.index === 1 ? next_event(temp, has_task) : undefined,
    );
    const request = runtime.submit("write alpha and beta");
    await wave_running(runtime, temp, 1);
    expect(runtime.accepts_message()).toBe(true);
    expect(await runtime.submit("how far along is the plan?")).toEqual({ kind: "answered", answer: "Alpha and beta are being written." });
    expect(await request).toMatchObject({ kind: "executed", run: { status: "completed" } });

    const events = events_of(temp);
    const asked = events.findIndex((event) => event.type === "user.message.created" && event.payload.content === "how far along is the plan?");
    const answered = events.findIndex((event) => event.type === "assistant.message.created" && event.payload.content === "Alpha and beta are being written.");
    expect(asked).toBeGreaterThan(0);
    expect(answered).toBeGreaterThan(asked);
    expect(events.slice(asked + 1, answered).filter(has_task).length).toBeGreaterThan(0);
    expect(events.slice(answered).filter((event) => event.type === "task.completed").length).toBeGreaterThan(0);
  });

  it("cancels and revises exactly the tasks a design-level change names; the others finish untouched", async () => {
    let release_alpha: () => void = () => undefined;
    const alpha_held = new Promise<void>((resolve) => (release_alpha = resolve));
    const { temp, runtime } = await runtime_for("mid-run-change.yaml", (turn) => {
      if (turn.conversation === "beta" && turn.index === 0) return new Promise(() => undefined);
      if (turn.conversation === "alpha" && turn.index === 0) return alpha_held;
      return undefined;
    });
    const request = runtime.submit("write alpha, beta and gamma");
    await wave_running(runtime, temp, 2);
    const change = await runtime.submit("drop beta, and gamma should be in upper case");
    expect(change).toMatchObject({ kind: "answered" });
    release_alpha();
    expect(await request).toMatchObject({ kind: "executed", run: { status: "completed" } });

    expect(task_row(temp, "Write alpha").status).toBe("completed");
    expect(task_row(temp, "Write beta").status).toBe("cancelled");
    const gamma = task_row(temp, "Write gamma");
    expect(gamma.status).toBe("completed");
    expect(JSON.parse(gamma.spec_json)).toMatchObject({ description: "Write gamma/g.txt in UPPER CASE." });
    const types = events_of(temp).map((event) => event.type);
    expect(types.indexOf("requirement.changed")).toBeLessThan(types.indexOf("task.revised"));
    expect(temp.session.store.query({ types: ["task.revised"] }).map(({ event }) => event.payload)).toMatchObject([{ task_id: gamma.id }]);
    expect(temp.session.store.query({ types: ["task.cancelled"] }).map(({ event }) => event.payload)).toMatchObject([
      { task_id: task_row(temp, "Write beta").id },
    ]);
    // The cancelled task's worktree is kept until cleanup; the others landed and were cleaned.
    const beta_workspace = temp.session.connection.db
      .select()
      .from(workspaces)
      .all()
      .find((row) => row.task_id === task_row(temp, "Write beta").id);
    expect(beta_workspace?.status).not.toBe("cleaned");
  });
});

/**
 * The interactive commands where nobody is at a terminal: `air run` without `-p` fails at once with
 * guidance (and the provider guidance when none is configured) and writes nothing; `air history` renders a
 * session as the TUI shows it, or as its event log. The TUI itself is driven in tmux (test/e2e/tui.test.ts).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { run_history } from "../../src/cli/commands/history.js";
import type { Io } from "../../src/cli/output.js";
import { make_event } from "../../src/contracts/events/registry.js";
import { new_id } from "../../src/contracts/ids.js";
import { init_project } from "../../src/project/project-store.js";
import { open_session } from "../../src/project/session-manager.js";
import { deferred_answerer } from "../../src/cli/tui-session.js";
import type { PermissionPrompt, PromptAnswer } from "../../src/permissions/prompts.js";
import { run_air } from "../fixtures/cli.js";
import { require_build } from "../e2e/helpers.js";
import { set_air_home } from "../fixtures/session.js";

let temp: string;
let project: string;
let home: string;
beforeEach(() => {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), "air-interactive-cli-"));
  project = path.join(temp, "project");
  home = path.join(temp, "air-home");
  fs.mkdirSync(project);
  fs.mkdirSync(home);
});
afterEach(() => fs.rmSync(temp, { recursive: true, force: true }));

/** This process's environment without any provider setting, CI or terminal hint, plus `extra`. */
function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(ANTHROPIC_|OPENAI_|OPENROUTER_)/.test(name) || ["AIR_MODEL", "AIR_HOME", "CI"].includes(name)) continue;
    clean[name] = value;
  }
  return { ...clean, AIR_HOME: home, ...extra };
}

describe("air run without -p and without a terminal", () => {
  it("with no provider either, exits 1 at once with both pieces of guidance and writes nothing but its log line", () => {
    const started = performance.now();
    require_build();
    const run = run_air(["run"], { cwd: project, env: env() });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^air: user_error: air run needs a requirement with -p when there is no terminal/);
    expect(run.stderr).toContain("no model provider is configured");
    expect(run.stderr).toContain('air run -p "<what you want done>"');
    expect(run.stderr).toContain("ANTHROPIC_API_KEY");
    expect(run.stderr).toContain(path.join(home, "models.yaml"));
    expect(fs.readdirSync(project)).toEqual([]);
    // Only the failure's record in the logs (issue 17): no config, no project index.
    expect(fs.readdirSync(home, { recursive: true }).sort()).toEqual(["logs", "logs/air.developer.log", "logs/air.log"]);
    expect(fs.readFileSync(path.join(home, "logs", "air.log"), "utf8")).toContain("air run needs a requirement with -p");
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("with a provider, says to pass -p, and CI=true counts as no terminal", () => {
    require_build();
    for (const extra of [{}, { CI: "true" }]) {
      const run = run_air(["run"], { cwd: project, env: env({ ANTHROPIC_API_KEY: "sk-unused", ...extra }) });
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toContain("air run needs a requirement with -p when there is no terminal");
      expect(run.stderr).not.toContain("provider");
      expect(fs.readdirSync(project)).toEqual([]);
    }
  });

  it("refuses a project folder that does not exist, and more than one", () => {
    require_build();
    const missing = run_air(["run", "nowhere", "-p", "x"], { cwd: project, env: env({ ANTHROPIC_API_KEY: "sk-unused" }) });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(`user_error: no folder ${path.join(project, "nowhere")}`);
    const two = run_air(["run", "a", "b"], { cwd: project, env: env() });
    expect(two.status).toBe(2);
    expect(two.stderr).toContain("air run takes one project folder");
  });
});

describe("air history", () => {
  let restore_home: () => void;
  beforeEach(() => {
    restore_home = set_air_home(home);
  });
  afterEach(() => restore_home());

  function recorded_session(): string {
    const { project: opened } = init_project(project);
    const session = open_session(opened, { title: "greeting work" });
    const origin = { ...session.origin, source: { kind: "user" as const }, route: ["user"] };
    session.ingestor.ingest(make_event("user.message.created", { message_id: new_id("message"), content: "Please add the greeting file." }, origin));
    session.ingestor.ingest(
      make_event(
        "assistant.message.created",
        { message_id: new_id("message"), content: "The greeting file is there now." },
        { ...session.origin, source: { kind: "main" }, route: ["main"] },
      ),
    );
    session.close();
    return session.id;
  }

  async function history(options: { view?: string; json?: boolean }): Promise<string> {
    let out = "";
    const io: Io = { out: (text) => (out += text), err: (text) => (out += text), cwd: project };
    expect(await run_history(io, { json: options.json === true, columns: 100, ...(options.view === undefined ? {} : { view: options.view }) })).toBe(0);
    return out;
  }

  it("--view tui prints the conversation and the HUD as the TUI draws them", async () => {
    const session_id = recorded_session();
    const out = await history({ view: "tui" });
    expect(out).toContain(`Session ${session_id} — greeting work`);
    expect(out.indexOf("Please add the greeting file.")).toBeGreaterThan(-1);
    expect(out.indexOf("The greeting file is there now.")).toBeGreaterThan(out.indexOf("Please add the greeting file."));
    expect(out).toContain(session_id.slice(0, 12));
    expect(out).not.toContain("user.message.created");
  });

  it("--view events prints one line per event, and --json the log", async () => {
    recorded_session();
    expect(await history({ view: "events" })).toMatch(/user\.message\.created\s+user/);
    const json = JSON.parse(await history({ json: true })) as { events: { type: string }[] };
    expect(json.events.map((event) => event.type)).toEqual(["session.created", "user.message.created", "assistant.message.created"]);
  });

  it("refuses an unknown view", async () => {
    recorded_session();
    const io: Io = { out: () => undefined, err: () => undefined, cwd: project };
    await expect(run_history(io, { json: false, view: "fancy" })).rejects.toThrow('unknown history view "fancy"');
  });
});

describe("the deferred prompt answerer (the engine exists before the UI's answerer)", () => {
  const prompt = (n: number): PermissionPrompt => ({
    prompt_id: new_id("permission_prompt") as PermissionPrompt["prompt_id"],
    tool_name: "fs.write",
    question: `write file ${n}?`,
    reason: "default mode",
    risk_level: "medium",
    offered_scopes: ["once", "session"],
    subjects: [],
    categories: [],
    commands: [],
  });

  it("holds prompts asked before the UI exists and hands them, and later ones, to the UI's answerer with their signal", async () => {
    const deferred = deferred_answerer();
    const early = deferred.answer(prompt(1));
    const asked: { question: string; signal: AbortSignal | undefined }[] = [];
    const allow: PromptAnswer = { answer: "allow", grant_scope: "once", resolved_by: "user" };
    deferred.forward_to({
      answer: async (p, signal) => {
        asked.push({ question: p.question, signal });
        return allow;
      },
    });
    const controller = new AbortController();
    expect(await early).toEqual(allow);
    expect(await deferred.answer(prompt(2), controller.signal)).toEqual(allow);
    expect(asked).toEqual([
      { question: "write file 1?", signal: undefined },
      { question: "write file 2?", signal: controller.signal },
    ]);
  });
});

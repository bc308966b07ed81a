/**
 * shell.run with real bash (DESIGN §6): command.* events with exit codes, the full output as
 * command_log artifacts, live deltas on the bus and to on_stream, a timeout that kills the whole process
 * group, cancellation, and an environment without credentials even when the parent has them.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RuntimeEvent } from "../../src/contracts/events/registry.js";
import { is_dropped_variable, scrub_env } from "../../src/tools/shell/env.js";
import { error_of, output_of, tool_harness, write, type ToolHarness } from "./helpers.js";

let h: ToolHarness;
beforeEach(() => {
  h = tool_harness();
});
afterEach(() => h.cleanup());

type RunOutput = {
  command_run_id: string;
  exit_code: number;
  stdout_tail: string;
  stderr_tail: string;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  stdout_bytes: number;
  stdout_artifact_id: string;
  stderr_artifact_id: string;
};

/**
 * Whether a process still runs. A killed orphan stays a zombie until its new parent reaps it, and some
 * containers' PID 1 reaps late: on Linux a zombie (state Z/X in /proc) counts as dead.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return true;
  }
}

async function until(check: () => boolean, timeout_ms = 10_000): Promise<void> {
  const deadline = Date.now() + timeout_ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function command_row(id: string) {
  return h.temp.session.connection.client.prepare("SELECT * FROM command_runs WHERE id = ?").get(id) as Record<string, unknown>;
}

describe("a command that exits", () => {
  it("records command.started → command.completed with exit code 0, artifacts, evidence and tool.completed", async () => {
    const outcome = await h.call("shell.run", { command: "echo out; echo err >&2" });
    const output = output_of<RunOutput>(outcome);
    expect(output).toMatchObject({ exit_code: 0, stdout_tail: "out\n", stderr_tail: "err\n", stdout_truncated: false });

    const started = h.events("command.started")[0]!.payload;
    expect(started).toMatchObject({ command_run_id: output.command_run_id, command: "echo out; echo err >&2", tool_run_id: outcome.tool_run_id });
    expect(started.cwd).toBe(fs.realpathSync(h.root));
    const completed = h.events("command.completed")[0]!.payload;
    expect(completed).toMatchObject({ command_run_id: output.command_run_id, exit_code: 0, stdout_artifact_id: output.stdout_artifact_id, stderr_artifact_id: output.stderr_artifact_id });

    expect(h.artifact_text(output.stdout_artifact_id)).toBe("out\n");
    expect(h.artifact_text(output.stderr_artifact_id)).toBe("err\n");
    const artifacts = h.artifacts();
    expect(artifacts.map((row) => [row.type, row.command_run_id, row.tool_run_id])).toEqual([
      ["command_log", output.command_run_id, outcome.tool_run_id],
      ["command_log", output.command_run_id, outcome.tool_run_id],
    ]);
    expect(command_row(output.command_run_id)).toMatchObject({ exit_code: 0, stdout_artifact_id: output.stdout_artifact_id });

    const tool_completed = h.events("tool.completed")[0]!.payload;
    expect(tool_completed.artifact_ids).toEqual([output.stdout_artifact_id, output.stderr_artifact_id]);
    expect(tool_completed.evidence_ids).toHaveLength(1);
    expect(h.events().map((event) => event.type).slice(1)).toEqual([
      "permission.decision.recorded",
      "tool.started",
      "command.started",
      "artifact.created",
      "artifact.created",
      "command.completed",
      "evidence.created",
      "tool.completed",
    ]);
    // shell commands are announced: the decision is announce_then_run and a progress notice went out
    expect(h.events("permission.decision.recorded")[0]!.payload.action).toBe("announce_then_run");
    expect(h.bus_events.some((event) => event.type === "tool.progress")).toBe(true);
  });

  it("a non-zero exit code is a completed command and a successful tool call", async () => {
    const output = output_of<RunOutput>(await h.call("shell.run", { command: "echo failing >&2; exit 3" }));
    expect(output.exit_code).toBe(3);
    expect(h.events("command.completed")[0]!.payload.exit_code).toBe(3);
    expect(h.events("command.failed")).toEqual([]);
    expect(command_row(output.command_run_id).exit_code).toBe(3);
  });

  it("runs bash (not sh) in the requested folder inside the project", async () => {
    fs.mkdirSync(path.join(h.root, "src"));
    const output = output_of<RunOutput>(await h.call("shell.run", { command: "pwd; echo ${BASH_VERSION:+bash}; [[ 1 == 1 ]] && echo ok", cwd: "src" }));
    expect(output.stdout_tail).toBe(`${fs.realpathSync(path.join(h.root, "src"))}\nbash\nok\n`);
  });

  it("a missing working folder is a tool error before any command starts", async () => {
    const error = error_of(await h.call("shell.run", { command: "true", cwd: "nope" }));
    expect(error.message).toMatch(/does not exist/);
    expect(h.events("command.started")).toEqual([]);
  });
});

describe("output", () => {
  it("the artifact holds the full output; the result holds a tail", async () => {
    const output = output_of<RunOutput>(await h.call("shell.run", { command: "seq 1 200000" }));
    const expected = Array.from({ length: 200_000 }, (_, index) => `${index + 1}\n`).join("");
    expect(h.artifact_text(output.stdout_artifact_id)).toBe(expected);
    expect(output.stdout_bytes).toBe(Buffer.byteLength(expected));
    expect(output.stdout_truncated).toBe(true);
    expect(output.stdout_tail.length).toBeLessThanOrEqual(8_000);
    expect(output.stdout_tail.endsWith("199999\n200000\n")).toBe(true);
  });

  it("deltas go to the bus and to on_stream, together the whole output, before command.completed", async () => {
    const chunks: unknown[] = [];
    const output = output_of<RunOutput>(
      await h.call("shell.run", { command: "for i in $(seq 1 50); do echo line $i; echo warn $i >&2; sleep 0.005; done" }, { on_stream: (chunk) => chunks.push(chunk) }),
    );
    const lines = (prefix: string) => Array.from({ length: 50 }, (_, index) => `${prefix} ${index + 1}\n`).join("");
    const joined = (type: string, events: RuntimeEvent[]) =>
      events
        .filter((event) => event.type === type)
        .map((event) => (event.payload as { command_run_id: string; chunk: string }))
        .filter((payload) => payload.command_run_id === output.command_run_id)
        .map((payload) => payload.chunk)
        .join("");
    expect(joined("command.stdout.delta", h.bus_events)).toBe(lines("line"));
    expect(joined("command.stderr.delta", h.bus_events)).toBe(lines("warn"));
    const streamed = chunks as { type: string; command_run_id: string; chunk: string }[];
    expect(streamed.filter((chunk) => chunk.type === "command.stdout").map((chunk) => chunk.chunk).join("")).toBe(lines("line"));
    expect(streamed.filter((chunk) => chunk.type === "command.stderr").map((chunk) => chunk.chunk).join("")).toBe(lines("warn"));
    const types = h.bus_events.map((event) => event.type);
    expect(types.lastIndexOf("command.stdout.delta")).toBeLessThan(types.indexOf("command.completed"));
    // ephemeral: nothing of the deltas is in the database
    expect(h.events("command.stdout.delta", "command.stderr.delta")).toEqual([]);
  });
});

describe("stopping commands", () => {
  it("a timeout kills the whole process group (SIGTERM) and records command.failed + tool.failed", async () => {
    const outcome = await h.call("shell.run", { command: "sleep 30 & echo $! > bg.pid; echo started; sleep 30", timeout_ms: 500 });
    const error = error_of(outcome);
    expect(error.kind).toBe("command_error");
    expect(error.message).toMatch(/timed out after 500 ms/);
    expect(error.metadata).toMatchObject({ stdout_tail: "started\n" });
    const background = Number(fs.readFileSync(path.join(h.root, "bg.pid"), "utf8"));
    await until(() => !alive(background));

    const failed = h.events("command.failed")[0]!.payload;
    expect(failed).toMatchObject({ cancelled: false, signal: "SIGTERM" });
    expect(h.artifact_text(String(failed.stdout_artifact_id))).toBe("started\n");
    expect(h.tool_runs()[0]).toMatchObject({ status: "error" });
    expect(command_row(String(failed.command_run_id)).completed_at).toBeTruthy();
  });

  it("a command that ignores SIGTERM gets SIGKILL after the grace period", async () => {
    const started = Date.now();
    const stubborn = "require('fs').writeFileSync('stubborn.pid', process.pid + '\\n'); process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)";
    // a project script, not `node -e`: the CommandRiskAnalyzer asks before inline code it cannot read
    fs.writeFileSync(path.join(h.root, "stubborn.js"), `${stubborn}\n`);
    const outcome = await h.call("shell.run", { command: "node stubborn.js", timeout_ms: 1_000 });
    expect(error_of(outcome).message).toMatch(/timed out/);
    expect(Date.now() - started).toBeLessThan(15_000);
    const node = Number(fs.readFileSync(path.join(h.root, "stubborn.pid"), "utf8"));
    await until(() => !alive(node));
    expect(h.events("command.failed")[0]!.payload.signal).toBe("SIGKILL");
  });

  it("what a finished command left running in the background is stopped", async () => {
    const output = output_of<RunOutput>(await h.call("shell.run", { command: "sleep 30 & echo $! > bg.pid; echo done" }));
    expect(output.exit_code).toBe(0);
    const background = Number(fs.readFileSync(path.join(h.root, "bg.pid"), "utf8"));
    await until(() => !alive(background));
  });

  it("cancellation through the signal kills the command and records tool.cancelled", async () => {
    const controller = new AbortController();
    const pending = h.call("shell.run", { command: "echo $$ > shell.pid; sleep 30" }, { signal: controller.signal });
    await until(() => fs.existsSync(path.join(h.root, "shell.pid")) && fs.readFileSync(path.join(h.root, "shell.pid"), "utf8").endsWith("\n"));
    controller.abort("user pressed escape");
    const outcome = await pending;
    const error = error_of(outcome);
    expect(error.metadata).toMatchObject({ cancelled: true });
    expect(error.message).toContain("user pressed escape");
    expect(h.events("command.failed")[0]!.payload).toMatchObject({ cancelled: true });
    expect(h.events("tool.cancelled")[0]!.payload).toMatchObject({ tool_run_id: outcome.tool_run_id, reason: "user pressed escape" });
    expect(h.tool_runs()[0]).toMatchObject({ status: "cancelled" });
    const shell = Number(fs.readFileSync(path.join(h.root, "shell.pid"), "utf8"));
    await until(() => !alive(shell));
  });
});

describe("environment", () => {
  const planted: Record<string, string> = {
    ANTHROPIC_API_KEY: "sk-ant-planted-1",
    ANTHROPIC_BASE_URL: "http://planted.invalid",
    OPENAI_API_KEY: "sk-planted-2",
    OPENAI_ORG_ID: "org-planted",
    GITHUB_TOKEN: "ghp_planted",
    MY_SERVICE_SECRET: "planted-secret",
    DEEPL_API_KEY: "planted-key",
    GIT_DIR: "/planted/git-dir",
    GIT_CONFIG_PARAMETERS: "'core.fsmonitor=/planted/evil'",
    npm_config_registry: "http://planted.invalid/registry",
    NODE_OPTIONS: "--require /planted/evil.js",
    AIR_TEST_HARMLESS: "kept",
  };
  let saved: Record<string, string | undefined>;

  beforeEach(() => {
    saved = Object.fromEntries(Object.keys(planted).map((name) => [name, process.env[name]]));
    Object.assign(process.env, planted);
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    delete process.env.BASH_ENV;
  });

  it("holds no credential, GIT_* or npm_config_* variable even when the parent has them", async () => {
    const output = output_of<RunOutput>(await h.call("shell.run", { command: "env" }));
    const text = h.artifact_text(output.stdout_artifact_id);
    for (const [name, value] of Object.entries(planted)) {
      if (name === "AIR_TEST_HARMLESS") continue;
      expect(text, name).not.toContain(`${name}=`);
      expect(text, name).not.toContain(value);
    }
    expect(text).toContain("AIR_TEST_HARMLESS=kept");
    expect(text).toMatch(/^PATH=/m);
  });

  it("BASH_ENV is not honoured (no code runs before the command)", async () => {
    const marker = path.join(h.outside, "bash-env-ran");
    const rc = write(h.outside, "evil-rc.sh", `touch ${marker}\n`);
    process.env.BASH_ENV = rc;
    output_of(await h.call("shell.run", { command: "true" }));
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("the scrub rules", () => {
    for (const name of ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "X_API_KEY", "SLACK_TOKEN", "APP_SECRET", "GIT_SSH_COMMAND", "npm_config_userconfig", "BASH_FUNC_foo%%", "LD_PRELOAD", "SSH_AUTH_SOCK"]) {
      expect(is_dropped_variable(name), name).toBe(true);
    }
    for (const name of ["PATH", "HOME", "LANG", "TERM", "USER", "TOKENIZERS_PARALLELISM", "SECRETARY"]) {
      expect(is_dropped_variable(name), name).toBe(false);
    }
    expect(scrub_env({ PATH: "/bin", OPENAI_API_KEY: "x", EMPTY: undefined })).toEqual({ PATH: "/bin" });
  });
});

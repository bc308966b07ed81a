/**
 * shell.run with real bash (DESIGN §6): command.* events with exit codes, the full output as
 * command_log artifacts, live deltas on the bus and to on_stream, a timeout that kills the whole process
 * group, cancellation, and an environment without credentials even when the parent has them.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import type { RuntimeEvent } from "../../src/contracts/events/registry.js";
import { effects_of } from "../../src/contracts/tool.js";
import { neutral_git_env } from "../../src/tools/git/neutral-config.js";
import { is_dropped_variable, scrub_env } from "../../src/tools/shell/env.js";
import { bwrap_probe } from "../../src/tools/shell/sandbox.js";
import { ALLOW_ONCE } from "../fixtures/permissions.js";
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
    expect(completed).toMatchObject({
      command_run_id: output.command_run_id,
      exit_code: 0,
      stdout_artifact_id: output.stdout_artifact_id,
      stderr_artifact_id: output.stderr_artifact_id,
    });

    expect(h.artifact_text(output.stdout_artifact_id)).toBe("out\n");
    expect(h.artifact_text(output.stderr_artifact_id)).toBe("err\n");
    const artifacts = h.artifacts();
    expect(artifacts.map((row) => [row.type, row.command_run_id, row.tool_run_id])).toEqual([
      ["command_log", output.command_run_id, outcome.tool_run_id],
      ["command_log", output.command_run_id, outcome.tool_run_id],
    ]);
    expect(command_row(output.command_run_id)).toMatchObject({ exit_code: 0, stdout_artifact_id: output.stdout_artifact_id });
    expect(effects_of(outcome)).toEqual({
      changed_files: [],
      diff_artifact_ids: [],
      command_runs: [
        {
          command_run_id: output.command_run_id,
          command: "echo out; echo err >&2",
          exit_code: 0,
          duration_ms: expect.any(Number),
          stdout_artifact_id: output.stdout_artifact_id,
          stderr_artifact_id: output.stderr_artifact_id,
        },
      ],
      commits: [],
    });

    const tool_completed = h.events("tool.completed")[0]!.payload;
    expect(tool_completed.artifact_ids).toEqual([output.stdout_artifact_id, output.stderr_artifact_id]);
    expect(tool_completed.evidence_ids).toHaveLength(1);
    expect(
      h
        .events()
        .map((event) => event.type)
        .slice(1),
    ).toEqual([
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
      await h.call(
        "shell.run",
        { command: "for i in $(seq 1 50); do echo line $i; echo warn $i >&2; sleep 0.005; done" },
        { on_stream: (chunk) => chunks.push(chunk) },
      ),
    );
    const lines = (prefix: string) => Array.from({ length: 50 }, (_, index) => `${prefix} ${index + 1}\n`).join("");
    const joined = (type: string, events: RuntimeEvent[]) =>
      events
        .filter((event) => event.type === type)
        .map((event) => event.payload as { command_run_id: string; chunk: string })
        .filter((payload) => payload.command_run_id === output.command_run_id)
        .map((payload) => payload.chunk)
        .join("");
    expect(joined("command.stdout.delta", h.bus_events)).toBe(lines("line"));
    expect(joined("command.stderr.delta", h.bus_events)).toBe(lines("warn"));
    const streamed = chunks as { type: string; command_run_id: string; chunk: string }[];
    expect(
      streamed
        .filter((chunk) => chunk.type === "command.stdout")
        .map((chunk) => chunk.chunk)
        .join(""),
    ).toBe(lines("line"));
    expect(
      streamed
        .filter((chunk) => chunk.type === "command.stderr")
        .map((chunk) => chunk.chunk)
        .join(""),
    ).toBe(lines("warn"));
    const types = h.bus_events.map((event) => event.type);
    expect(types.lastIndexOf("command.stdout.delta")).toBeLessThan(types.indexOf("command.completed"));
    // ephemeral: nothing of the deltas is in the database
    expect(h.events("command.stdout.delta", "command.stderr.delta")).toEqual([]);
  });
});

/**
 * Live processes (zombies excluded) whose command line contains `token`. Inside the sandbox a command
 * sees the pid namespace's own pids, so the tests find its processes by a word of their command line.
 */
function processes_with(token: string): number[] {
  return fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(token) && alive(pid);
      } catch {
        return false;
      }
    });
}

/** A `sleep` duration no other process on the machine has in its command line. */
function unique_sleep(): string {
  return `30.${Math.floor(Math.random() * 1e9)}`;
}

const probe = bwrap_probe();

function stopping_specs(mode: "off" | "bwrap"): void {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.AIR_SANDBOX;
    process.env.AIR_SANDBOX = mode;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.AIR_SANDBOX;
    else process.env.AIR_SANDBOX = saved;
  });

  it("a timeout kills every process of the command (SIGTERM) and records command.failed + tool.failed", async () => {
    const sleep = unique_sleep();
    const outcome = await h.call("shell.run", { command: `sleep ${sleep} & echo started; sleep ${sleep}`, timeout_ms: 500 });
    const error = error_of(outcome);
    expect(error.kind).toBe("command_error");
    expect(error.message).toMatch(/timed out after 500 ms/);
    expect(error.metadata).toMatchObject({ stdout_tail: "started\n", sandbox: mode === "off" ? "none" : "bwrap" });
    await until(() => processes_with(sleep).length === 0);

    const failed = h.events("command.failed")[0]!.payload;
    expect(failed).toMatchObject({ cancelled: false, signal: "SIGTERM" });
    expect(h.artifact_text(String(failed.stdout_artifact_id))).toBe("started\n");
    expect(h.tool_runs()[0]).toMatchObject({ status: "error" });
    expect(command_row(String(failed.command_run_id)).completed_at).toBeTruthy();
    // The command ran though the call failed: its run is among the call's effects, without an exit code.
    expect(effects_of(outcome).command_runs).toEqual([
      expect.objectContaining({ command_run_id: failed.command_run_id, exit_code: null, stdout_artifact_id: failed.stdout_artifact_id }),
    ]);
  });

  it("a command that ignores SIGTERM gets SIGKILL after the grace period", async () => {
    const started = Date.now();
    const token = `stubborn-${unique_sleep()}`;
    const stubborn = "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)";
    // a project script, not `node -e`: the CommandRiskAnalyzer asks before inline code it cannot read
    fs.writeFileSync(path.join(h.root, "stubborn.js"), `${stubborn}\n`);
    const outcome = await h.call("shell.run", { command: `node stubborn.js ${token}`, timeout_ms: 1_000 });
    expect(error_of(outcome).message).toMatch(/timed out/);
    expect(error_of(outcome).metadata).toMatchObject({ stdout_tail: "ready\n" });
    expect(Date.now() - started).toBeLessThan(15_000);
    await until(() => processes_with(token).length === 0);
    expect(h.events("command.failed")[0]!.payload.signal).toBe("SIGKILL");
  });

  it("what a finished command left running in the background is stopped", async () => {
    const sleep = unique_sleep();
    const output = output_of<RunOutput>(await h.call("shell.run", { command: `sleep ${sleep} & echo done` }));
    expect(output).toMatchObject({ exit_code: 0, sandbox: mode === "off" ? "none" : "bwrap" });
    await until(() => processes_with(sleep).length === 0);
  });

  it("cancellation through the signal kills the command and records tool.cancelled", async () => {
    const controller = new AbortController();
    const sleep = unique_sleep();
    const chunks: string[] = [];
    const pending = h.call(
      "shell.run",
      { command: `echo started; sleep ${sleep}` },
      { signal: controller.signal, on_stream: (chunk) => chunks.push((chunk as { chunk: string }).chunk) },
    );
    await until(() => chunks.join("").includes("started") && processes_with(sleep).length > 0);
    controller.abort("user pressed escape");
    const outcome = await pending;
    const error = error_of(outcome);
    expect(error.metadata).toMatchObject({ cancelled: true });
    expect(error.message).toContain("user pressed escape");
    expect(h.events("command.failed")[0]!.payload).toMatchObject({ cancelled: true });
    expect(h.events("tool.cancelled")[0]!.payload).toMatchObject({ tool_run_id: outcome.tool_run_id, reason: "user pressed escape" });
    expect(h.tool_runs()[0]).toMatchObject({ status: "cancelled" });
    expect(effects_of(outcome).command_runs).toEqual([expect.objectContaining({ command: `echo started; sleep ${sleep}`, exit_code: null })]);
    await until(() => processes_with(sleep).length === 0);
  });
}

describe("stopping commands, unsandboxed (AIR_SANDBOX=off)", () => stopping_specs("off"));

describe.skipIf(!probe.ok)(`stopping commands in the bwrap sandbox${probe.ok ? "" : ` (skipped: ${probe.error})`}`, () => {
  stopping_specs("bwrap");

  it("a process that left the command's session dies with the sandbox on timeout", async () => {
    h.cleanup();
    h = tool_harness({ answerer: ALLOW_ONCE });
    const sleep = unique_sleep();
    const outcome = await h.call("shell.run", { command: `setsid sleep ${sleep} & echo started; sleep ${sleep}`, timeout_ms: 500 });
    expect(error_of(outcome).message).toMatch(/timed out/);
    await until(() => processes_with(sleep).length === 0);
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
    GIT_CONFIG_KEY_0: "core.planted",
    GIT_CONFIG_VALUE_0: "/planted/fsmonitor",
    GIT_EXEC_PATH: "/planted/git-exec",
    npm_config_registry: "http://planted.invalid/registry",
    NPM_CONFIG_USERCONFIG: "/planted/npmrc",
    YARN_YARN_PATH: "/planted/yarn.js",
    YARN_RC_FILENAME: "planted.yarnrc",
    PNPM_CONFIG_REGISTRY: "http://planted.invalid/pnpm",
    NODE_OPTIONS: "--require /planted/evil.js",
    PYTHONSTARTUP: "/planted/startup.py",
    PYTHONWARNINGS: "ignore::planted.Module",
    PERL5OPT: "-Mplanted",
    RUBYOPT: "-rplanted",
    JAVA_TOOL_OPTIONS: "-javaagent:/planted/agent.jar",
    _JAVA_OPTIONS: "-javaagent:/planted/agent2.jar",
    JDK_JAVA_OPTIONS: "-javaagent:/planted/agent3.jar",
    GCONV_PATH: "/planted/gconv",
    LD_PRELOAD: "/planted/libevil.so",
    LD_AUDIT: "/planted/libaudit.so",
    LD_BIND_NOW: "planted-bind-now",
    LESSOPEN: "|/planted/lesspipe %s",
    SSH_ASKPASS: "/planted/askpass",
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

  it("holds no credential and no injected configuration or code even when the parent has them", async () => {
    // `env` alone asks (an environment dump); a project script that runs it is announced and runs
    write(h.root, "show-env.sh", "env\n");
    const output = output_of<RunOutput>(await h.call("shell.run", { command: "sh show-env.sh" }));
    const text = h.artifact_text(output.stdout_artifact_id);
    const neutral = neutral_git_env();
    for (const [name, value] of Object.entries(planted)) {
      if (name === "AIR_TEST_HARMLESS") continue;
      // the neutral git configuration sets some of the same names, to its own values
      if (!(name in neutral)) expect(text, name).not.toContain(`${name}=`);
      expect(text, name).not.toContain(value);
    }
    expect(text).toContain("AIR_TEST_HARMLESS=kept");
    for (const [name, value] of Object.entries(neutral)) expect(text, name).toContain(`${name}=${value}\n`);
    expect(text).toMatch(/^PATH=/m);
  });

  it("NODE_OPTIONS of the parent does not preload code into a node the command starts", async () => {
    const marker = path.join(h.outside, "node-options-ran");
    const evil = write(h.outside, "evil.cjs", `require("fs").writeFileSync(${JSON.stringify(marker)}, "ran")\n`);
    process.env.NODE_OPTIONS = `--require ${evil}`;
    write(h.root, "hello.js", "console.log('hello')\n");
    const output = output_of<RunOutput>(await h.call("shell.run", { command: "node hello.js" }));
    expect(output.stdout_tail).toBe("hello\n");
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("BASH_ENV is not honoured (no code runs before the command)", async () => {
    const marker = path.join(h.outside, "bash-env-ran");
    const rc = write(h.outside, "evil-rc.sh", `touch ${marker}\n`);
    process.env.BASH_ENV = rc;
    output_of(await h.call("shell.run", { command: "true" }));
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("the scrub rules", () => {
    const dropped = [
      ...["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "X_API_KEY", "SLACK_TOKEN", "APP_SECRET"],
      ...["GIT_SSH_COMMAND", "GIT_DIR", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL"],
      ...["npm_config_userconfig", "NPM_CONFIG_USERCONFIG", "npm_execpath", "YARN_YARN_PATH", "YARN_RC_FILENAME", "PNPM_HOME", "pnpm_config_registry"],
      ...["BASH_ENV", "ENV", "BASH_FUNC_foo%%", "PS4", "NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONWARNINGS", "PERL5OPT", "PERL5DB", "RUBYOPT"],
      ...["JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "GCONV_PATH", "LESSOPEN", "SSH_ASKPASS", "SUDO_ASKPASS"],
      ...["LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH", "LD_BIND_NOW", "LD_DEBUG_OUTPUT", "DYLD_INSERT_LIBRARIES", "SSH_AUTH_SOCK"],
    ];
    for (const name of dropped) {
      expect(is_dropped_variable(name), name).toBe(true);
    }
    for (const name of [
      "PATH",
      "HOME",
      "LANG",
      "TERM",
      "USER",
      "TOKENIZERS_PARALLELISM",
      "SECRETARY",
      "PYTHONPATH",
      "OLD_PRELOAD",
      "CC",
      "CXX",
      "CMAKE_BUILD_TYPE",
    ]) {
      expect(is_dropped_variable(name), name).toBe(false);
    }
    expect(scrub_env({ PATH: "/bin", OPENAI_API_KEY: "x", EMPTY: undefined })).toEqual({ PATH: "/bin" });
  });
});

describe("git inside a command", () => {
  /** Where the planted programs report that they ran. */
  let marker: string;

  /** The project as a repository with one commit, whose .git/config then names `evil` for each key. */
  function hostile_repository(keys: string[]): void {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: h.root, env: scrub_env(process.env), stdio: "pipe" });
    git("init", "-q");
    write(h.root, ".git/info/exclude", ".air/\n");
    git("config", "user.name", "fixture");
    git("config", "user.email", "fixture@example.invalid");
    write(h.root, "file.txt", "one\n");
    git("add", "file.txt");
    git("commit", "-q", "-m", "one");
    const evil = write(h.outside, "evil.sh", `#!/bin/sh\necho "$0 $*" >> ${marker}\ncat\n`);
    fs.chmodSync(evil, 0o755);
    for (const key of keys) git("config", key, evil);
  }

  // git var, git config and git commit are not read-only commands: the user answers their prompt yes.
  beforeEach(() => {
    h.cleanup();
    h = tool_harness({ answerer: ALLOW_ONCE });
    marker = path.join(h.outside, "git-config-ran");
  });

  it("a repository's core.fsmonitor does not run on git status", async () => {
    hostile_repository(["core.fsmonitor"]);
    write(h.root, "file.txt", "two\n");
    const output = output_of<RunOutput>(await h.call("shell.run", { command: "git status --porcelain" }));
    expect(output.stdout_tail).toBe(" M file.txt\n");
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a repository's core.pager is not the pager git would start, and git log runs none", async () => {
    hostile_repository(["core.pager", "pager.log"]);
    const output = output_of<RunOutput>(await h.call("shell.run", { command: "git var GIT_PAGER; git log --oneline" }));
    expect(output.stdout_tail).toMatch(/^cat\n[0-9a-f]+ one\n$/);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a repository's core.editor and core.sshCommand are not what git would run", async () => {
    hostile_repository(["core.editor", "core.sshCommand"]);
    const output = output_of<RunOutput>(await h.call("shell.run", { command: "git var GIT_EDITOR; git config --get core.sshCommand" }));
    expect(output.stdout_tail).toBe("true\nssh\n");
  });

  it("a pre-commit hook in .git/hooks and a core.hooksPath hook do not run on git commit (unsandboxed: the sandbox keeps .git read-only)", async () => {
    const saved = process.env.AIR_SANDBOX;
    process.env.AIR_SANDBOX = "off";
    onTestFinished(() => {
      if (saved === undefined) delete process.env.AIR_SANDBOX;
      else process.env.AIR_SANDBOX = saved;
    });
    hostile_repository([]);
    for (const hook of [
      write(h.root, ".git/hooks/pre-commit", `#!/bin/sh\necho hook >> ${marker}\n`),
      write(h.outside, "hooks/pre-commit", `#!/bin/sh\necho hooks-path >> ${marker}\n`),
    ]) {
      fs.chmodSync(hook, 0o755);
    }
    execFileSync("git", ["config", "core.hooksPath", path.join(h.outside, "hooks")], { cwd: h.root, env: scrub_env(process.env) });
    write(h.root, "file.txt", "two\n");
    const output = output_of<RunOutput>(await h.call("shell.run", { command: "git commit -q -am two && git log --oneline | wc -l" }));
    expect(output.stdout_tail.trim()).toBe("2");
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("GIT_DIR and GIT_CONFIG_* of the parent do not redirect git or bring a configuration back", async () => {
    hostile_repository([]);
    const elsewhere = path.join(h.outside, "elsewhere.git");
    execFileSync("git", ["init", "-q", "--bare", elsewhere], { env: scrub_env(process.env) });
    const evil = write(h.outside, "fsmonitor.sh", `#!/bin/sh\necho fsmonitor >> ${marker}\n`);
    fs.chmodSync(evil, 0o755);
    const saved = { ...process.env };
    Object.assign(process.env, {
      GIT_DIR: elsewhere,
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "core.fsmonitor",
      GIT_CONFIG_VALUE_0: evil,
      GIT_CONFIG_PARAMETERS: `'core.fsmonitor=${evil}'`,
    });
    try {
      write(h.root, "file.txt", "two\n");
      const output = output_of<RunOutput>(await h.call("shell.run", { command: "git status --porcelain; git rev-parse --git-dir" }));
      expect(output.stdout_tail).toBe(" M file.txt\n.git\n");
    } finally {
      for (const name of ["GIT_DIR", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0", "GIT_CONFIG_PARAMETERS"]) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
    expect(fs.existsSync(marker)).toBe(false);
  });
});

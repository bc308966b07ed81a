/**
 * The first-run wizard end to end: the real built `air init` in a pseudo-terminal (util-linux `script`),
 * driven by keys the way a person would, against the scripted model server. A complete run writes valid
 * files; Ctrl+C at any step leaves AIR_HOME and the project byte-identical; the key is in no file but
 * credentials.yaml, and never on the screen.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import YAML from "yaml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AirConfigFile } from "../../src/cli/wizard/air-config.js";
import { PermissionsFile } from "../../src/permissions/policy.js";
import { load_provider_settings } from "../../src/providers/config.js";
import { CredentialsFile } from "../../src/providers/credentials-file.js";
import { ModelsFile } from "../../src/providers/models-file.js";
import { start_scripted_server, type ScriptedServer } from "../../src/providers/scripted/server.js";
import { AIR_BIN, air_env, pids_with_cmdline, require_build, temp_dir, wait_until } from "./helpers.js";

const KEY = "sk-ant-wizard-e2e-key-31415926535";
const MODELS = ["claude-haiku-4-5", "claude-sonnet-4-5"];
/** A models.yaml that corrects a capability but sets no provider up: the wizard is still due, and must keep it. */
const EXISTING_MODELS = "models:\n  my-local-model:\n    context_window: 32768\n";

const KEYS = { enter: "\r", down: "\u001b[B", ctrl_c: "\u0003", backspace: "\u007f" } as const;

/** `air init` in a pseudo-terminal of 120 × 50 (without a size, clack wraps every character). */
class PtyAir {
  readonly #child: ChildProcessWithoutNullStreams;
  #raw = "";
  readonly exited: Promise<number | null>;

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    const command = `stty cols 120 rows 50 && exec ${JSON.stringify(process.execPath)} ${JSON.stringify(AIR_BIN)} init`;
    this.#child = spawn("script", ["-qfec", command, "/dev/null"], { cwd, env: { ...env, TERM: "xterm-256color" } });
    this.#child.stdout.on("data", (chunk: Buffer) => (this.#raw += chunk.toString("utf8")));
    this.#child.stderr.on("data", (chunk: Buffer) => (this.#raw += chunk.toString("utf8")));
    this.exited = new Promise((resolve) => this.#child.on("close", (code) => resolve(code)));
  }

  /** Everything shown so far, without colours and cursor moves. */
  screen(): string {
    return this.#raw.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "").replace(/\u001b\][^\u0007]*\u0007/g, "");
  }

  /** Waits until `text` shows after what was on the screen when the last key was sent. */
  async wait_for(text: string, timeout_ms = 20_000): Promise<void> {
    const from = this.#mark;
    const deadline = Date.now() + timeout_ms;
    while (!this.screen().slice(from).includes(text)) {
      if (Date.now() > deadline) throw new Error(`"${text}" did not show; the screen:\n${this.screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  #mark = 0;

  press(...keys: string[]): void {
    this.#mark = this.screen().length;
    this.#child.stdin.write(keys.join(""));
  }

  /**
   * Whether air (the process working in `cwd`) holds the terminal in raw mode: until then a key may be read
   * by the terminal's line discipline (a Ctrl+C is a SIGINT, Enter a newline) rather than by air.
   */
  raw(cwd: string): boolean {
    // `script` and its shell name air's binary too, and work in the same folder; only air reads the terminal.
    return pids_with_cmdline(AIR_BIN).some((pid) => {
      try {
        if (fs.readlinkSync(`/proc/${pid}/cwd`) !== cwd) return false;
        const settings = spawnSync("stty", ["-F", fs.readlinkSync(`/proc/${pid}/fd/0`), "-a"], { encoding: "utf8" });
        return settings.status === 0 && /(^|\s)-icanon(\s|$)/.test(settings.stdout);
      } catch {
        return false;
      }
    });
  }

  kill(): void {
    this.#child.kill("SIGKILL");
  }
}

/** Every file and folder under `dir`: relative path → mode and sha256 of the bytes ("dir" for a folder). */
function snapshot(dir: string): Record<string, string> {
  if (!fs.existsSync(dir)) return {};
  const entries: Record<string, string> = {};
  for (const relative of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const full = path.join(dir, relative);
    const stat = fs.lstatSync(full);
    entries[relative] = stat.isDirectory()
      ? `dir ${(stat.mode & 0o777).toString(8)}`
      : `${(stat.mode & 0o777).toString(8)} ${crypto.createHash("sha256").update(fs.readFileSync(full)).digest("hex")}`;
  }
  return entries;
}

/** Files under `dir` whose bytes contain `needle`. */
function files_containing(dir: string, needle: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((relative) => fs.statSync(path.join(dir, relative)).isFile() && fs.readFileSync(path.join(dir, relative)).includes(needle))
    .sort();
}

function parse_yaml<S extends v.GenericSchema>(schema: S, file: string): v.InferOutput<S> {
  return v.parse(schema, YAML.parse(fs.readFileSync(file, "utf8")));
}

let work: ReturnType<typeof temp_dir>;
let project: string;
let air_home: string;
let server: ScriptedServer;
let running: PtyAir[];

beforeEach(async () => {
  require_build();
  work = temp_dir("air-e2e-wizard-");
  project = path.join(work.dir, "project");
  air_home = path.join(work.dir, "air-home");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "README.md"), "# a project\n");
  fs.mkdirSync(air_home);
  fs.writeFileSync(path.join(air_home, "models.yaml"), EXISTING_MODELS);
  server = await start_scripted_server({ script: { turns: {} }, api_key: KEY, models: MODELS });
  running = [];
});
afterEach(async () => {
  for (const pty of running) pty.kill();
  await server.close();
  work.cleanup();
});

/** No provider of the machine running the tests leaks in; Anthropic requests go to the scripted server. */
function wizard_env(): NodeJS.ProcessEnv {
  const env = air_env(air_home, { ANTHROPIC_BASE_URL: server.url });
  for (const name of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENROUTER_API_KEY", "AIR_PROVIDER", "CI"]) delete env[name];
  return env;
}

function start(): PtyAir {
  const pty = new PtyAir(project, wizard_env());
  running.push(pty);
  return pty;
}

type Step = { readonly prompt: string; readonly answer: readonly string[] };

/** Anthropic with a typed key, the second model of the list, accept-edits. */
const ANTHROPIC_STEPS: readonly Step[] = [
  { prompt: "Which model provider?", answer: [KEYS.enter] },
  { prompt: "API key", answer: [KEY, KEYS.enter] },
  { prompt: "Which model?", answer: [KEYS.enter] },
  { prompt: "Default permission mode", answer: [KEYS.down, KEYS.enter] },
];

/** Another OpenAI-compatible server at a typed URL, no key, the first model, default mode. */
function compatible_steps(base_url: string): Step[] {
  return [
    { prompt: "Which model provider?", answer: [...Array<string>(6).fill(KEYS.down), KEYS.enter] },
    { prompt: "base URL", answer: [...Array<string>(40).fill(KEYS.backspace), base_url, KEYS.enter] },
    { prompt: "API key (leave empty", answer: [KEYS.enter] },
    { prompt: "Which model?", answer: [KEYS.enter] },
    { prompt: "Default permission mode", answer: [KEYS.enter] },
  ];
}

async function run_steps(pty: PtyAir, steps: readonly Step[]): Promise<void> {
  for (const step of steps) {
    await pty.wait_for(step.prompt);
    pty.press(...step.answer);
  }
}

describe("air init in a terminal with no provider set up", () => {
  it("a complete run writes valid config files, the key only in credentials.yaml (0600), and the project's starter files", async () => {
    const pty = start();
    await run_steps(pty, ANTHROPIC_STEPS);
    await pty.wait_for("Initialised air project");

    expect(await pty.exited, pty.screen()).toBe(0);
    expect(pty.screen()).toContain("Connected: 2 models");
    expect(pty.screen()).not.toContain(KEY);
    const config = parse_yaml(AirConfigFile, path.join(air_home, "config.yaml"));
    expect(config).toEqual({ version: 1, provider: "anthropic", model: "claude-sonnet-4-5", permission_mode: "accept-edits" });
    const models = parse_yaml(ModelsFile, path.join(air_home, "models.yaml"));
    expect(models.providers?.anthropic).toEqual({ auth_ref: "anthropic", default_model: "claude-sonnet-4-5" });
    expect(models.models).toEqual({ "my-local-model": { context_window: 32768 } });
    expect(parse_yaml(CredentialsFile, path.join(air_home, "credentials.yaml")).keys).toEqual({ anthropic: KEY });
    expect(fs.statSync(path.join(air_home, "credentials.yaml")).mode & 0o777).toBe(0o600);
    expect(parse_yaml(PermissionsFile, path.join(air_home, "permissions.yaml")).mode).toBe("accept-edits");
    expect(parse_yaml(PermissionsFile, path.join(project, ".air", "shared", "permissions.yaml")).ask).toEqual([{ command: "git push*" }]);
    expect(fs.readFileSync(path.join(project, ".air", "shared", "rules", "project.md"), "utf8")).toContain("# Project rules");
    expect(fs.existsSync(path.join(project, ".air", "shared", "project.json"))).toBe(true);
    expect(files_containing(air_home, KEY)).toEqual(["credentials.yaml"]);
    expect(files_containing(project, KEY)).toEqual([]);
    // What the runtime reads back: the stored key, through auth_ref.
    const settings = load_provider_settings({ env: { AIR_HOME: air_home }, home: air_home });
    expect(settings.api_key?.reveal()).toBe(KEY);
    expect(settings.model_id).toBe("claude-sonnet-4-5");
  });

  it("sets up an OpenAI-compatible server at a typed URL without a key, checked through its model list", async () => {
    const keyless = await start_scripted_server({ script: { turns: {} }, models: ["qwen2.5-coder:7b"] });
    try {
      const pty = start();
      await run_steps(pty, compatible_steps(`${keyless.url}/v1`));
      await pty.wait_for("Initialised air project");

      expect(await pty.exited, pty.screen()).toBe(0);
      const models = parse_yaml(ModelsFile, path.join(air_home, "models.yaml"));
      expect(models.default_provider).toBe("openai_compatible");
      expect(models.providers?.openai_compatible).toEqual({ base_url: `${keyless.url}/v1`, default_model: "qwen2.5-coder:7b" });
      expect(fs.existsSync(path.join(air_home, "credentials.yaml"))).toBe(false);
      expect(keyless.requests().map((request) => `${request.method} ${request.path}`)).toEqual(["GET /v1/models"]);
    } finally {
      await keyless.close();
    }
  });

  it("asks for the key again when the server refuses it, and stores only the accepted one", async () => {
    const wrong = "sk-ant-wizard-wrong-key-2718281828";
    const pty = start();
    await run_steps(pty, [
      ANTHROPIC_STEPS[0]!,
      { prompt: "API key", answer: [wrong, KEYS.enter] },
      { prompt: "The connection test failed", answer: [KEYS.enter] },
      ...ANTHROPIC_STEPS.slice(1),
    ]);
    await pty.wait_for("Initialised air project");

    expect(await pty.exited, pty.screen()).toBe(0);
    expect(pty.screen()).toContain("does not accept this key");
    expect(pty.screen()).not.toContain(wrong);
    expect(parse_yaml(CredentialsFile, path.join(air_home, "credentials.yaml")).keys).toEqual({ anthropic: KEY });
    expect([...files_containing(air_home, wrong), ...files_containing(project, wrong)]).toEqual([]);
  });

  it("the offline demo lists the scripted server's model, records the setup in config.yaml only, then opens air demo to its summary", async () => {
    const pty = start();
    await run_steps(pty, [
      { prompt: "Which model provider?", answer: [...Array<string>(7).fill(KEYS.down), KEYS.enter] },
      { prompt: "Which model?", answer: [KEYS.enter] },
      { prompt: "Default permission mode", answer: [KEYS.enter] },
    ]);
    await pty.wait_for("Initialised air project");
    await pty.wait_for("air demo: the TUI on a copy of the");
    const taking_keys = () => wait_until("air demo to put its terminal in raw mode", () => pty.raw(project), 30_000, 50);
    await taking_keys();
    pty.press(KEYS.enter);
    await pty.wait_for("Allow once", 60_000);
    pty.press("y");
    await pty.wait_for("is completed", 120_000);
    await taking_keys();
    pty.press(KEYS.ctrl_c);
    await pty.wait_for("Press Ctrl+C again to exit");
    pty.press(KEYS.ctrl_c);

    expect(await pty.exited, pty.screen()).toBe(0);
    expect(pty.screen()).toContain("Opening the offline demo (air demo)");
    const copy = /Removed the demo's copy at (\S+)/.exec(pty.screen())?.[1];
    expect(copy).toBeDefined();
    expect(fs.existsSync(copy!)).toBe(false);
    expect(parse_yaml(AirConfigFile, path.join(air_home, "config.yaml"))).toEqual({
      version: 1,
      provider: "scripted_demo",
      model: "scripted-model",
      permission_mode: "default",
    });
    expect(fs.readFileSync(path.join(air_home, "models.yaml"), "utf8")).toBe(EXISTING_MODELS);
    expect(fs.existsSync(path.join(air_home, "credentials.yaml"))).toBe(false);
  }, 240_000);

  const cancel_points = [
    ...ANTHROPIC_STEPS.map((step, index) => ({ route: "anthropic", prompt: step.prompt, steps: () => ANTHROPIC_STEPS, index })),
    { route: "openai-compatible", prompt: "base URL", steps: () => compatible_steps(`${server.url}/v1`), index: 1 },
  ];

  for (const { route, prompt, steps, index } of cancel_points) {
    it(`Ctrl+C at "${prompt}" (${route}) writes nothing: AIR_HOME and the project stay byte-identical`, async () => {
      const before = { home: snapshot(air_home), project: snapshot(project) };
      const all = steps();
      const pty = start();
      await run_steps(pty, all.slice(0, index));
      await pty.wait_for(prompt);
      pty.press(KEYS.ctrl_c);
      await pty.wait_for("Setup cancelled: nothing was written.");

      expect(await pty.exited, pty.screen()).toBe(130);
      expect({ home: snapshot(air_home), project: snapshot(project) }).toEqual(before);
    });
  }

  it("Ctrl+C while the connection test waits on a server that does not answer writes nothing, and exits at once", async () => {
    const silent = (await import("node:net")).createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const before = { home: snapshot(air_home), project: snapshot(project) };
      const pty = new PtyAir(project, { ...wizard_env(), ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}` });
      running.push(pty);
      await run_steps(pty, ANTHROPIC_STEPS.slice(0, 2));
      await pty.wait_for("Connecting to");
      pty.press(KEYS.ctrl_c);
      const started = Date.now();

      expect(await pty.exited, pty.screen()).toBe(130);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect({ home: snapshot(air_home), project: snapshot(project) }).toEqual(before);
    } finally {
      silent.close();
    }
  });
});

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { start_scripted_server, type RecordedRequest } from "../src/providers/scripted/server.js";
import type { ScriptInput, TurnInput } from "../src/providers/scripted/script.js";

/**
 * The 20-turn executor session of issue 5's prefix-stability acceptance, shared by its e2e test and the
 * bench: the built `air run` against the scripted model server in this process, over the Anthropic Messages
 * API or OpenAI Chat Completions. The executor makes 19 tool-using turns — listing, reading and echoing,
 * nothing that changes the project — then answers.
 */

const REPO = fileURLToPath(new URL("../", import.meta.url));
const AIR_BIN = path.join(REPO, "bin", "air.js");
const API_KEY = "sk-prefix-session";
const RUN_TIMEOUT_MS = 120_000;

export const SESSION_TURNS = 20;
const REQUIREMENT = "Survey the project: list it, read its files and echo what you find.";
export type SessionApi = "anthropic" | "openai";

const PROJECT_FILES: Record<string, string> = {
  "README.md": "# survey\n\nA small project to look around in.\n",
  "AGENTS.md": "Never edit files in this project; only look.\n",
  "src/notes.txt": "alpha\nbeta\ngamma\n",
  "src/util.txt": "one helper, two helpers\n",
};

const CLASSIFY: TurnInput = {
  expect: { last_user_contains: "Survey the project", tools: ["classify_request"] },
  reply: {
    content: [
      {
        type: "tool_use",
        name: "classify_request",
        input: {
          intent: "task",
          title: "Survey the project",
          description: "List the project, read its files and echo what you find. Change nothing.",
          acceptance_criteria: ["every file was read"],
          verification_commands: [],
        },
      },
    ],
  },
};

/** Turn `index` (1-based) of the executor: a harmless tool call, one of four in rotation. */
function tool_turn(index: number): TurnInput {
  const calls = [
    { name: "fs.list", input: { path: "." } },
    { name: "fs.read", input: { path: "README.md" } },
    { name: "shell.run", input: { command: `echo turn ${index}` } },
    { name: "fs.read", input: { path: index % 2 === 0 ? "src/notes.txt" : "src/util.txt" } },
  ] as const;
  // biome-ignore lint/style/noNonNullAssertion: index is 1-based, and an index modulo the length of a non-empty list is in it
  const call = calls[(index - 1) % calls.length]!;
  return {
    reply: {
      content: [
        { type: "text", text: `Turn ${index}: ${call.name}.` },
        { type: "tool_use", name: call.name, input: { ...call.input } },
      ],
    },
  };
}

function session_script(): ScriptInput {
  const executor: TurnInput[] = Array.from({ length: SESSION_TURNS - 1 }, (_, index) => tool_turn(index + 1));
  executor.push({ reply: { content: [{ type: "text", text: "Surveyed: README.md, AGENTS.md and two notes under src/. Nothing changed." }] } });
  return { turns: { main: [CLASSIFY], executor } };
}

function environment(api: SessionApi, air_home: string, url: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^(ANTHROPIC_|OPENAI_|OPENROUTER_)/.test(name) || /^AIR_(MODEL|HOME|PROVIDER)$/.test(name) || name === "NODE_OPTIONS") continue;
    env[name] = value;
  }
  const provider =
    api === "anthropic"
      ? { AIR_PROVIDER: "anthropic", ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: url }
      : { AIR_PROVIDER: "openai", OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${url}/v1` };
  return { ...env, AIR_HOME: air_home, ...provider };
}

export type SessionRun = {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly project: string;
  /** Every request the executor sent, in order. */
  readonly executor_requests: readonly RecordedRequest[];
};

/** Runs the session in `work_dir` (which the caller removes). */
export async function run_session(api: SessionApi, work_dir: string): Promise<SessionRun> {
  const project = path.join(work_dir, "project");
  for (const [relative, text] of Object.entries(PROJECT_FILES)) {
    fs.mkdirSync(path.dirname(path.join(project, relative)), { recursive: true });
    fs.writeFileSync(path.join(project, relative), text);
  }
  const server = await start_scripted_server({ script: session_script(), api_key: API_KEY });
  try {
    const args = [AIR_BIN, "run", "-p", REQUIREMENT, "--output-format", "json", "--permission-mode", "accept-edits"];
    const child = spawn(process.execPath, args, {
      cwd: project,
      env: environment(api, path.join(work_dir, "air-home"), server.url),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (exit) => resolve(exit));
    }).finally(() => clearTimeout(timer));
    const executor_requests = server.requests().filter((request) => request.requester === "executor");
    return { code, stdout, stderr, project, executor_requests };
  } finally {
    await server.close();
  }
}

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { air_failure } from "../../contracts/errors.js";
import { init_project } from "../../project/project-store.js";
import { ProviderManager } from "../../providers/manager.js";
import { start_scripted_server } from "../../providers/scripted/server.js";
import type { Io } from "../output.js";
import { is_interactive } from "../wizard.js";
import { copy_fixture_project, missing_tools, read_fixture, type ShippedFixture } from "./fixtures.js";

/**
 * The pause before each scripted answer: instant answers would finish the run before anyone can watch the
 * agent read, edit and build; a real model takes longer still.
 */
const PACE_MS = 400;

/**
 * The C++ fix shows the most (an agent reads the code, asks before its edit, builds and runs the tests);
 * without cmake and a compiler the worker fixture still shows a prompt and a verified change.
 */
function demo_fixture(io: Io): ShippedFixture {
  const preferred = read_fixture("cpp-fix");
  const missing = missing_tools(preferred.fixture);
  if (missing.length === 0) return preferred;
  io.err(`air demo: ${missing.join(", ")} not found, so the demo is the smaller worker fixture (one file written, no build).\n`);
  return read_fixture("worker");
}

function no_terminal_failure() {
  return air_failure({
    kind: "user_error",
    message: "air demo opens the TUI, and there is no terminal (standard input or output is not a TTY, or CI is set)",
    retryability: "not_retryable",
    user_action: "Run `air demo` in a terminal; for a headless run of the same scripted fixture, `air e2e cpp-fix-fixture`.",
  });
}

/**
 * Everything of `~/.air` the run reads or writes (the project index, permissions, capabilities, MCP
 * servers) is the demo's own: AIR_HOME points into its temp folder while `work` runs.
 */
async function with_air_home<T>(home: string, work: () => Promise<T>): Promise<T> {
  const previous = process.env.AIR_HOME;
  process.env.AIR_HOME = home;
  try {
    return await work();
  } finally {
    if (previous === undefined) delete process.env.AIR_HOME;
    else process.env.AIR_HOME = previous;
  }
}

function intro(shipped: ShippedFixture, root: string, server_url: string): string {
  return [
    `air demo: the TUI on a copy of the ${shipped.name} fixture, with a scripted model`,
    `at ${server_url}: no API key, nothing leaves this machine.`,
    `  project: ${root}`,
    "  The requirement is typed in: press Enter to send it, answer the permission",
    "  prompt (y allows once), then press Ctrl+C twice to leave.",
    "",
  ].join("\n");
}

/** The session itself: the scripted server on loopback, a provider that only knows it, the TUI in `default` mode. */
async function demo_session(io: Io, shipped: ShippedFixture, root: string, home: string): Promise<number> {
  const server = await start_scripted_server({ script: shipped.script, delay_ms: PACE_MS });
  try {
    // The model named as the scripted server names it: the HUD shows what answers, at no cost.
    const env = { ANTHROPIC_API_KEY: "scripted-demo-key", ANTHROPIC_BASE_URL: server.url, AIR_MODEL: "scripted-model" };
    const providers = ProviderManager.load({ env, home });
    io.out(intro(shipped, root, server.url));
    const { run_interactive } = await import("../interactive.js");
    // `default` whatever the user's own mode: the demo is there to show the prompt before the edit.
    return await run_interactive({ ...io, cwd: root }, providers, {
      permissions: { mode: "default", prompts: "auto" },
      draft: shipped.fixture.requirement,
    });
  } finally {
    await server.close();
  }
}

/**
 * `air demo`: the real TUI of `air run` on a temporary copy of a shipped fixture, against the scripted model
 * server in this process. The requirement waits in the prompt line for Enter rather than being sent at
 * once, so the user sees where a request is typed and starts the run. Nothing of the user's project or
 * `~/.air` is read or written; the copy is removed on exit unless `keep`.
 */
export async function run_demo(io: Io, options: { keep: boolean }): Promise<number> {
  if (!is_interactive()) throw no_terminal_failure();
  const shipped = demo_fixture(io);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "air-demo-"));
  const root = copy_fixture_project(shipped, work);
  const home = path.join(work, "air-home");
  const remove = () => fs.rmSync(work, { recursive: true, force: true });
  // A terminal that goes away mid-run can end the process before the `finally` below (a write to it fails):
  // the copy goes with the process all the same.
  if (!options.keep) process.once("exit", remove);
  try {
    return await with_air_home(home, () => {
      // An air project of its own, so no `.air` above the temp folder is taken for the demo's.
      init_project(root);
      return demo_session(io, shipped, root, home);
    });
  } finally {
    if (options.keep) io.out(`The demo's project is kept at ${root}\n`);
    else {
      process.off("exit", remove);
      remove();
      io.out(`Removed the demo's copy at ${work} (\`air demo --keep\` keeps it).\n`);
    }
  }
}

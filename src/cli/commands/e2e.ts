import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { air_failure } from "../../contracts/errors.js";
import { init_project } from "../../project/project-store.js";
import { read_history, type HistoryEntry } from "../../project/session-catalog.js";
import { ProviderManager } from "../../providers/manager.js";
import { start_scripted_server } from "../../providers/scripted/server.js";
import type { Io } from "../output.js";
import { run_requirement } from "../run-requirement.js";
import { commit_fixture_changes, commit_fixture_project, git_leftovers } from "./e2e-git.js";
import { team_run_problems } from "./e2e-team-checks.js";
import { e2e_timing } from "./e2e-timing.js";
import { copy_fixture_project, type Fixture, fixture_names, missing_tools, missing_tools_failure, read_fixture, shell } from "./fixtures.js";

/** The events an end-to-end run must leave: the whole chain from task to evidence. */
const CHAIN = [
  "user.message.created",
  "task.created",
  "task.started",
  "agent.started",
  "tool.started",
  "tool.completed",
  "command.started",
  "command.completed",
  "artifact.created",
  "evidence.created",
  "task.completed",
  "agent.completed",
];

/**
 * `air e2e <fixture>`: copies a shipped project into a temp folder, points the real Anthropic SDK at the
 * scripted model server, runs the fixture's requirement like `air run -p`, then checks the project and the
 * event log. No API key needed; nothing leaves the machine.
 */
export async function run_e2e(io: Io, fixture_name: string | undefined, options: { keep: boolean }): Promise<number> {
  const names = fixture_names();
  const name = fixture_name?.replace(/-fixture$/, "");
  if (name === undefined || !names.includes(name)) {
    throw air_failure({
      kind: "user_error",
      message: fixture_name === undefined ? "air e2e needs a fixture name" : `no fixture "${fixture_name}"`,
      retryability: "not_retryable",
      user_action: `Run one of: ${names.map((n) => `air e2e ${n}-fixture`).join(", ")}.`,
    });
  }
  const shipped = read_fixture(name);
  const { folder, script, fixture } = shipped;
  const missing = missing_tools(fixture);
  if (missing.length > 0) throw missing_tools_failure(name, missing);

  const work = fs.mkdtempSync(path.join(os.tmpdir(), `air-e2e-${name}-`));
  const root = copy_fixture_project(shipped, work);
  if (fixture.git) commit_fixture_project(root);
  init_project(root);
  const server = await start_scripted_server({ script });
  try {
    let ok = true;
    for (let run = 1; run <= fixture.runs; run += 1) {
      if (run > 1) refresh_fixture_project(folder, root, fixture.git);
      const requests_before = server.requests().length;
      const passed = await run_once(io, { name, fixture, root, work, server_url: server.url }, () => server.requests().length - requests_before);
      if (fixture.runs > 1) io.out(`  run ${run} of ${fixture.runs}: ${passed ? "passed" : "FAILED"}\n`);
      ok &&= passed;
    }
    io.out(ok ? "e2e passed\n" : "e2e FAILED\n");
    return ok ? 0 : 1;
  } finally {
    await server.close();
    if (!options.keep) fs.rmSync(work, { recursive: true, force: true });
  }
}

/** A later run's fresh copy: the fixture's files over the checkout, as they were before the last run changed them. */
function refresh_fixture_project(folder: string, root: string, git: boolean): void {
  fs.cpSync(path.join(folder, "project"), root, { recursive: true, force: true });
  if (git) commit_fixture_changes(root);
}

type E2eRun = { readonly name: string; readonly fixture: Fixture; readonly root: string; readonly work: string; readonly server_url: string };

/** One run of the fixture's requirement, like `air run -p`, and its checks printed; whether it passed. */
async function run_once(io: Io, { name, fixture, root, work, server_url }: E2eRun, model_requests: () => number): Promise<boolean> {
  const started = performance.now();
  const providers = ProviderManager.load({
    env: { ANTHROPIC_API_KEY: "scripted-e2e-key", ANTHROPIC_BASE_URL: server_url },
    home: path.join(work, "air-home"),
  });
  const report = await run_requirement(
    { ...io, cwd: root },
    {
      requirement: fixture.requirement,
      format: "text",
      permissions: { mode: "accept-edits", prompts: "policy" },
      ...(fixture.review === undefined ? {} : { review: fixture.review }),
    },
    providers,
  );
  const wall_ms = performance.now() - started;
  const layout = init_project(root).project.layout;
  const history = await read_history(layout, report.session_id);
  const types = new Set<string>(history.map((entry) => entry.type));
  const missing = CHAIN.filter((type) => !types.has(type));
  const verified = shell(fixture.verify, root);
  io.out(`\nfixture ${name}: ${root}\n`);
  io.out(`  verification (${fixture.verify}): exit ${verified.status}\n`);
  io.out(`  event chain: ${missing.length === 0 ? "complete" : `missing ${missing.join(", ")}`}\n`);
  const team = team_report(io, fixture, history, root);
  io.out(`  model requests: ${model_requests()}\n`);
  io.out(e2e_timing(layout, report.session_id, wall_ms));
  return report.code === 0 && verified.status === 0 && missing.length === 0 && team.length === 0;
}

/** A team fixture's own checks (the wave, the worktrees, the merges, what is left in git), printed; the problems found. */
function team_report(io: Io, fixture: Fixture, history: readonly HistoryEntry[], root: string): string[] {
  if (!fixture.team) return [];
  const problems = [...team_run_problems(history), ...(fixture.git ? git_leftovers(root) : [])];
  io.out(
    `  team run: ${problems.length === 0 ? "one wave of independent tasks, merges one at a time, nothing left in git" : `${problems.length} problem(s)`}\n`,
  );
  for (const problem of problems) io.out(`    - ${problem}\n`);
  return problems;
}

import * as clack from "@clack/prompts";
import type { CapabilityManifest } from "../../capabilities/manifest.js";
import { first_fix_pending, mark_first_fix_done, type FixAsker } from "../../doctor/consent.js";
import { check_dependencies, type DetectContext } from "../../doctor/detect.js";
import { run_fixes, type FixRun } from "../../doctor/fix.js";
import { doctor_manifests } from "../../doctor/manifests.js";
import { current_platform, plan_fixes, type FixPlan } from "../../doctor/plan.js";
import { probe_version } from "../../doctor/version.js";
import { log_summary } from "../../logs/log.js";
import { permissions_for_project } from "../../permissions/session-permissions.js";
import { air_home, project_layout } from "../../project/layout.js";
import { locate_project_root, open_project } from "../../project/project-store.js";
import { open_session } from "../../project/session-manager.js";
import type { Io } from "../output.js";
import { doctor_recovery, render_recovery } from "./doctor-recovery.js";
import { is_interactive } from "../wizard.js";

export type DoctorFixOptions = { readonly json: boolean; readonly dry_run: boolean; readonly yes: boolean };

/** A yes/no on the terminal (Ctrl+C is a no); none without one, so every question there is a no. */
function terminal_asker(yes: boolean): FixAsker {
  if (!is_interactive()) return { yes };
  return {
    yes,
    ask: async (question) => {
      const answer = await clack.confirm({ message: question, initialValue: false });
      return answer === true;
    },
  };
}

function render_plan(io: Io, plan: FixPlan, dry_run: boolean): void {
  if (plan.steps.length === 0) io.out("Nothing to install: every dependency with an install command is ready.\n");
  else io.out(dry_run ? `Would run ${plan.steps.length} command(s); nothing is run now:\n` : `${plan.steps.length} command(s) to run:\n`);
  for (const step of plan.steps) io.out(`  $ ${step.command}\n      for ${step.fixes.join(", ")}; ${step.consent} (${step.why})\n`);
  if (plan.manual.length > 0) io.out("Doctor cannot install:\n");
  for (const manual of plan.manual) io.out(`  ${manual.fixes}: ${manual.reason}${manual.docs === undefined ? "" : ` — ${manual.docs}`}\n`);
}

function render_run(io: Io, run: FixRun): void {
  for (const result of run.results) io.out(`${result.outcome.padEnd(9)} ${result.step.command}: ${result.detail}\n`);
  for (const capability of run.after) {
    const unmet = capability.dependencies.filter((dependency) => dependency.state !== "found").map((dependency) => `${dependency.id} (${dependency.state})`);
    io.out(`${capability.capability_id}: ${capability.status}${unmet.length === 0 ? "" : ` — not ready: ${unmet.join(", ")}`}\n`);
  }
}

async function apply(io: Io, manifests: readonly CapabilityManifest[], plan: FixPlan, context: DetectContext, yes: boolean): Promise<FixRun> {
  const project = open_project(io.cwd);
  const session = open_session(project, { title: "air doctor --fix" });
  try {
    return await run_fixes({
      session,
      manifests,
      plan,
      context,
      asker: terminal_asker(yes),
      engine: (answerer) => permissions_for_project(project.layout, { answerer }),
      on_step: (step) => io.err(`air doctor: running \`${step.command}\`\n`),
    });
  } finally {
    session.close();
  }
}

/** air.log keeps what the fix did, e.g. "air doctor --fix: 1 installed, 1 failed (`apt-get install -y cmake`: exited with 100)". */
function log_fix_summary(results: FixRun["results"]): void {
  const count = (outcome: FixRun["results"][number]["outcome"]) => results.filter((result) => result.outcome === outcome).length;
  const failures = results.filter((result) => result.outcome === "failed").map((result) => `\`${result.step.command}\`: ${result.detail}`);
  const summary = `air doctor --fix: ${count("installed")} installed, ${count("failed")} failed, ${count("denied")} denied`;
  log_summary("doctor", failures.length === 0 ? summary : `${summary} (${failures.join("; ")})`, { results });
}

/**
 * `air doctor --fix [--dry-run] [--yes]` (D-045): plans the install commands of every capability dependency
 * that is missing or too old; `--dry-run` prints them and runs nothing. Otherwise runs them in a session of
 * this project under D-045's consent rules and the PermissionEngine, then detects again; exit 1 while a
 * required dependency is still not ready. In a project it also runs the recovery checks (recovery/run.ts),
 * reported in a section of their own; what they leave for the user is said there and keeps the exit code,
 * since a lost artifact file stays lost and must not fail every later doctor run.
 */
export async function run_doctor_fix(io: Io, options: DoctorFixOptions): Promise<number> {
  const home = air_home();
  const project_root = locate_project_root(io.cwd) ?? io.cwd;
  const manifests = doctor_manifests(project_root, home);
  const context: DetectContext = { env: process.env, project_root, versions: probe_version };
  const before = check_dependencies(manifests, context);
  const posture = permissions_for_project(project_layout(project_root), {}).mode === "bypass" ? "high" : "low";
  const plan = plan_fixes(manifests, before, { platform: current_platform(), posture, first_fix: first_fix_pending(home) });
  // Before the installs, whose own session would otherwise be among those checked.
  const recovery = await doctor_recovery(io.cwd, options.dry_run);
  if (options.dry_run || plan.steps.length === 0) {
    if (options.json) io.out(`${JSON.stringify({ dry_run: options.dry_run, plan, capabilities: before, recovery }, null, 2)}\n`);
    else {
      render_plan(io, plan, options.dry_run);
      render_recovery(io, recovery);
    }
    return !options.dry_run && before.some((capability) => capability.status === "error") ? 1 : 0;
  }
  if (!options.json) render_plan(io, plan, false);
  const run = await apply(io, manifests, plan, context, options.yes);
  if (run.results.some((result) => result.outcome !== "denied")) mark_first_fix_done(home);
  log_fix_summary(run.results);
  if (options.json) io.out(`${JSON.stringify({ dry_run: false, plan, results: run.results, capabilities: run.after, recovery }, null, 2)}\n`);
  else {
    render_run(io, run);
    render_recovery(io, recovery);
  }
  const blocked = run.after.some((capability) => capability.status === "error");
  return blocked ? 1 : 0;
}

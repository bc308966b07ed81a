import * as v from "valibot";
import type { CapabilityManifest } from "../capabilities/manifest.js";
import type { EventType, PayloadInputOf } from "../contracts/events/registry.js";
import { make_event } from "../contracts/events/registry.js";
import { new_id, type DoctorRunId } from "../contracts/ids.js";
import { PermissionEngine } from "../permissions/engine.js";
import type { PromptAnswerer } from "../permissions/prompts.js";
import type { Session } from "../project/session-manager.js";
import { ToolRegistry } from "../tools/registry.js";
import { ShellRunOutput } from "../tools/shell/command.js";
import { answer_step, ConsentedCommand, type FixAsker } from "./consent.js";
import { check_dependencies, type CapabilityDependencies, type DetectContext } from "./detect.js";
import { DOCTOR_INSTALL_TOOL, doctor_install } from "./install-tool.js";
import type { FixPlan, FixStep } from "./plan.js";

type StepResult = {
  readonly step: FixStep;
  readonly outcome: "installed" | "failed" | "denied";
  /** How it was allowed or denied, or why it failed. */
  readonly detail: string;
  readonly exit_code?: number;
};

export type FixRun = {
  readonly run_id: DoctorRunId;
  readonly results: readonly StepResult[];
  /** Every dependency detected again after the fixes. */
  readonly after: readonly CapabilityDependencies[];
};

export type FixRunOptions = {
  /** The session the run's events (doctor.*, tool.*, command.*, permission.*) are recorded in. */
  readonly session: Session;
  readonly manifests: readonly CapabilityManifest[];
  readonly plan: FixPlan;
  readonly context: DetectContext;
  readonly asker: FixAsker;
  /** The engine that judges each command, given doctor's answerer (default: the default policy, no grants). */
  readonly engine?: (answerer: PromptAnswerer) => PermissionEngine;
  /** Told before each step runs: announcements, progress. */
  readonly on_step?: (step: FixStep) => void;
};

/** What the outcome keeps of the tool's output (the registry lifts its `effects` out). */
const InstallAnswer = v.object({ exit_code: ShellRunOutput.entries.exit_code, stderr_tail: ShellRunOutput.entries.stderr_tail });

async function run_step(registry: ToolRegistry, consented: ConsentedCommand, session: Session, step: FixStep): Promise<Omit<StepResult, "step">> {
  consented.allow(step.command);
  try {
    const outcome = await registry.call({ tool_name: DOCTOR_INSTALL_TOOL, input: { command: step.command } }, { session });
    if (!outcome.ok) return { outcome: "failed", detail: outcome.error.message };
    const answer = v.safeParse(InstallAnswer, outcome.output);
    if (!answer.success) return { outcome: "failed", detail: "doctor.install answered without an exit code" };
    const { exit_code, stderr_tail } = answer.output;
    if (exit_code === 0) return { outcome: "installed", detail: "exited with 0", exit_code };
    const last = stderr_tail.trim().split("\n").at(-1) ?? "";
    return { outcome: "failed", detail: `exited with ${exit_code}${last === "" ? "" : `: ${last}`}`, exit_code };
  } finally {
    consented.allow(undefined);
  }
}

const default_engine = (answerer: PromptAnswerer) => new PermissionEngine({ answerer });

function check_outcome(state: string, severity: string): "ok" | "warning" | "error" {
  if (state === "found") return "ok";
  return severity === "required" ? "error" : "warning";
}

/**
 * `air doctor --fix` (D-045, seeds 000 §16.1 `fix` mode): each step of the plan, once D-045's rules allow it,
 * through the ToolRegistry (`doctor.install`, judged by the PermissionEngine), then every dependency detected
 * again. A denied step installs nothing. The run is recorded as `doctor.*` events in the session.
 */
export async function run_fixes(options: FixRunOptions): Promise<FixRun> {
  const { session } = options;
  const run_id = new_id("doctor_run");
  const emit = <T extends EventType>(type: T, payload: PayloadInputOf<T>) => session.ingestor.ingest(make_event(type, payload, session.origin));
  const consented = new ConsentedCommand();
  const registry = new ToolRegistry({ permissions: (options.engine ?? default_engine)(consented) });
  registry.register(doctor_install);
  emit("doctor.run.started", { run_id, mode: "fix" });
  const results: StepResult[] = [];
  for (const step of options.plan.steps) {
    const answer = await answer_step(step, options.asker);
    if (!answer.allowed) {
      results.push({ step, outcome: "denied", detail: answer.how });
      for (const check_id of step.fixes) emit("doctor.check.completed", { run_id, check_id, outcome: "skipped", message: `not installed: ${answer.how}` });
      continue;
    }
    options.on_step?.(step);
    const result = await run_step(registry, consented, session, step);
    results.push({ step, ...result });
    for (const check_id of step.fixes) emit("doctor.fix.applied", { run_id, check_id, action: step.command, succeeded: result.outcome === "installed" });
  }
  const after = check_dependencies(options.manifests, options.context);
  for (const capability of after) {
    for (const dependency of capability.dependencies) {
      const outcome = check_outcome(dependency.state, dependency.severity);
      emit("doctor.check.completed", { run_id, check_id: `${capability.capability_id}/${dependency.id}`, outcome, message: dependency.detected_by });
    }
  }
  const issues = after.reduce((total, capability) => total + capability.dependencies.filter((dependency) => dependency.state !== "found").length, 0);
  emit("doctor.run.completed", { run_id, issues });
  return { run_id, results, after };
}

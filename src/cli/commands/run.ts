import fs from "node:fs";
import path from "node:path";
import { air_failure, is_air_failure, type AirFailure } from "../../contracts/errors.js";
import { doctor_manifests } from "../../doctor/manifests.js";
import { startup_dependency_check } from "../../doctor/startup.js";
import { locate_project_root } from "../../project/project-store.js";
import { ProviderManager } from "../../providers/manager.js";
import type { Io } from "../output.js";
import type { PreFrame } from "../pre-frame.js";
import type { OutputFormat } from "../progress.js";
import type { Inspection } from "../../inspect/attach.js";
import { parse_run_budget } from "../budget-options.js";
import { parse_permission_options } from "../permission-options.js";
import { run_requirement } from "../run-requirement.js";
import { headless_session, PICK_CANCELLED, terminal_session, type SessionFlags } from "../session-choice.js";
import { DEMO_PROVIDER } from "../wizard/air-config.js";
import { needs_wizard } from "../wizard/needed.js";
import { is_interactive } from "../terminal.js";

const FORMATS: readonly OutputFormat[] = ["text", "json", "stream-json", "events"];

export type RunOptions = SessionFlags & {
  print?: string;
  output_format?: string;
  max_turns?: string;
  max_parallel?: string;
  max_budget_usd?: string;
  max_tokens?: string;
  permission_mode?: string;
  prompts?: string;
  inspect?: string;
  inspect_file?: string;
  /** `air run [project]`: the project folder (default: the working folder). */
  project?: string;
  /** The TUI's first frame, already on screen: ink takes it over, or any other ending erases it. */
  pre_frame?: PreFrame;
};

/** The provider's own failure when none is configured (the guidance on what to set), else undefined. */
function missing_provider(providers: ProviderManager): AirFailure | undefined {
  try {
    providers.require_configured();
    return undefined;
  } catch (error) {
    if (is_air_failure(error) && error.error.kind === "env_error") return error;
    throw error;
  }
}

/** `air run` without `-p` where nobody can use the TUI: what to do instead, and what to configure first. */
function no_terminal_failure(providers: ProviderManager): AirFailure {
  const provider = missing_provider(providers);
  const run_headless = 'Run `air run -p "<what you want done>"` for a headless run, or run `air run` in a terminal for the TUI.';
  return air_failure({
    kind: "user_error",
    message:
      "air run needs a requirement with -p when there is no terminal (standard input or output is not a TTY, or CI is set)" +
      (provider === undefined ? "" : `; also, ${provider.error.message}`),
    retryability: "not_retryable",
    user_action: provider === undefined ? run_headless : `${run_headless}\nFirst configure a model provider: ${provider.error.user_action ?? ""}`,
  });
}

/** `air run [project]` runs in the project folder given, which must exist. */
function in_project_folder(io: Io, project: string | undefined): Io {
  if (project === undefined) return io;
  const cwd = path.resolve(io.cwd, project);
  if (!fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
    throw air_failure({
      kind: "user_error",
      message: `no folder ${cwd}`,
      retryability: "not_retryable",
      user_action: "Name an existing project folder, or leave it out to use the working folder.",
    });
  }
  return { ...io, cwd };
}

/** D-045: the read-only doctor of every start, cached by tool files; one line on stderr when a required tool is not ready. */
function startup_doctor(io: Io): void {
  const project_root = locate_project_root(io.cwd) ?? io.cwd;
  const { line } = startup_dependency_check({ manifests: doctor_manifests(project_root), project_root });
  if (line !== undefined) io.err(`${line}\n`);
}

/**
 * `--inspect`/`--inspect-file`: the live statecharts, whose inspector and WebSocket relay (~0.25 MB of the
 * bundle) load only when asked for.
 */
async function inspection_of(io: Io, options: RunOptions): Promise<Inspection | undefined> {
  if (options.inspect === undefined && options.inspect_file === undefined) return undefined;
  const { inspect_options, start_inspection } = await import("../../inspect/attach.js");
  return start_inspection(io, inspect_options(options));
}

export async function run_run(io: Io, options: RunOptions): Promise<number> {
  try {
    return await run_in_folder(options.pre_frame?.above(io) ?? io, options);
  } finally {
    options.pre_frame?.dismiss();
  }
}

async function run_in_folder(io: Io, options: RunOptions): Promise<number> {
  const here = in_project_folder(io, options.project);
  startup_doctor(here);
  if (options.print === undefined) return run_interactive_or_explain(here, options);
  if (options.print.trim() === "") {
    throw air_failure({
      kind: "user_error",
      message: "air run needs a requirement with -p",
      retryability: "not_retryable",
      user_action: 'Run `air run -p "<what you want done>"`, or `air run` in a terminal for the TUI.',
    });
  }
  const format = (options.output_format ?? "text") as OutputFormat;
  if (!FORMATS.includes(format)) {
    throw air_failure({
      kind: "user_error",
      message: `unknown output format "${format}"`,
      retryability: "not_retryable",
      user_action: `Use one of: ${FORMATS.join(", ")}.`,
    });
  }
  const max_turns = parse_positive("--max-turns", options.max_turns, "20");
  const max_parallel = parse_positive("--max-parallel", options.max_parallel, "4");
  const run_budget = parse_run_budget(options);
  const permissions = parse_permission_options(options);
  const session_id = await headless_session(here.cwd, options);
  const request = {
    requirement: options.print,
    ...(session_id === undefined ? {} : { session_id }),
    format,
    permissions,
    ...(max_turns === undefined ? {} : { max_turns }),
    ...(max_parallel === undefined ? {} : { max_parallel }),
    ...(run_budget === undefined ? {} : { run_budget }),
  };
  const providers = ProviderManager.load({ project_root: locate_project_root(here.cwd) ?? here.cwd });
  const inspection = await inspection_of(here, options);
  try {
    const report = await run_requirement(here, { ...request, ...(inspection === undefined ? {} : { inspect: inspection.inspect }) }, providers);
    return report.code;
  } finally {
    inspection?.close();
  }
}

function parse_positive(flag: string, raw: string | undefined, example: string): number | undefined {
  const value = raw === undefined ? undefined : Number(raw);
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
    throw air_failure({
      kind: "user_error",
      message: `${flag} must be a positive integer, not "${raw}"`,
      retryability: "not_retryable",
      user_action: `Pass e.g. ${flag} ${example}.`,
    });
  }
  return value;
}

/** The exit code of a first-run setup the user cancelled (as for Ctrl+C). */
const CANCELLED = 130;

/**
 * `air run` without `-p`: the TUI on a terminal — after the first-run wizard when nothing is set up yet, on
 * the session `-c`/`-r` names (recovered, its tasks finished, as `air resume` does) — and anywhere else a
 * user error at once, never a prompt.
 */
async function run_interactive_or_explain(io: Io, options: RunOptions): Promise<number> {
  const permissions = parse_permission_options(options);
  const max_turns = parse_positive("--max-turns", options.max_turns, "20");
  const max_parallel = parse_positive("--max-parallel", options.max_parallel, "4");
  const run_budget = parse_run_budget(options);
  const project_root = locate_project_root(io.cwd) ?? io.cwd;
  let providers = ProviderManager.load({ project_root });
  if (!is_interactive()) throw no_terminal_failure(providers);
  if (needs_wizard()) {
    options.pre_frame?.make_way();
    const setup = await (await import("../wizard.js")).run_wizard(io, { for_init: false });
    if (setup.status === "cancelled") return CANCELLED;
    // The offline demo configures no provider: it opens `air demo`, not this project.
    if (setup.provider === DEMO_PROVIDER) return (await import("./demo.js")).run_demo(io, { keep: false });
    providers = ProviderManager.load({ project_root });
  }
  const session_id = await terminal_session(io.cwd, options);
  if (session_id === PICK_CANCELLED) return CANCELLED;
  const { run_interactive } = await import("../interactive.js");
  const inspection = await inspection_of(io, options);
  try {
    return await run_interactive(io, providers, {
      permissions,
      ...(session_id === undefined ? {} : { session_id }),
      ...(max_turns === undefined ? {} : { max_turns }),
      ...(max_parallel === undefined ? {} : { max_parallel }),
      ...(run_budget === undefined ? {} : { run_budget }),
      ...(inspection === undefined ? {} : { inspect: inspection.inspect }),
      ...(options.pre_frame === undefined ? {} : { pre_frame: options.pre_frame }),
    });
  } finally {
    inspection?.close();
  }
}

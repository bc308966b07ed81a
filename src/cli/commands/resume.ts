import { recover_session } from "../../actors/runtime/recovery.js";
import type { SessionId } from "../../contracts/ids.js";
import { chosen_session } from "../../project/session-catalog.js";
import { open_session } from "../../project/session-manager.js";
import { locate_project_root, open_project } from "../../project/project-store.js";
import { ProviderManager } from "../../providers/manager.js";
import { recover_at_resume } from "../../recovery/run.js";
import { parse_run_budget, type RunBudgetFlags } from "../budget-options.js";
import type { Io } from "../output.js";
import { follow } from "../progress.js";
import { note_project_opened, runtime_for } from "../run-requirement.js";
import type { PermissionEngine } from "../../permissions/engine.js";
import { permissions_for_project, prompts_of } from "../../permissions/session-permissions.js";
import { parse_permission_options, prompt_answerer } from "../permission-options.js";
import { is_interactive } from "../wizard.js";

/**
 * `air resume`: reopen a session whose runtime stopped, recover it from its rows (tasks left running are
 * interrupted, their agents lost, then re-queued) and run its pending tasks to the end. On a terminal (and
 * unless `--prompts stdin|policy` asks for the line interface) the TUI opens on it, with its history, and
 * the session goes on there; elsewhere it runs headless and ends with its tasks.
 */
export async function run_resume(io: Io, options: { session?: string; permission_mode?: string; prompts?: string } & RunBudgetFlags): Promise<number> {
  const permission_options = parse_permission_options(options);
  // A run held back by its budget goes on under the limits given now (none: the configured ones).
  const run_budget = parse_run_budget(options);
  const providers = ProviderManager.load({ project_root: locate_project_root(io.cwd) ?? io.cwd });
  providers.require_configured();
  const project = open_project(io.cwd);
  const { layout } = project;
  const session_id = await chosen_session(layout, options.session, "this project has no session to resume");
  if (is_interactive() && options.prompts === undefined) {
    const { run_interactive } = await import("../interactive.js");
    return run_interactive(io, providers, {
      permissions: permission_options,
      session_id: session_id as SessionId,
      ...(run_budget === undefined ? {} : { run_budget }),
    });
  }
  await note_project_opened(io, project);
  const prompts = prompt_answerer(permission_options.prompts);
  let permissions: PermissionEngine;
  try {
    permissions = permissions_for_project(layout, {
      answerer: prompts.answerer,
      ...(permission_options.mode === undefined ? {} : { mode: permission_options.mode }),
    });
  } catch (error) {
    prompts.close();
    throw error;
  }
  const session = open_session(project, { session_id: session_id as SessionId });
  const unfollow = follow(session.bus, "text", io.out);
  const { pending, answered } = prompts_of(session);
  // The session's "allow for this session" answers hold before its MCP servers ask to start.
  permissions.restore_session_grants(answered);
  const runtime = await runtime_for(session, providers, run_budget === undefined ? {} : { run_budget }, permissions);
  try {
    const recovered = recover_session(session);
    const recovery = await recover_at_resume(session);
    io.out(`Resumed ${session.id}: ${recovered.lost_agents.length} lost agent(s), ${recovered.requeued_tasks.length} task(s) re-queued\n`);
    if (recovery !== undefined) io.out(`${recovery}\n`);
    if (pending.length > 0) io.out(`${pending.length} permission prompt(s) were waiting when the session stopped; asking again\n`);
    await permissions.resume_prompts(pending, answered, session);
    const result = await runtime.resume();
    io.out(`\nScheduler ${result.status}${result.error === undefined ? "" : `: ${result.error.message}`}\n`);
    return result.status === "completed" ? 0 : 1;
  } finally {
    unfollow();
    prompts.close();
    await runtime.stop();
    session.close();
  }
}

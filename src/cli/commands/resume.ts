import { recover_session } from "../../actors/runtime/recovery.js";
import { air_failure } from "../../contracts/errors.js";
import type { SessionId } from "../../contracts/ids.js";
import { open_project } from "../../project/project-store.js";
import { has_session, latest_session_id } from "../../project/session-catalog.js";
import { open_session } from "../../project/session-manager.js";
import { ProviderManager } from "../../providers/manager.js";
import type { Io } from "../output.js";
import { follow } from "../progress.js";
import { runtime_for } from "../run-requirement.js";

/**
 * `air resume`: reopen a session whose runtime stopped, recover it from its rows (tasks left running are
 * interrupted, their agents lost, then re-queued) and run its pending tasks to the end.
 */
export async function run_resume(io: Io, options: { session?: string }): Promise<number> {
  const providers = ProviderManager.load();
  providers.require_configured();
  const project = open_project(io.cwd);
  const { layout } = project;
  const session_id = options.session ?? latest_session_id(layout);
  if (session_id === undefined || !has_session(layout, session_id)) {
    throw air_failure({
      kind: "user_error",
      message: session_id === undefined ? "this project has no session to resume" : `no session ${session_id} in this project`,
      retryability: "not_retryable",
      user_action: "List the sessions with `air session list`.",
    });
  }
  const session = open_session(project, { session_id: session_id as SessionId });
  const unfollow = follow(session.bus, "text", io.out);
  const runtime = runtime_for(session, providers, {});
  try {
    const recovered = recover_session(session);
    io.out(`Resumed ${session.id}: ${recovered.lost_agents.length} lost agent(s), ${recovered.requeued_tasks.length} task(s) re-queued\n`);
    const result = await runtime.resume();
    io.out(`\nScheduler ${result.status}${result.error === undefined ? "" : `: ${result.error.message}`}\n`);
    return result.status === "completed" ? 0 : 1;
  } finally {
    unfollow();
    runtime.stop();
    session.close();
  }
}

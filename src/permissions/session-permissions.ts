import type { PermissionMode } from "../contracts/events/permission.js";
import type { Session } from "../project/session-manager.js";
import { air_home, type ProjectLayout } from "../project/layout.js";
import { PermissionEngine, type AnsweredPrompt, type PendingPrompt } from "./engine.js";
import { GrantStore, grants_file } from "./grants.js";
import { load_permission_policy } from "./policy.js";
import type { PromptAnswerer } from "./prompts.js";

/**
 * The PermissionEngine of a runtime in this project: the permissions files of the user and the project, the
 * mode asked for on the command line, the grant files, and whoever answers prompts. Built before a session
 * is opened, so a broken permissions file stops a run before anything is written.
 */
export function permissions_for_project(layout: ProjectLayout, options: { mode?: PermissionMode; answerer?: PromptAnswerer }): PermissionEngine {
  const home = air_home();
  const policy = load_permission_policy({ air_home: home, layout, ...(options.mode === undefined ? {} : { mode: options.mode }) });
  const grants = new GrantStore({ project: grants_file(layout.local), global: grants_file(home) });
  return new PermissionEngine({ policy, grants, ...(options.answerer === undefined ? {} : { answerer: options.answerer }) });
}

/** The session's prompts read back from its events: those never answered, and the answers given. */
export function prompts_of(session: Session): { pending: PendingPrompt[]; answered: AnsweredPrompt[] } {
  const stored = session.store.query({ types: ["permission.prompt.requested", "permission.prompt.resolved"] });
  const requested = new Map<string, PendingPrompt>();
  const answered: AnsweredPrompt[] = [];
  for (const { event } of stored) {
    if (event.type === "permission.prompt.requested") {
      const {
        prompt_id,
        tool_name,
        question,
        risk_level,
        offered_scopes,
        subjects = [],
        categories = [],
        commands = [],
        command_parts,
        paths,
        change,
      } = event.payload;
      // The reason is not recorded apart: the question, which holds it, stands in for it. The change asked again is the
      // one recorded, so the answer is given to what was asked about.
      requested.set(prompt_id, {
        prompt_id,
        tool_name,
        question,
        reason: question,
        risk_level,
        offered_scopes,
        subjects,
        categories,
        commands,
        ...(command_parts === undefined ? {} : { command_parts }),
        ...(paths === undefined ? {} : { paths }),
        ...(change === undefined ? {} : { change }),
      });
    } else if (event.type === "permission.prompt.resolved") {
      const { prompt_id, answer, grant_scope } = event.payload;
      const prompt = requested.get(prompt_id);
      requested.delete(prompt_id);
      if (prompt !== undefined) answered.push({ subjects: prompt.subjects, answer, grant_scope });
    }
  }
  return { pending: [...requested.values()], answered };
}

/**
 * `-c/--continue` and `-r/--resume [ID]`, as Claude Code and Codex take them: the project's latest session,
 * the session named, or — `-r` alone on a terminal — the one the user picks from the project's sessions.
 */
import { air_failure } from "../contracts/errors.js";
import type { SessionId } from "../contracts/ids.js";
import type { ProjectLayout } from "../project/layout.js";
import { project_layout } from "../project/layout.js";
import { locate_project_root } from "../project/project-store.js";
import { chosen_session, list_sessions } from "../project/session-catalog.js";

export type SessionFlags = {
  /** `-c`: the latest session of the project. */
  readonly continue?: boolean;
  /** `-r ID`: that session; `-r` alone (an empty string): a picker on a terminal, else the latest. */
  readonly resume?: string;
};

/** The user left the picker without choosing. */
export const PICK_CANCELLED = Symbol("pick cancelled");

/** `-r` on a terminal: the project's active sessions, newest first, by title. */
async function pick_session(layout: ProjectLayout): Promise<SessionId | typeof PICK_CANCELLED> {
  const { sessions } = await list_sessions(layout);
  // None to pick from: the same error as asking for the latest.
  if (sessions.length === 0) return (await chosen_session(layout, undefined, "this project has no session to resume")) as SessionId;
  const clack = await import("@clack/prompts");
  const picked = await clack.select({
    message: "Resume which session?",
    options: sessions.map((session) => ({
      value: session.id,
      label: session.title,
      hint: `${session.created_at.slice(0, 16).replace("T", " ")} · ${session.message_count} message(s) · ${session.status}`,
    })),
  });
  return clack.isCancel(picked) ? PICK_CANCELLED : (picked as SessionId);
}

function check_flags(flags: SessionFlags): void {
  if (flags.continue === true && flags.resume !== undefined) {
    throw air_failure({
      kind: "user_error",
      message: "-c/--continue and -r/--resume cannot be used together",
      retryability: "not_retryable",
      user_action: "Use -c for the latest session, or -r ID for another one.",
    });
  }
}

/** The layout of the project at or above `cwd`, which must exist for there to be a session to go on with. */
function project_of(cwd: string, flags: SessionFlags): ProjectLayout {
  const root = locate_project_root(cwd);
  if (root === undefined) {
    throw air_failure({
      kind: "user_error",
      message: `no air project at or above ${cwd}, so no session to ${flags.continue === true ? "continue" : "resume"}`,
      retryability: "not_retryable",
      user_action: 'Start a session with `air run` (or `air run -p "…"`) in your project\'s folder.',
    });
  }
  return project_layout(root);
}

/**
 * The session the flags name where nobody can pick (`-p`): undefined for none (a new session), the latest
 * active one for `-c` or a bare `-r` (an archived session is resumed only by its id). An id this project does
 * not hold, or a project with no session, is a user error saying how to find one (`air session list`).
 */
export async function headless_session(cwd: string, flags: SessionFlags): Promise<SessionId | undefined> {
  check_flags(flags);
  if (flags.continue !== true && flags.resume === undefined) return undefined;
  const layout = project_of(cwd, flags);
  if (flags.continue === true) return (await chosen_session(layout, undefined, "this project has no session to continue")) as SessionId;
  if (flags.resume !== "") return (await chosen_session(layout, flags.resume)) as SessionId;
  return (await chosen_session(layout, undefined, "this project has no session to resume")) as SessionId;
}

/** As `headless_session`, but a bare `-r` asks the user which session. */
export async function terminal_session(cwd: string, flags: SessionFlags): Promise<SessionId | typeof PICK_CANCELLED | undefined> {
  check_flags(flags);
  if (flags.resume === "") return pick_session(project_of(cwd, flags));
  return headless_session(cwd, flags);
}

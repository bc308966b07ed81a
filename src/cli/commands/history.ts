import { air_failure } from "../../contracts/errors.js";
import { open_project } from "../../project/project-store.js";
import { has_session, latest_session_id, read_history, type HistoryEntry } from "../../project/session-catalog.js";
import type { Io } from "../output.js";

const KEY_FIELDS = ["title", "status", "tool_name", "command", "exit_code", "reason", "message", "summary", "action", "accepted", "token_estimate", "tokens_before", "tokens_after"];
const ID_FIELDS = ["task_id", "agent_id", "tool_run_id", "command_run_id", "message_id", "workspace_id", "summary_id"];

/** One readable line per event: the ids it concerns and its most telling fields. */
function describe(entry: HistoryEntry): string {
  const payload = (entry.payload ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of [...ID_FIELDS, ...KEY_FIELDS]) {
    const value = payload[key];
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      const text = String(value).replace(/\s+/g, " ");
      parts.push(`${key}=${text.length > 60 ? `${text.slice(0, 57)}...` : text}`);
    }
  }
  // A summary names the messages it stands for; they stay in the log above it.
  if (Array.isArray(payload.covered_message_ids)) parts.push(`covers=${payload.covered_message_ids.length} message(s)`);
  return parts.join(" ");
}

export async function run_history(io: Io, options: { session?: string; json: boolean }): Promise<number> {
  const { layout } = open_project(io.cwd);
  const session_id = options.session ?? latest_session_id(layout);
  if (session_id === undefined || !has_session(layout, session_id)) {
    throw air_failure({
      kind: "user_error",
      message: session_id === undefined ? "this project has no sessions yet" : `no session ${session_id} in this project`,
      retryability: "not_retryable",
      user_action: "List the sessions with `air session list`.",
    });
  }
  const entries = await read_history(layout, session_id);
  if (options.json) {
    io.out(`${JSON.stringify({ session_id, events: entries }, null, 2)}\n`);
    return 0;
  }
  io.out(`Session ${session_id} — ${entries.length} events\n`);
  for (const entry of entries) {
    io.out(`${String(entry.seq).padStart(5)}  ${entry.timestamp}  ${entry.type.padEnd(30)} ${entry.route.join("/")}  ${describe(entry)}\n`);
  }
  return 0;
}

import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import { ReviewFinding } from "../../contracts/worker-result.js";
import { finding_line } from "../../orchestration/review/verdict.js";
import type { SessionId } from "../../contracts/ids.js";
import { session_db_path } from "../../project/layout.js";
import { open_project } from "../../project/project-store.js";
import { chosen_session, read_history, type HistoryEntry } from "../../project/session-catalog.js";
import type { ProjectionState } from "../../projection/types.js";
import type { Io } from "../output.js";
import { artifact_reader } from "../tui-session.js";

const KEY_FIELDS = [
  "title",
  "status",
  "tool_name",
  "command",
  "exit_code",
  "reason",
  "message",
  "summary",
  "action",
  "verdict",
  "accepted",
  "token_estimate",
  "tokens_before",
  "tokens_after",
];
const ID_FIELDS = ["task_id", "agent_id", "tool_run_id", "command_run_id", "message_id", "workspace_id", "summary_id"];

function first_finding(findings: readonly unknown[]): string {
  const parsed = v.safeParse(ReviewFinding, findings[0]);
  if (!parsed.success) return "unreadable";
  const text = finding_line(parsed.output);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

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
  // A review names its findings: how many, and the first of them.
  if (Array.isArray(payload.findings) && payload.findings.length > 0) parts.push(`findings=${payload.findings.length} (${first_finding(payload.findings)})`);
  // A summary names the messages it stands for; they stay in the log above it.
  if (Array.isArray(payload.covered_message_ids)) parts.push(`covers=${payload.covered_message_ids.length} message(s)`);
  return parts.join(" ");
}

/** The session's projection from its database, read-only (a live writer may hold it meanwhile). */
async function read_projection(db_file: string, session_id: string): Promise<ProjectionState> {
  const [{ Connection }, { assert_readable }, { hydrate_state }, { read_ui_state }, { request_cost_usd }] = await Promise.all([
    import("../../db/connection.js"),
    import("../../db/migrate.js"),
    import("../../projection/hydrate.js"),
    import("../../projection/ui-state.js"),
    import("../../providers/pricing.js"),
  ]);
  const connection = Connection.open(db_file, { must_exist: true });
  try {
    connection.client.exec("PRAGMA query_only=ON");
    assert_readable(connection, "session");
    return hydrate_state({ id: session_id as SessionId, connection }, read_ui_state(connection), { price: request_cost_usd }).state;
  } finally {
    connection.close();
  }
}

/** What the TUI would have printed for the session: its finished items, open blockers, and the HUD line. */
async function render_like_the_tui(state: ProjectionState, read_artifact: (id: string) => string, columns: number): Promise<string> {
  await import("../../tui/react-production.js");
  // React is CommonJS: bundled, its dynamic import is its `default` alone (scripts/bundle-cli.mjs).
  const [{ Box, renderToString }, { default: React }, { collect_finished }, { FinishedView }, { BlockerReports }, { Hud }] = await Promise.all([
    import("ink"),
    import("react"),
    import("../../tui/views/finished.js"),
    import("../../tui/views/finished-view.js"),
    import("../../tui/views/blockers.js"),
    import("../../tui/views/hud.js"),
  ]);
  const h = React.createElement;
  const items = collect_finished(state, new Set(), read_artifact);
  const tree = h(
    Box,
    { flexDirection: "column" },
    ...items.map((item) => h(FinishedView, { key: item.key, item })),
    h(BlockerReports, { key: "blockers", blockers: state.blockers }),
    h(Hud, { key: "hud", hud: state.hud, preset: state.ui.hud_preset, columns }),
  );
  return renderToString(tree, { columns });
}

export const HISTORY_VIEWS = ["tui", "events"] as const;
export type HistoryView = (typeof HISTORY_VIEWS)[number];

/**
 * `air history`: a past (or running) session as the TUI shows it (`--view tui`, the default on a terminal),
 * or its event log one line per event (`--view events`, the default when piped: a stable format for
 * scripts); `--json` the whole log as JSON.
 */
export async function run_history(io: Io, options: { session?: string; json: boolean; view?: string; columns?: number }): Promise<number> {
  const view = options.view ?? (process.stdout.isTTY === true ? "tui" : "events");
  if (!(HISTORY_VIEWS as readonly string[]).includes(view)) {
    throw air_failure({
      kind: "user_error",
      message: `unknown history view "${view}"`,
      retryability: "not_retryable",
      user_action: `Use one of: ${HISTORY_VIEWS.join(", ")}.`,
    });
  }
  const { layout } = open_project(io.cwd);
  const session_id = await chosen_session(layout, options.session);
  if (!options.json && view === "tui") {
    const state = await read_projection(session_db_path(layout, session_id), session_id);
    const text = await render_like_the_tui(
      state,
      artifact_reader(layout, session_id, { snapshot: () => state }),
      options.columns ?? process.stdout.columns ?? 100,
    );
    io.out(`Session ${session_id} — ${state.session.title}\n\n${text}\n`);
    return 0;
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

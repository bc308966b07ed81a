import { isNotNull, sql } from "drizzle-orm";
import * as v from "valibot";
import { air_failure, is_air_failure } from "../../contracts/errors.js";
import type { SessionId } from "../../contracts/ids.js";
import { CONTEXT_COMPACT_TOOL } from "../../contracts/tool.js";
import { plan_compaction } from "../../context/compaction/compactor.js";
import { load_compaction_rules } from "../../context/compaction/rules.js";
import type { CompactionScope } from "../../context/compaction/stored-conversation.js";
import { messages, sessions } from "../../db/schema.js";
import { air_home } from "../../project/layout.js";
import { open_project } from "../../project/project-store.js";
import { chosen_session } from "../../project/session-catalog.js";
import { open_session, type Session } from "../../project/session-manager.js";
import { ProviderManager } from "../../providers/manager.js";
import { context_compact_tool, ContextCompactOutput } from "../../tools/context/compact.js";
import { ToolRegistry } from "../../tools/registry.js";
import type { Io } from "../output.js";

type Compacted = { scope: string; summary_id: string; covered: number; tokens_before: number; tokens_after: number };
type Skipped = { scope: string; reason: string };
type Failed = { scope: string; error: string };

/** The session's writer lock: a runtime still holding it is running the session, which compacts its own conversations. */
function open_for_compaction(project: ReturnType<typeof open_project>, session_id: string): Session {
  try {
    return open_session(project, { session_id: session_id as SessionId });
  } catch (error) {
    if (!is_air_failure(error) || error.error.metadata?.pid === undefined) throw error;
    throw air_failure(
      {
        kind: "user_error",
        message: `session ${session_id} is running (air pid ${String(error.error.metadata.pid)} holds it); it cannot be compacted from outside`,
        retryability: "retryable",
        user_action: "Wait for that run to end (or stop it), then run `air compact` again; a running session compacts its agents' conversations itself.",
        metadata: { session_id, pid: error.error.metadata.pid },
      },
      error,
    );
  }
}

/** The conversations of a session: the user ↔ Main Agent one, then each agent's, in the order they began. */
function scopes_of(session: Session): { label: string; scope: CompactionScope }[] {
  const agent_rows = session.connection.db
    .select({ agent_id: messages.agent_id })
    .from(messages)
    .where(isNotNull(messages.agent_id))
    .groupBy(messages.agent_id)
    .orderBy(sql`min(rowid)`)
    .all();
  return [
    { label: "main conversation", scope: { kind: "main" } },
    // biome-ignore lint/style/noNonNullAssertion: the query keeps only rows whose agent_id is not null
    ...agent_rows.map((row) => ({ label: `agent ${row.agent_id}`, scope: { kind: "agent" as const, agent_id: row.agent_id! } })),
  ];
}

function session_model(session: Session): string | undefined {
  const row = session.connection.db.select({ model_id: sessions.model_id }).from(sessions).get();
  return row?.model_id ?? undefined;
}

async function compact_all(session: Session, providers: ProviderManager) {
  const rules = load_compaction_rules(session.project.layout, air_home());
  const registry = new ToolRegistry();
  registry.register(context_compact_tool(providers.for_session(session_model(session))));
  const report = { compacted: [] as Compacted[], skipped: [] as Skipped[], failed: [] as Failed[] };
  for (const { label, scope } of scopes_of(session)) {
    const plan = plan_compaction(session.connection, scope, rules);
    if ("skip" in plan) {
      report.skipped.push({ scope: label, reason: plan.skip });
      continue;
    }
    const input = { reason: "air compact", ...(scope.kind === "agent" ? { agent_id: scope.agent_id } : {}) };
    const outcome = await registry.call({ tool_name: CONTEXT_COMPACT_TOOL, input }, { session });
    if (!outcome.ok) {
      report.failed.push({ scope: label, error: outcome.error.message });
      continue;
    }
    const output = v.parse(ContextCompactOutput, outcome.output);
    const { summary_id, tokens_before, tokens_after } = output;
    report.compacted.push({ scope: label, summary_id, covered: output.covered_message_ids.length, tokens_before, tokens_after });
  }
  return report;
}

/**
 * `air compact [--session ID] [--json]`: compacts every conversation of a session (default: the latest) that is
 * long enough, with the session's model. Copy-on-write: the original messages stay; `air history` shows both.
 */
export async function run_compact(io: Io, options: { session?: string; json: boolean }): Promise<number> {
  const providers = ProviderManager.load();
  providers.require_configured();
  const project = open_project(io.cwd);
  const session_id = await chosen_session(project.layout, options.session, "this project has no session to compact");
  const session = open_for_compaction(project, session_id);
  let report: Awaited<ReturnType<typeof compact_all>>;
  try {
    report = await compact_all(session, providers);
  } finally {
    session.close();
  }
  const code = report.failed.length === 0 ? 0 : 1;
  if (options.json) {
    io.out(`${JSON.stringify({ session_id, ...report }, null, 2)}\n`);
    return code;
  }
  for (const c of report.compacted) {
    io.out(`Compacted ${c.scope}: ${c.summary_id} covers ${c.covered} message(s); tokens ${c.tokens_before} → ${c.tokens_after}\n`);
  }
  for (const s of report.skipped) io.out(`Skipped ${s.scope}: ${s.reason}\n`);
  for (const f of report.failed) io.err(`Failed ${f.scope}: ${f.error}\n`);
  if (report.compacted.length === 0 && report.failed.length === 0) io.out(`Nothing to compact in session ${session_id}.\n`);
  return code;
}

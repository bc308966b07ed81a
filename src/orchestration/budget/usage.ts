/**
 * Usage read from rows: every model call is a `model.complete` tool run whose output holds the response's
 * usage (the Main Agent's calls too), and a compaction a `context.compact` run of the agent it compacts, so
 * one query over tool_runs counts turns, tokens and cost for one agent, one task or the whole session, and the
 * same count serves enforcement, `air tasks` and the blocker.
 */
import { and, eq, inArray, notInArray, sql, type SQL } from "drizzle-orm";
import type { Connection } from "../../db/connection.js";
import { agents, tool_runs } from "../../db/schema.js";
import { CONTEXT_COMPACT_TOOL, MODEL_COMPLETE_TOOL } from "../../contracts/tool.js";
import { request_cost_usd } from "../../providers/pricing.js";
import type { BudgetUsage } from "./check.js";

/** Whose usage: one agent (a worker run), every attempt of one task, or the whole session. */
export type UsageScope = { readonly agent_id: string } | { readonly task_id: string } | { readonly session: true };

function scope_filter(scope: UsageScope): SQL | undefined {
  if ("agent_id" in scope) return eq(tool_runs.agent_id, scope.agent_id);
  if ("task_id" in scope) return eq(tool_runs.task_id, scope.task_id);
  return undefined;
}

const tokens = (field: string) => sql<number>`coalesce(sum(json_extract(${tool_runs.output_json}, ${`$.usage.${field}`})), 0)`;

/** The tool runs that call a model: an agent's turns, and the compactions of its conversation (no turn of its own). */
const MODEL_TOOLS = [MODEL_COMPLETE_TOOL, CONTEXT_COMPACT_TOOL];

/** Model calls grouped by tool and model, so each group is priced at its model's rate (a price is linear in tokens). */
function model_calls(connection: Connection, scope: UsageScope) {
  return connection.db
    .select({
      tool_name: tool_runs.tool_name,
      model_id: sql<string | null>`json_extract(${tool_runs.output_json}, '$.model_id')`,
      calls: sql<number>`count(*)`,
      input_tokens: tokens("input_tokens"),
      output_tokens: tokens("output_tokens"),
      cache_creation_input_tokens: tokens("cache_creation_input_tokens"),
      cache_read_input_tokens: tokens("cache_read_input_tokens"),
    })
    .from(tool_runs)
    .where(and(inArray(tool_runs.tool_name, MODEL_TOOLS), eq(tool_runs.status, "ok"), scope_filter(scope)))
    .groupBy(sql`1`, sql`2`)
    .all();
}

function tool_calls(connection: Connection, scope: UsageScope): number {
  const row = connection.db
    .select({ count: sql<number>`count(*)` })
    .from(tool_runs)
    .where(and(notInArray(tool_runs.tool_name, MODEL_TOOLS), scope_filter(scope)))
    .get();
  return row?.count ?? 0;
}

/** How long an agent has run: from its start to its end, or to `now` while it runs. */
function wall_ms(connection: Connection, scope: UsageScope, now: Date): number {
  if (!("agent_id" in scope)) return 0;
  const row = connection.db.select({ started_at: agents.started_at, ended_at: agents.ended_at }).from(agents).where(eq(agents.id, scope.agent_id)).get();
  if (row === undefined) return 0;
  const end = row.ended_at === null ? now.getTime() : Date.parse(row.ended_at);
  return Math.max(0, end - Date.parse(row.started_at));
}

/**
 * The usage of `scope`. Input tokens include cache reads and writes. The cost is null when a model that was
 * called has no known price: a partial sum would read as the whole. Wall time is measured for an agent only.
 */
export function usage_of(connection: Connection, scope: UsageScope, now: Date = new Date()): BudgetUsage {
  let turns = 0;
  let input_tokens = 0;
  let output_tokens = 0;
  let cost_usd: number | null = 0;
  for (const group of model_calls(connection, scope)) {
    const usage = {
      input_tokens: group.input_tokens,
      output_tokens: group.output_tokens,
      cache_creation_input_tokens: group.cache_creation_input_tokens,
      cache_read_input_tokens: group.cache_read_input_tokens,
    };
    if (group.tool_name === MODEL_COMPLETE_TOOL) turns += group.calls;
    input_tokens += group.input_tokens + group.cache_creation_input_tokens + group.cache_read_input_tokens;
    output_tokens += group.output_tokens;
    const cost = request_cost_usd(group.model_id, usage);
    cost_usd = cost === undefined || cost_usd === null ? null : cost_usd + cost;
  }
  return {
    turns,
    input_tokens,
    output_tokens,
    tokens: input_tokens + output_tokens,
    cost_usd,
    wall_ms: wall_ms(connection, scope, now),
    tool_calls: tool_calls(connection, scope),
  };
}

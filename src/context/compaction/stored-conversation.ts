import { and, desc, eq, isNull, sql, type SQL } from "drizzle-orm";
import { air_failure } from "../../contracts/errors.js";
import type { ContentBlock } from "../../contracts/provider.js";
import type { Connection } from "../../db/connection.js";
import { agents, messages, summaries, tasks } from "../../db/schema.js";

/** Whose conversation is compacted: a worker agent's, a task's current one, or the user ↔ Main Agent one. */
export type CompactionScope =
  | { readonly kind: "agent"; readonly agent_id: string }
  | { readonly kind: "task"; readonly task_id: string }
  | { readonly kind: "main" };

export type StoredMessage = { readonly id: string; readonly role: "user" | "assistant"; readonly content: string | ContentBlock[] };

type PreviousSummary = { readonly id: string; readonly content: string; readonly covered_message_ids: readonly string[] };

/** A conversation as the next request would carry it: the latest summary of it, then the messages it does not cover. */
export type Conversation = {
  readonly scope: CompactionScope;
  /** The task the conversation works on (the summary row is linked to it); none for the main conversation. */
  readonly task_id: string | undefined;
  readonly previous: PreviousSummary | undefined;
  readonly messages: readonly StoredMessage[];
};

function no_conversation(what: string): never {
  throw air_failure({
    kind: "context_error",
    message: `there is no ${what} in this session to compact`,
    retryability: "not_retryable",
    user_action: "Name an agent or task of this session (see `air history`), or compact the main conversation.",
  });
}

/** Both conditions: drizzle's `and` is `undefined` only when it is given no condition at all. */
function both(left: SQL, right: SQL): SQL {
  const condition = and(left, right);
  if (condition === undefined) throw new Error("and() of two conditions gave no condition");
  return condition;
}

/** The filter and task of a scope. A task's conversation is the one of its latest agent: each attempt starts afresh. */
function resolve(connection: Connection, scope: CompactionScope): { where: SQL; task_id: string | undefined } {
  if (scope.kind === "main") return { where: both(isNull(messages.task_id), isNull(messages.agent_id)), task_id: undefined };
  if (scope.kind === "agent") {
    const agent = connection.db.select({ task_id: agents.task_id }).from(agents).where(eq(agents.id, scope.agent_id)).get();
    if (agent === undefined) no_conversation(`agent ${scope.agent_id}`);
    return { where: eq(messages.agent_id, scope.agent_id), task_id: agent.task_id ?? undefined };
  }
  const task = connection.db.select({ id: tasks.id }).from(tasks).where(eq(tasks.id, scope.task_id)).get();
  if (task === undefined) no_conversation(`task ${scope.task_id}`);
  const latest = connection.db
    .select({ agent_id: messages.agent_id })
    .from(messages)
    .where(eq(messages.task_id, scope.task_id))
    .orderBy(desc(sql`rowid`))
    .get();
  const agent_filter = latest?.agent_id == null ? isNull(messages.agent_id) : eq(messages.agent_id, latest.agent_id);
  return { where: both(eq(messages.task_id, scope.task_id), agent_filter), task_id: scope.task_id };
}

/** The newest compaction summary that covers any message of this conversation. */
function previous_summary(connection: Connection, ids: ReadonlySet<string>): PreviousSummary | undefined {
  const rows = connection.db
    .select({ id: summaries.id, content: summaries.content, covered: summaries.covered_message_ids_json })
    .from(summaries)
    .where(eq(summaries.kind, "compaction"))
    .orderBy(desc(sql`rowid`))
    .all();
  for (const row of rows) {
    const covered = JSON.parse(row.covered) as string[];
    if (covered.some((id) => ids.has(id))) return { id: row.id, content: row.content, covered_message_ids: covered };
  }
  return undefined;
}

/** Reads a conversation in the order its messages were recorded (rowid: projection order is event order). */
export function load_conversation(connection: Connection, scope: CompactionScope): Conversation {
  const { where, task_id } = resolve(connection, scope);
  const rows = connection.db
    .select({ id: messages.id, role: messages.role, content_json: messages.content_json })
    .from(messages)
    .where(where)
    .orderBy(sql`rowid`)
    .all();
  const all = rows.map((row) => ({ id: row.id, role: row.role, content: JSON.parse(row.content_json) as StoredMessage["content"] }));
  const previous = previous_summary(connection, new Set(all.map((message) => message.id)));
  const covered = new Set(previous?.covered_message_ids ?? []);
  return { scope, task_id, previous, messages: all.filter((message) => !covered.has(message.id)) };
}

function blocks_of(message: StoredMessage): ContentBlock[] {
  return typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
}

function ids_of(messages: readonly StoredMessage[], type: "tool_use" | "tool_result"): Set<string> {
  const key = type === "tool_use" ? "id" : "tool_use_id";
  return new Set(
    messages.flatMap((message) =>
      blocks_of(message)
        .filter((block) => block.type === type)
        .map((block) => String(block[key])),
    ),
  );
}

/** A cut that leaves no tool_use on one side and its tool_result on the other. */
function splits_no_pair(messages: readonly StoredMessage[], cut: number): boolean {
  const uses = ids_of(messages.slice(0, cut), "tool_use");
  const results = ids_of(messages.slice(cut), "tool_result");
  for (const id of results) if (uses.has(id)) return false;
  return true;
}

function is_tool_results(message: StoredMessage): boolean {
  return blocks_of(message).some((block) => block.type === "tool_result");
}

/**
 * How many of the oldest messages to cover so that the newest `keep_recent_turns` model turns (assistant
 * messages) stay as they are, never splitting a tool_use from its tool_result; a user's question stays with
 * the answer kept after it. 0 when nothing can be covered.
 */
export function covered_count(messages: readonly StoredMessage[], keep_recent_turns: number): number {
  const model_turns = messages.flatMap((message, index) => (message.role === "assistant" ? [index] : []));
  // The oldest model turn kept; with none to keep, everything may be covered.
  const oldest_kept = keep_recent_turns > 0 ? model_turns.at(-keep_recent_turns) : messages.length;
  if (oldest_kept === undefined) return 0;
  let cut = oldest_kept;
  while (cut > 0 && !splits_no_pair(messages, cut)) cut -= 1;
  const before = messages[cut - 1];
  if (cut > 0 && messages[cut]?.role === "assistant" && before?.role === "user" && !is_tool_results(before)) cut -= 1;
  return cut;
}

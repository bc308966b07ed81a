import type { DraftView, ProjectionState } from "./types.js";

type Identified = { readonly id: string };

function carry<T extends Identified>(fresh: readonly T[], before: readonly T[], keep: (fresh: T, before: T) => T): readonly T[] {
  const earlier = new Map(before.map((item) => [item.id, item]));
  return fresh.map((item) => {
    const known = earlier.get(item.id);
    return known === undefined ? item : keep(item, known);
  });
}

function later(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a > b ? a : b;
}

function carry_drafts(before: ProjectionState, fresh: ProjectionState): readonly DraftView[] {
  const earlier = new Map(before.conversation.drafts.map((draft) => [draft.message_id, draft]));
  const drafts = fresh.conversation.drafts.map((draft) => {
    const known = earlier.get(draft.message_id);
    return known !== undefined && draft.text === "" ? { ...draft, text: known.text } : draft;
  });
  // A stream known only from its deltas has no row; it stays until its message is final.
  const rows = new Set([...drafts.map((draft) => draft.message_id), ...fresh.conversation.messages.map((message) => message.id)]);
  const streamed_only = before.conversation.drafts.filter((draft) => !rows.has(draft.message_id) && draft.status === "streaming");
  return [...drafts, ...streamed_only];
}

/**
 * A rehydrated state with the live-only parts of the state it replaces: streamed text the draft row does not
 * hold, output tails, progress lines and heartbeats. The database stays the truth for everything it records.
 */
export function carry_live(before: ProjectionState, fresh: ProjectionState): ProjectionState {
  return {
    ...fresh,
    conversation: { ...fresh.conversation, drafts: carry_drafts(before, fresh) },
    tasks: carry(fresh.tasks, before.tasks, (task, known) => (task.status === "running" ? { ...task, progress: known.progress } : task)),
    agents: carry(fresh.agents, before.agents, (agent, known) => ({
      ...agent,
      stream_tail: known.stream_tail,
      last_heartbeat_at: later(agent.last_heartbeat_at, known.last_heartbeat_at),
    })),
    tool_runs: carry(fresh.tool_runs, before.tool_runs, (run, known) => (run.status === "running" ? { ...run, progress: known.progress } : run)),
    command_runs: carry(fresh.command_runs, before.command_runs, (run, known) => ({ ...run, stdout_tail: known.stdout_tail, stderr_tail: known.stderr_tail })),
  };
}

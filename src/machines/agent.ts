import { setup } from "xstate";
import type { AgentStatus } from "../contracts/status.js";

/**
 * Agent lifecycle (seeds 000 §20.4). There is no event-less `starting → running` write:
 * the only way out of `starting` into `running` is a second `agent.started` emitted after the
 * worker handshake, which carries `status: "running"`.
 */
export type AgentLifecycleEvent =
  | { type: "agent.started"; status: Extract<AgentStatus, "starting" | "running"> }
  | { type: "agent.completed" }
  | { type: "agent.failed" }
  | { type: "agent.lost" }
  | { type: "agent.cancelled" };

export const agent_machine = setup({
  types: { events: {} as AgentLifecycleEvent },
  guards: {
    // A repeated `starting` announcement carries no news, so it must not count as a move.
    announces_running: ({ event }) => event.type === "agent.started" && event.status === "running",
  },
}).createMachine({
  id: "agent",
  // The row-creating `agent.started` is not a move by itself: a row created as `starting` simply
  // sits in the initial state, and one created as `running` is the same guarded move as the
  // post-handshake re-emission.
  initial: "starting",
  states: {
    starting: {
      on: {
        "agent.started": { guard: "announces_running", target: "running" },
        // A worker can die or be stopped before it ever finishes its handshake.
        "agent.failed": { target: "failed" },
        "agent.lost": { target: "lost" },
        "agent.cancelled": { target: "cancelled" },
      },
    },
    running: {
      on: {
        "agent.completed": { target: "completed" },
        "agent.failed": { target: "failed" },
        "agent.lost": { target: "lost" },
        "agent.cancelled": { target: "cancelled" },
      },
    },
    // Every ending is final: a lost agent that reappears is a new agent row, not a revival.
    completed: { type: "final" },
    failed: { type: "final" },
    lost: { type: "final" },
    cancelled: { type: "final" },
  },
});

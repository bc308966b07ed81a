import { assign, setup } from "xstate";

/**
 * One MCP server's process or connection in a session: started on first use, restarted after a crash or a hang
 * on the next call — later each time it fails again, so a server that dies at once is not respawned in a loop —
 * and closed with the session. A call that completes proves the server healthy and clears the count.
 */
export type McpServerEvent =
  | { type: "mcp.start" }
  | { type: "mcp.started" }
  | { type: "mcp.failed"; error: string; at: number }
  | { type: "mcp.call_succeeded" }
  | { type: "mcp.close" };

export type McpServerContext = {
  /** Failures since the last call that completed. */
  readonly failures: number;
  readonly last_failure_at?: number;
  readonly last_error?: string;
};

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;

/** How long the next start must still wait: 0.5 s after the first failure, doubling, at most 30 s. */
export function restart_delay_ms(context: McpServerContext, now: number): number {
  if (context.failures === 0 || context.last_failure_at === undefined) return 0;
  const delay = Math.min(FIRST_DELAY_MS * 2 ** (context.failures - 1), MAX_DELAY_MS);
  return Math.max(0, context.last_failure_at + delay - now);
}

export const mcp_server_machine = setup({
  types: { context: {} as McpServerContext, events: {} as McpServerEvent },
  actions: {
    count_failure: assign({
      failures: ({ context }) => context.failures + 1,
      last_failure_at: ({ event }) => (event.type === "mcp.failed" ? event.at : undefined),
      last_error: ({ event }) => (event.type === "mcp.failed" ? event.error : undefined),
    }),
    clear_failures: assign({ failures: 0 }),
  },
}).createMachine({
  id: "mcp-server",
  initial: "stopped",
  context: { failures: 0 },
  on: { "mcp.close": { target: ".closed" } },
  states: {
    stopped: { on: { "mcp.start": { target: "starting" } } },
    starting: {
      on: {
        "mcp.started": { target: "running" },
        "mcp.failed": { target: "crashed", actions: "count_failure" },
      },
    },
    running: {
      on: {
        "mcp.call_succeeded": { target: "running", actions: "clear_failures" },
        "mcp.failed": { target: "crashed", actions: "count_failure" },
      },
    },
    // Nothing runs; the next call starts it again once `restart_delay_ms` has passed.
    crashed: { on: { "mcp.start": { target: "starting" } } },
    closed: { type: "final" },
  },
});

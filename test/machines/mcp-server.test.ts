import { describe, expect, it } from "vitest";
import { createActor, type SnapshotFrom } from "xstate";
import { mcp_server_machine, restart_delay_ms, type McpServerEvent } from "../../src/machines/mcp-server.js";

function snapshot_after(...events: McpServerEvent[]): SnapshotFrom<typeof mcp_server_machine> {
  const actor = createActor(mcp_server_machine).start();
  for (const event of events) actor.send(event);
  return actor.getSnapshot();
}

const failed = (at: number): McpServerEvent => ({ type: "mcp.failed", error: "the connection closed", at });

describe("mcp-server machine", () => {
  it("starts on first use and runs until it fails or the session closes it", () => {
    expect(snapshot_after().value).toBe("stopped");
    expect(snapshot_after({ type: "mcp.start" }).value).toBe("starting");
    expect(snapshot_after({ type: "mcp.start" }, { type: "mcp.started" }).value).toBe("running");
    expect(snapshot_after({ type: "mcp.start" }, { type: "mcp.started" }, { type: "mcp.close" }).status).toBe("done");
  });

  it("counts failures from a start or a run, and a completed call clears them", () => {
    const crashed = snapshot_after({ type: "mcp.start" }, { type: "mcp.started" }, failed(1_000));
    expect(crashed.value).toBe("crashed");
    expect(crashed.context).toEqual({ failures: 1, last_failure_at: 1_000, last_error: "the connection closed" });
    const twice = snapshot_after({ type: "mcp.start" }, failed(1_000), { type: "mcp.start" }, failed(2_000));
    expect(twice.context.failures).toBe(2);
    const healthy = snapshot_after({ type: "mcp.start" }, failed(1_000), { type: "mcp.start" }, { type: "mcp.started" }, { type: "mcp.call_succeeded" });
    expect(healthy.context.failures).toBe(0);
  });

  it("refuses what its state does not allow: no call success before a start, no second start while starting", () => {
    expect(snapshot_after().can({ type: "mcp.call_succeeded" })).toBe(false);
    expect(snapshot_after({ type: "mcp.start" }).can({ type: "mcp.start" })).toBe(false);
    expect(snapshot_after({ type: "mcp.start" }, { type: "mcp.started" }).can({ type: "mcp.started" })).toBe(false);
  });
});

describe("restart_delay_ms", () => {
  it("is nothing before a failure, then 0.5 s doubling per failure up to 30 s, counted from the last failure", () => {
    expect(restart_delay_ms({ failures: 0 }, 5_000)).toBe(0);
    expect(restart_delay_ms({ failures: 1, last_failure_at: 1_000 }, 1_000)).toBe(500);
    expect(restart_delay_ms({ failures: 1, last_failure_at: 1_000 }, 1_200)).toBe(300);
    expect(restart_delay_ms({ failures: 3, last_failure_at: 1_000 }, 1_000)).toBe(2_000);
    expect(restart_delay_ms({ failures: 20, last_failure_at: 1_000 }, 1_000)).toBe(30_000);
    expect(restart_delay_ms({ failures: 2, last_failure_at: 1_000 }, 60_000)).toBe(0);
  });
});

/**
 * A compaction cut off by a crash: recovery fails its compact task (the originals were never touched) instead of
 * re-queueing it, and the Scheduler never sees compact tasks as its work.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { recover_session } from "../../src/actors/runtime/recovery.js";
import { read_task_graph } from "../../src/actors/runtime/task-graph.js";
import { make_event } from "../../src/contracts/events/registry.js";
import { new_id } from "../../src/contracts/ids.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";

let temp: TempSession;
beforeEach(() => {
  temp = open_temp_session();
});
afterEach(() => temp.cleanup());

describe("recover_session with a compaction in flight", () => {
  it("fails the running compact task and re-queues nothing; read_task_graph leaves compact tasks out", () => {
    const { session } = temp;
    const task_id = new_id("task");
    const tokens = { token_estimate: 9_000, threshold_tokens: 7_000 };
    session.ingestor.ingest(
      make_event("context.compaction.requested", { accepted: true, task_id, reason: "context over threshold", ...tokens }, session.origin),
    );
    session.ingestor.ingest(make_event("context.compaction.started", { task_id, attempt_id: new_id("attempt") }, session.origin));
    expect(read_task_graph(session.connection)).toMatchObject({ runnable: [] });
    expect(read_task_graph(session.connection).counts.running).toBe(0);

    const report = recover_session(session);
    expect(report.requeued_tasks).toEqual([]);
    const row = session.connection.client.prepare("SELECT type, status FROM tasks WHERE id = ?").get(task_id) as Record<string, unknown>;
    expect({ type: row.type, status: row.status }).toEqual({ type: "compact", status: "failed" });
    const types = (session.connection.client.prepare("SELECT type FROM events ORDER BY seq").all() as { type: string }[]).map((event) => event.type);
    expect(types.slice(-1)).toEqual(["context.compaction.failed"]);
  });
});

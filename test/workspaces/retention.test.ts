import { describe, expect, it } from "vitest";
import type { WorkspaceStatus } from "../../src/contracts/status.js";
import { due_for_cleanup, type RetentionRow } from "../../src/workspaces/retention.js";

const now = new Date("2025-06-15T12:00:00.000Z");
const days_ago = (days: number) => new Date(now.getTime() - days * 24 * 60 * 60 * 1000).toISOString();

function row(id: string, status: WorkspaceStatus, changed_days_ago: number): RetentionRow {
  return { id, status, merged_at: status === "merged" ? days_ago(changed_days_ago) : null, updated_at: days_ago(changed_days_ago) };
}

describe("due_for_cleanup", () => {
  it("cleans merged workspaces 7 days after the merge and abandoned ones 3 days after", () => {
    const rows = [row("merged-6d", "merged", 6.9), row("merged-7d", "merged", 7), row("abandoned-2d", "abandoned", 2.9), row("abandoned-3d", "abandoned", 3)];
    expect(due_for_cleanup(rows, now).map((r) => r.id)).toEqual(["merged-7d", "abandoned-3d"]);
  });

  it("never cleans an active or conflicted workspace, however old, nor a cleaned one again", () => {
    const rows = [row("active", "active", 365), row("conflicted", "conflicted", 365), row("cleaned", "cleaned", 365)];
    expect(due_for_cleanup(rows, now)).toEqual([]);
  });

  it("counts a merged workspace's retention from merged_at, not from its last update", () => {
    const merged = { id: "m", status: "merged" as const, merged_at: days_ago(8), updated_at: days_ago(1) };
    expect(due_for_cleanup([merged], now)).toEqual([merged]);
  });
});

describe("due_for_cleanup on a damaged row", () => {
  it("refuses a timestamp that does not parse with a workspace_error instead of keeping the files forever", () => {
    const damaged: RetentionRow = { id: "wsp_damaged", status: "abandoned", merged_at: null, updated_at: "not a time" };
    expect(() => due_for_cleanup([damaged], now)).toThrow(expect.objectContaining({ error: expect.objectContaining({ kind: "workspace_error" }) }));
  });
});

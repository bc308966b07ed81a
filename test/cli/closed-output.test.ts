import { spawn } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AIR_BIN, run_air, spawn_fixture, temp_workspace } from "../fixtures/cli.js";

let workspace: ReturnType<typeof temp_workspace>;
beforeEach(() => {
  workspace = temp_workspace();
});
afterEach(() => workspace.cleanup());

type Ending = { status: number | null; signal: NodeJS.Signals | null; stderr: string };

/**
 * The built `air` with the reading end of its stdout closed before it writes a byte, as `| head` leaves it
 * once it has read its lines: every write air makes fails with EPIPE.
 */
function run_with_closed_stdout(args: string[]): Promise<Ending> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AIR_BIN, ...args], { cwd: workspace.root, env: workspace.env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (status, signal) => resolve({ status, signal, stderr }));
  });
}

describe("air with its stdout closed by the reader", () => {
  it.each([
    ["history --json", ["history", "--json"]],
    ["statecharts", ["statecharts"]],
    ["--help", ["--help"]],
  ])("ends %s quietly, with status 0 and nothing on stderr", async (_, args) => {
    run_air(["init", "--yes"], { cwd: workspace.root, env: workspace.env });
    const writer = spawn_fixture("steady-writer.ts", ["50"], { cwd: workspace.root, env: workspace.env });
    await new Promise((resolve) => writer.on("close", resolve));
    // The command does write to stdout when someone reads it, so the closed run below met EPIPE.
    const open = run_air(args, { cwd: workspace.root, env: workspace.env });
    expect(open.status).toBe(0);
    expect(open.stdout.length).toBeGreaterThan(0);

    const closed = await run_with_closed_stdout(args);
    expect(closed.stderr).toBe("");
    expect(closed).toMatchObject({ status: 0, signal: null });
  });
});

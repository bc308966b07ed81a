import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { run_statecharts } from "../../src/cli/commands/statecharts.js";
import { is_air_failure } from "../../src/contracts/errors.js";
import { normalise_inspect_argv } from "../../src/inspect/argv.js";
import { parse_inspect_target, start_inspection } from "../../src/inspect/attach.js";
import { REPO_ROOT, TempDirs } from "../fixtures/processes.js";

const open: Array<{ close(): void }> = [];
const temp = new TempDirs();
afterEach(() => {
  for (const handle of open.splice(0)) handle.close();
  temp.cleanup();
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (text: string) => void out.push(text), err: (text: string) => void err.push(text), cwd: REPO_ROOT }, out, err };
}

const rejects_as = (kind: string) => (error: unknown) => is_air_failure(error) && error.kind === kind;

describe("--inspect and --inspect-file options", () => {
  it("lets parseArgs read a bare --inspect, and leaves values and what follows -- alone", () => {
    const args = normalise_inspect_argv(["-p", "fix it", "--inspect", "--inspect-file", "t.ndjson", "--", "--inspect"]);
    expect(args).toEqual(["-p", "fix it", "--inspect=local", "--inspect-file", "t.ndjson", "--", "--inspect"]);
    const { values } = parseArgs({
      args: normalise_inspect_argv(["--inspect", "-p", "x"]),
      options: { inspect: { type: "string" }, print: { type: "string", short: "p" } },
    });
    expect(values).toEqual({ inspect: "local", print: "x" });
    expect(normalise_inspect_argv(["--inspect=9229", "--inspect=sky"])).toEqual(["--inspect=9229", "--inspect=sky"]);
  });

  it("reads local, a port, or sky, and nothing else", () => {
    expect(parse_inspect_target("local")).toEqual({ kind: "local", port: 0 });
    expect(parse_inspect_target("9229")).toEqual({ kind: "local", port: 9229 });
    expect(parse_inspect_target("0")).toEqual({ kind: "local", port: 0 });
    expect(parse_inspect_target("sky")).toEqual({ kind: "sky" });
    for (const bad of ["65536", "-1", "stately.ai", "sky ", "0x50"]) {
      expect(() => parse_inspect_target(bad), bad).toThrow(expect.objectContaining({ kind: "user_error" }));
    }
  });

  it("starts nothing without the options", async () => {
    expect(await start_inspection(capture().io, {})).toBeUndefined();
  });

  it("prints the page's address on stderr (stdout may be JSON) and serves it", async () => {
    const { io, out, err } = capture();
    const inspection = (await start_inspection(io, { inspect: "local" }))!;
    open.push(inspection);
    expect(inspection.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(out).toEqual([]);
    expect(err.join("")).toContain(inspection.url!);
    const status = await new Promise<number>((resolve, reject) =>
      http.get(inspection.url!, (response) => resolve(response.resume().statusCode ?? 0)).on("error", reject),
    );
    expect(status).toBe(200);
  });

  it("says which port is taken when --inspect=PORT is in use, and leaves no trace file behind", async () => {
    const first = (await start_inspection(capture().io, { inspect: "local" }))!;
    open.push(first);
    const port = new URL(first.url!).port;
    const file = path.join(temp.make("air-inspect-"), "t.ndjson");
    const attempt = start_inspection(capture().io, { inspect: port, inspect_file: file });
    await expect(attempt).rejects.toSatisfy(rejects_as("env_error"));
    expect(fs.existsSync(file)).toBe(false);
    await expect(start_inspection(capture().io, { inspect: port })).rejects.toThrow(new RegExp(`127\\.0\\.0\\.1:${port}`));
  });

  it("refuses a bad --inspect value before opening the file", async () => {
    const file = path.join(temp.make("air-inspect-"), "never.ndjson");
    await expect(start_inspection(capture().io, { inspect: "remote", inspect_file: file })).rejects.toSatisfy(rejects_as("user_error"));
    expect(fs.existsSync(file)).toBe(false);
  });

  it("closes the relay when the trace file cannot be opened", async () => {
    const { io, err } = capture();
    const attempt = start_inspection(io, { inspect: "local", inspect_file: path.join(temp.make("air-inspect-"), "no", "t.ndjson") });
    await expect(attempt).rejects.toSatisfy(rejects_as("user_error"));
    // No address was announced: nothing is listening for a browser to open.
    expect(err.join("")).not.toContain("127.0.0.1");
  });
});

describe("air statecharts", () => {
  it("prints every machine's Mermaid, the same text as the committed charts", async () => {
    const { io, out } = capture();
    expect(await run_statecharts(io, {})).toBe(0);
    const text = out.join("");
    for (const id of ["task", "agent", "workspace", "capability", "scheduler", "main-agent", "worker-run"]) {
      const committed = fs.readFileSync(path.join(REPO_ROOT, "statecharts", `${id}.mmd`), "utf8");
      expect(text, id).toContain(`%% ${id}\n${committed}`);
    }
  });

  it("prints one machine with --machine, ready to pipe into a renderer", async () => {
    const { io, out } = capture();
    expect(await run_statecharts(io, { machine: "scheduler" })).toBe(0);
    expect(out.join("")).toBe(fs.readFileSync(path.join(REPO_ROOT, "statecharts", "scheduler.mmd"), "utf8"));
  });

  it("names the machines there are when asked for one that is not", async () => {
    await expect(run_statecharts(capture().io, { machine: "planner" })).rejects.toSatisfy(
      (error: unknown) => rejects_as("user_error")(error) && /main-agent/.test((error as { error: { user_action?: string } }).error.user_action ?? ""),
    );
  });
});

/**
 * The clangd pool's process discipline on real processes: one clangd per workspace, reused; restarted after it
 * dies; bounded by a timeout; gone after `close()`, and gone when its owner is SIGKILLed. Processes are counted
 * from /proc as well as by the pool itself.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { is_air_failure } from "../../../src/contracts/errors.js";
import { ClangdPool, type ClangdPoolOptions } from "../../../src/cpp/clangd/pool.js";
import { run_clangd_query } from "../../../src/cpp/clangd/query.js";
import { Child, TempDirs } from "../../fixtures/processes.js";
import { clangd_children, HAS_CLANGD, process_alive, write_clangd_project } from "./helpers.js";

const temps = new TempDirs();
const pools: ClangdPool[] = [];
const children: Child[] = [];
let root: string;

beforeEach(() => {
  root = fs.realpathSync(temps.make("air-clangd-"));
  write_clangd_project(root);
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill();
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  temps.cleanup();
});

function pool_of(options: ClangdPoolOptions = {}): ClangdPool {
  const pool = new ClangdPool(options);
  pools.push(pool);
  return pool;
}

/** One document_symbols query on main.cpp: the names of its symbols. */
async function symbols(pool: ClangdPool): Promise<string[]> {
  const { client, compile_commands_dir } = await pool.client(root);
  const file = path.join(root, "src", "main.cpp");
  const output = await run_clangd_query({ client, root, compile_commands_dir, file, text: fs.readFileSync(file, "utf8"), action: "document_symbols" });
  return output.action === "document_symbols" ? output.symbols.map((symbol) => symbol.name) : [];
}

/** The AirError a promise rejects with. */
async function failure_of(work: Promise<unknown>) {
  const error: unknown = await work.then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  if (!is_air_failure(error)) throw new Error(`expected an AirFailure, got ${String(error)}`);
  return error.error;
}

/** A stand-in server: a shell script in the temp folder, run instead of clangd. */
function script(body: string): string {
  const file = path.join(temps.make("air-fake-clangd-"), "clangd");
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

describe.skipIf(!HAS_CLANGD)("the clangd pool", () => {
  it("answers two queries of one workspace with one clangd", async () => {
    const pool = pool_of();
    expect(await symbols(pool)).toEqual(["twice", "main"]);
    expect(await symbols(pool)).toEqual(["twice", "main"]);
    expect(pool.started).toBe(1);
    const pids = await pool.pids();
    expect(pids).toHaveLength(1);
    expect(clangd_children()).toEqual(pids);
  });

  it("leaves no clangd process after close()", async () => {
    const pool = pool_of();
    await symbols(pool);
    const [pid] = await pool.pids();
    if (pid === undefined) throw new Error("no clangd started");
    await pool.close();
    expect(process_alive(pid)).toBe(false);
    expect(clangd_children()).toEqual([]);
    expect((await failure_of(symbols(pool))).message).toContain("the clangd pool is closed");
  });

  it("starts a fresh clangd on the next call after one was killed", async () => {
    const pool = pool_of();
    await symbols(pool);
    const [first] = await pool.pids();
    if (first === undefined) throw new Error("no clangd started");
    process.kill(first, "SIGKILL");
    // Once the pool has seen the exit; a call racing the crash itself gets the crash as its error.
    await vi.waitFor(async () => expect(await pool.pids()).toEqual([]));
    expect(await symbols(pool)).toEqual(["twice", "main"]);
    expect(pool.started).toBe(2);
    const [second] = await pool.pids();
    expect(second).not.toBe(first);
    expect(clangd_children()).toEqual([second]);
  });

  it("restarts clangd with the compilation database once one appears in build/air", async () => {
    const database = path.join(root, "compile_commands.json");
    fs.rmSync(database);
    const pool = pool_of();
    expect(await symbols(pool)).toEqual(["twice", "main"]);
    expect((await pool.client(root)).compile_commands_dir).toBeNull();
    fs.mkdirSync(path.join(root, "build", "air"), { recursive: true });
    write_clangd_project(root);
    fs.renameSync(database, path.join(root, "build", "air", "compile_commands.json"));
    const { compile_commands_dir } = await pool.client(root);
    expect(compile_commands_dir).toBe(path.join(root, "build", "air"));
    expect(pool.started).toBe(2);
    expect(clangd_children()).toHaveLength(1);
  });

  it("reports a clangd that dies with the tail of its stderr", async () => {
    const pool = pool_of({ executable: script("echo 'clangd: the compilation database is corrupt' >&2\nexit 3") });
    const error = await failure_of(symbols(pool));
    expect(error.kind).toBe("tool_error");
    expect(error.message).toContain("exited with code 3");
    expect(error.message).toContain("the compilation database is corrupt");
  });

  it("reports a clangd that cannot start", async () => {
    const pool = pool_of({ executable: path.join(root, "no-such-clangd") });
    const error = await failure_of(symbols(pool));
    expect(error.kind).toBe("tool_error");
    expect(error.message).toContain("could not start");
  });

  it("fails a request clangd does not answer with a timeout error, and stops that clangd", async () => {
    const pid_file = path.join(root, "fake.pid");
    const pool = pool_of({ executable: script(`echo $$ > '${pid_file}'\nexec cat > /dev/null`), request_timeout_ms: 500 });
    const error = await failure_of(symbols(pool));
    expect(error.kind).toBe("tool_error");
    expect(error.message).toContain("did not answer initialize within 500 ms");
    const pid = Number(fs.readFileSync(pid_file, "utf8"));
    await vi.waitFor(() => expect(process_alive(pid)).toBe(false));
  });

  it("leaves no clangd when the process that owns it is SIGKILLed", async () => {
    const owner = new Child("clangd-owner.ts", [root]);
    children.push(owner);
    const line = await owner.line((text) => text.startsWith("clangd "));
    const pid = Number(line.slice("clangd ".length));
    expect(process_alive(pid)).toBe(true);
    expect(clangd_children(owner.pid)).toEqual([pid]);
    owner.kill("SIGKILL");
    await owner.exit;
    // Nothing stops it but the EOF on its stdin that the owner's death causes.
    await vi.waitFor(() => expect(process_alive(pid)).toBe(false), { timeout: 20_000, interval: 50 });
  });
});

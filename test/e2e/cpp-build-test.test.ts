/**
 * `air e2e cpp-build-test-fixture` through the built CLI, then its session DB: the executor works with the C++
 * capability's tools, gets the header's compile error once although three translation units reported it, fixes
 * it, and its verification — cpp.cmake.configure, cpp.build, cpp.test — passes.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Connection } from "../../src/db/connection.js";
import { referential_check } from "../../src/event-store/referential-check.js";
import { air, air_env, events_of, only_session, open_readonly, query, require_build, session_files, temp_dir } from "./helpers.js";

const missing_tools = ["cmake", "ctest", "c++"].filter((tool) => spawnSync("bash", ["-c", `command -v ${tool}`]).status !== 0);
if (missing_tools.length > 0) {
  console.warn(`[e2e] skipping the C++ build-test fixture: ${missing_tools.join(", ")} not found on PATH (Debian: apt-get install cmake g++)`);
}

type RootCause = { semantic_signature: string; occurrences: number };

describe.skipIf(missing_tools.length > 0)("air e2e cpp-build-test-fixture --keep, then the session DB", () => {
  let home: ReturnType<typeof temp_dir>;
  let kept_work: string | undefined;
  let stdout: string;
  let connection: Connection;

  beforeAll(async () => {
    require_build();
    home = temp_dir("air-e2e-home-");
    const run = await air(["e2e", "cpp-build-test-fixture", "--keep"], { cwd: home.dir, env: air_env(path.join(home.dir, "air-home")) });
    stdout = run.stdout;
    const kept = /^fixture cpp-build-test: (.+)$/m.exec(run.stdout)?.[1];
    if (kept !== undefined) kept_work = path.dirname(kept);
    expect(run.result, run.transcript).toEqual({ code: 0, signal: null });
    expect(kept, `no kept project path in the output:\n${run.transcript}`).toBeDefined();
    connection = open_readonly(session_files(kept!, only_session(kept!)).db);
  });

  afterAll(() => {
    connection?.close();
    if (kept_work !== undefined && path.basename(kept_work).startsWith("air-e2e-cpp-build-test-")) fs.rmSync(kept_work, { recursive: true, force: true });
    home?.cleanup();
  });

  it("reports a passing run", () => {
    expect(stdout).toContain("event chain: complete");
    expect(stdout).toContain("e2e passed");
  });

  it("activated toolchain-cpp through its whole lifecycle before the executor was offered its tools", () => {
    const [row] = query(connection, "SELECT * FROM capabilities WHERE name = 'toolchain-cpp'");
    expect(row).toMatchObject({ status: "active", trust_level: "built_in" });
    const types = events_of(connection)
      .filter((event) => event.type.startsWith("capability.") && event.payload.capability_id === row!.id)
      .map((event) => event.type);
    expect(types).toEqual([
      "capability.discovered",
      "capability.validated",
      "capability.doctor_checked",
      "capability.enabled",
      "capability.tools_registered",
      "capability.activated",
    ]);
    expect(row!.tool_names_json).toEqual(
      expect.arrayContaining(["cpp.detect", "cpp.cmake.configure", "cpp.build", "cpp.test", "cpp.static.cppcheck", "cpp.clangd.query"]),
    );
  });

  it("recorded the compile error as one diagnostics row, signed, with its evidence", () => {
    const diagnostics = query(connection, "SELECT * FROM diagnostics");
    expect(diagnostics).toHaveLength(1);
    const [diagnostic] = diagnostics;
    expect(diagnostic).toMatchObject({ severity: "error", file: "src/shapes.h", line: 9, source_tool: "cpp.build" });
    expect(String(diagnostic!.message)).toContain("has no member named");
    expect(diagnostic!.semantic_signature).toMatch(/^sig\/v1:/);
    expect(diagnostic!.family_signature).toMatch(/^sig\/v1:/);
    const [run] = query(connection, "SELECT * FROM command_runs WHERE id = ?", diagnostic!.command_run_id);
    expect(run).toMatchObject({ command: "cmake --build build/air -j 4", exit_code: 1 });
    const evidence = query(connection, "SELECT * FROM evidence_refs WHERE kind = 'diagnostic'");
    expect(evidence.map((row) => row.diagnostic_id)).toEqual([diagnostic!.id]);
  });

  it("failed the first cpp.build with a build_error signed by its one root cause, reported by three translation units", () => {
    const builds = query(connection, "SELECT status, error_json FROM tool_runs WHERE tool_name = 'cpp.build' ORDER BY started_at");
    expect(builds.map((build) => build.status)).toEqual(["error", "ok", "ok"]);
    const error = builds[0]!.error_json as { kind: string; semantic_signature: string; metadata: { root_causes: RootCause[] } };
    const [diagnostic] = query(connection, "SELECT semantic_signature FROM diagnostics");
    expect(error).toMatchObject({ kind: "build_error", semantic_signature: diagnostic!.semantic_signature });
    expect(error.metadata.root_causes).toEqual([expect.objectContaining({ semantic_signature: diagnostic!.semantic_signature, occurrences: 3 })]);
  });

  it("completed the task, verified by the three tools on the fixed project", () => {
    const [task] = query(connection, "SELECT status, worker_result_json FROM tasks");
    const result = task!.worker_result_json as { status: string; changed_files: string[]; verification: { command: string; passed: boolean }[] };
    expect(task!.status).toBe("completed");
    expect(result.status).toBe("completed");
    expect(result.changed_files).toEqual(["src/shapes.h"]);
    expect(result.verification.map((check) => [check.command, check.passed])).toEqual([
      ["cpp.cmake.configure", true],
      ["cpp.build", true],
      ["cpp.test", true],
    ]);
    const tests = query(connection, "SELECT status FROM tool_runs WHERE tool_name = 'cpp.test'");
    expect(tests.map((row) => row.status)).toEqual(["ok", "ok"]);
  });

  it("passes the referential check", () => {
    expect(referential_check(connection)).toEqual({ ok: true, orphans: [] });
  });
});

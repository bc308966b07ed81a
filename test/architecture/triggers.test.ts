import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse_unified_diff, type ChangedFile } from "../../src/architecture/change.js";
import { architecture_file, load_architecture_paths } from "../../src/architecture/declared-paths.js";
import { detect_triggers } from "../../src/architecture/triggers.js";
import { AirFailure } from "../../src/contracts/errors.js";
import type { ReviewFinding } from "../../src/contracts/worker-result.js";
import { temp_project, type TempProject } from "../fixtures/session.js";

const modified = (file: string, added: string[] = ["x"], removed: string[] = []): ChangedFile => ({ path: file, status: "modified", added, removed });
const kinds_of = (files: ChangedFile[], declared = {}) => detect_triggers({ change: { files }, declared }).map((trigger) => [trigger.kind, trigger.file]);

describe("architecture triggers", () => {
  it("fire for a public header under include/, however deep, and not for a source file or a private header", () => {
    expect(kinds_of([modified("include/calc.h"), modified("libs/core/include/core/api.hpp"), modified("src/calc.cpp"), modified("src/detail.h")])).toEqual([
      ["public_interface", "include/calc.h"],
      ["public_interface", "libs/core/include/core/api.hpp"],
    ]);
  });

  it("fire for schemas: protobuf files, SQL migrations and schema files", () => {
    expect(kinds_of([modified("proto/run.proto"), modified("db/migrations/0002_add.sql"), modified("db/schema.sql"), modified("db/seed.sql")])).toEqual([
      ["schema", "proto/run.proto"],
      ["schema", "db/migrations/0002_add.sql"],
      ["schema", "db/schema.sql"],
    ]);
  });

  it("fire for package manifests, and for a CMakeLists only when a change touches targets, links or subdirectories", () => {
    const cmake_flags = modified("CMakeLists.txt", ['set(CMAKE_CXX_FLAGS "-O2")']);
    const cmake_links = modified("libs/core/CMakeLists.txt", ["target_link_libraries(core PRIVATE fmt)"]);
    const cmake_new = { path: "libs/extra/CMakeLists.txt", status: "added" as const, added: ["project(extra)"], removed: [] };
    expect(kinds_of([modified("package.json"), cmake_flags, cmake_links, cmake_new, modified("vcpkg.json")])).toEqual([
      ["package_boundary", "package.json"],
      ["package_boundary", "libs/core/CMakeLists.txt"],
      ["package_boundary", "libs/extra/CMakeLists.txt"],
      ["package_boundary", "vcpkg.json"],
    ]);
  });

  it("fire for every kind the project declares, each kind once per file, naming the declaration", () => {
    const declared = {
      interfaces: ["src/api/**"],
      schemas: ["src/db/*.ts"],
      events: ["src/contracts/events/**"],
      ipc: ["src/contracts/ipc.ts"],
      tools: ["src/tools/**/define.ts"],
      providers: ["src/contracts/provider.ts"],
      packages: ["packages/*/package.json"],
    };
    const files = [
      modified("src/api/index.ts"),
      modified("src/db/schema.ts"),
      modified("src/contracts/events/task.ts"),
      modified("src/contracts/ipc.ts"),
      modified("src/tools/define.ts"),
      modified("src/contracts/provider.ts"),
      modified("packages/core/package.json"),
      modified("src/other.ts"),
    ];
    const triggers = detect_triggers({ change: { files }, declared });
    expect(triggers.map((trigger) => trigger.kind)).toEqual([
      "public_interface",
      "schema",
      "event",
      "ipc",
      "tool_contract",
      "provider_contract",
      "package_boundary",
    ]);
    expect(triggers[0]?.detail).toBe("public interface src/api/index.ts changed (+1 −0 lines) (declared in architecture.yaml)");
  });

  it("fire for a reviewer's architecture finding and a worker's architecture blocker, and for nothing else they say", () => {
    const finding = (category: ReviewFinding["category"]): ReviewFinding => ({
      severity: "P1",
      confidence: 0.9,
      category,
      file: "src/a.cpp",
      message: `${category} concern`,
      evidence_refs: [],
    });
    const triggers = detect_triggers({
      change: { files: [] },
      findings: [finding("architecture"), finding("style")],
      blockers: [
        { category: "architecture", summary: "the interface cannot carry the new field", needed: "a decision on the header", evidence_refs: [] },
        { category: "environment", summary: "no compiler", needed: "a compiler", evidence_refs: [] },
      ],
    });
    expect(triggers).toEqual([
      { kind: "review_finding", detail: "reviewer (P1, confidence 0.9): architecture concern", file: "src/a.cpp" },
      { kind: "worker_blocker", detail: "worker blocked: the interface cannot carry the new field (needs a decision on the header)" },
    ]);
  });

  it("are none for an ordinary change: the gate then costs no model call", () => {
    expect(detect_triggers({ change: { files: [modified("src/calc.cpp"), modified("README.md")] } })).toEqual([]);
  });
});

describe("parse_unified_diff", () => {
  it("reads added, modified and deleted files with their added and removed lines", () => {
    const diff = [
      "diff --git a/include/calc.h b/include/calc.h",
      "index 1111111..2222222 100644",
      "--- a/include/calc.h",
      "+++ b/include/calc.h",
      "@@ -1,2 +1,2 @@",
      " #pragma once",
      "-int add(int a, int b);",
      "+long add(long a, long b);",
      "diff --git a/notes.md b/notes.md",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/notes.md",
      "@@ -0,0 +1 @@",
      "+hello",
      "diff --git a/old.txt b/old.txt",
      "deleted file mode 100644",
      "--- a/old.txt",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-bye",
    ].join("\n");
    expect(parse_unified_diff(diff)).toEqual([
      { path: "include/calc.h", status: "modified", added: ["long add(long a, long b);"], removed: ["int add(int a, int b);"] },
      { path: "notes.md", status: "added", added: ["hello"], removed: [] },
      { path: "old.txt", status: "deleted", added: [], removed: ["bye"] },
    ]);
  });
});

describe("architecture.yaml", () => {
  let project: TempProject | undefined;
  afterEach(() => project?.cleanup());

  const write = (text: string) => {
    project = temp_project();
    const file = architecture_file(project.project.layout);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    return project.project.layout;
  };

  it("declares the project's contract paths, and is optional", () => {
    const layout = write('interfaces: ["libs/*/api/**"]\nevents: []\n');
    expect(load_architecture_paths(layout)).toEqual({ interfaces: ["libs/*/api/**"], events: [] });
    fs.rmSync(architecture_file(layout));
    expect(load_architecture_paths(layout)).toEqual({});
  });

  it("when broken, is an AirError naming the file and the field", () => {
    const layout = write("interfaces: include/**\nschemas: [ok]\n");
    let thrown: unknown;
    try {
      load_architecture_paths(layout);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AirFailure);
    const error = thrown instanceof AirFailure ? thrown.error : undefined;
    expect(error?.kind).toBe("user_error");
    expect(error?.message).toContain(architecture_file(layout));
    expect(error?.message).toContain("interfaces: expected Array");
    expect(error?.metadata).toEqual({ file: architecture_file(layout) });
  });

  it("refuses an unknown kind and a glob that leaves the project", () => {
    expect(() => load_architecture_paths(write("widgets: [a]\n"))).toThrow(/widgets: unknown key/);
    expect(() => load_architecture_paths(write('packages: ["../elsewhere/**"]\n'))).toThrow(/packages\.0: expected a glob inside the project/);
  });
});

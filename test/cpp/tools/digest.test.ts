/** The digest the model reads of a build or test run: errors first and grouped, at most 4 KB, saying what it left out. */
import { describe, expect, it } from "vitest";
import { parse_diagnostics } from "../../../src/cpp/diagnostics/parse.js";
import { digest_of, group_errors } from "../../../src/cpp/tools/digest.js";
import type { Recorded } from "../../../src/cpp/tools/rows.js";
import { new_id } from "../../../src/contracts/ids.js";

function recorded_of(log: string): Recorded[] {
  return parse_diagnostics(log, { from: "auto", root: "/src/app", build_dirs: ["/src/app/build"] }).map((diagnostic) => ({
    diagnostic,
    row: {
      diagnostic_id: new_id("diagnostic"),
      severity: diagnostic.severity,
      file: diagnostic.file,
      line: diagnostic.line,
      column: diagnostic.column,
      code: diagnostic.code,
      message: diagnostic.message,
      function: diagnostic.context.function,
      semantic_signature: diagnostic.semantic_signature,
      family_signature: diagnostic.family_signature,
      occurrences: diagnostic.occurrences,
    },
  }));
}

function error_lines(count: number, severity = "error"): string {
  return Array.from(
    { length: count },
    (_, index) => `/src/app/file${index}.cpp:${index + 1}:5: ${severity}: 'name${index}' was not declared in this scope`,
  ).join("\n");
}

describe("digest_of", () => {
  it("stays within 4 KB and says how many entries it left out", () => {
    const digest = digest_of(recorded_of(error_lines(300)));
    expect(Buffer.byteLength(digest)).toBeLessThanOrEqual(4096);
    expect(digest).toMatch(/^300 errors \(300 root causes\), 0 warnings, 0 notes\n/);
    expect(digest).toMatch(/… \d+ more entries left out \(every diagnostic is in the diagnostics table\)$/);
  });

  it("puts errors before warnings whatever their files", () => {
    const log = ["/src/app/a.cpp:1:1: warning: unused variable 'x' [-Wunused-variable]", "/src/app/z.cpp:9:1: error: 'y' was not declared in this scope"].join(
      "\n",
    );
    const lines = digest_of(recorded_of(log)).split("\n");
    expect(lines[1]).toMatch(/^error z\.cpp:9:1: /);
    expect(lines[2]).toMatch(/^warning a\.cpp:1:1: .*\[-Wunused-variable\]$/);
  });

  it("is the whole story when it fits", () => {
    const digest = digest_of(recorded_of(error_lines(2)));
    expect(digest).not.toContain("left out");
    expect(digest.split("\n")).toHaveLength(3);
  });
});

describe("group_errors", () => {
  it("counts a header error printed by two translation units as one root cause reported twice", () => {
    const log = [
      "[1/2] Building CXX object CMakeFiles/app.dir/a.cpp.o",
      "FAILED: CMakeFiles/app.dir/a.cpp.o",
      "/usr/bin/c++ -o CMakeFiles/app.dir/a.cpp.o -c /src/app/a.cpp",
      "In file included from /src/app/a.cpp:1:",
      "/src/app/shape.hpp:4:32: error: 'scale' was not declared in this scope",
      "[2/2] Building CXX object CMakeFiles/app.dir/b.cpp.o",
      "FAILED: CMakeFiles/app.dir/b.cpp.o",
      "/usr/bin/c++ -o CMakeFiles/app.dir/b.cpp.o -c /src/app/b.cpp",
      "In file included from /src/app/b.cpp:1:",
      "/src/app/shape.hpp:4:32: error: 'scale' was not declared in this scope",
    ].join("\n");
    const groups = group_errors(recorded_of(log));
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ occurrences: 2, first: { file: "shape.hpp", line: 4 } });
  });
});

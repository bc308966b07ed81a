/**
 * `air cpp parse`: the DiagnosticParser over saved output, every grammar behind one entry. Real captures
 * (test/fixtures/cpp-diagnostics): a header error that two translation units print is one record, and the
 * same build moved to another folder, the header shifted, the build folder renamed and colour forced gives
 * the same signatures.
 */
import path from "node:path";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { run_cpp_parse, type CppParseOptions } from "../../src/cli/commands/cpp-parse.js";
import type { Io } from "../../src/cli/output.js";
import { is_air_failure } from "../../src/contracts/errors.js";
import { Diagnostic } from "../../src/cpp/diagnostics/record.js";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/cpp-diagnostics");

async function parsed(options: Omit<CppParseOptions, "json"> & { json?: boolean }): Promise<string> {
  let out = "";
  const io: Io = { cwd: FIXTURES, out: (text) => (out += text), err: () => undefined };
  expect(await run_cpp_parse(io, { json: true, ...options })).toBe(0);
  return out;
}

async function diagnostics_of(file: string, root: string): Promise<Diagnostic[]> {
  const out = await parsed({ files: [file], root });
  expect(out.endsWith("\n")).toBe(true);
  return v.parse(v.strictObject({ diagnostics: v.array(Diagnostic) }), JSON.parse(out)).diagnostics;
}

async function refusal(options: Omit<CppParseOptions, "json">): Promise<string> {
  try {
    await parsed(options);
  } catch (error) {
    if (is_air_failure(error)) return `${error.error.kind}: ${error.error.message} → ${error.error.user_action ?? ""}`;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("air cpp parse", () => {
  it("prints one JSON object whose header error, printed by two translation units, is one record with both", async () => {
    const [header, ...rest] = await diagnostics_of("signatures/header-ninja.txt", "/tmp/h13sig/hdrA");
    expect(rest).toEqual([]);
    expect(header).toMatchObject({
      severity: "error",
      file: "include/bad.h",
      line: 2,
      column: 27,
      message: "'nope' was not declared in this scope",
      source: "gcc",
      occurrences: ["src/a.cpp", "src/b.cpp"],
      context: { function: "int bad()" },
    });
  });

  it("gives the same signatures for the same build moved, its header shifted, its build folder renamed, in colour", async () => {
    const [before] = await diagnostics_of("signatures/header-ninja.txt", "/tmp/h13sig/hdrA");
    const [after] = await diagnostics_of("signatures/header-ninja-moved-colour.txt", "/tmp/h13sig/moved/hdrB");
    expect(after?.line).not.toBe(before?.line);
    expect(after).toMatchObject({
      file: before?.file,
      occurrences: before?.occurrences,
      semantic_signature: before?.semantic_signature,
      family_signature: before?.family_signature,
    });
  });

  it("reads a line per diagnostic as text, with where, severity, message and signature", async () => {
    const out = await parsed({ files: ["signatures/header-ninja.txt"], root: "/tmp/h13sig/hdrA", json: false });
    expect(out).toMatch(/^include\/bad\.h:2:27: error: 'nope' was not declared in this scope \(2 places\)\n {4}sig\/v1:[0-9a-f]{64}\n$/);
  });

  it("refuses an unknown --from naming the formats, a file it cannot read, and no file at all", async () => {
    expect(await refusal({ files: ["signatures/header-ninja.txt"], from: "msvc" })).toMatch(/^user_error: --from msvc .* → Use one of: auto, gcc, clang/);
    expect(await refusal({ files: ["no-such.log"] })).toMatch(/^user_error: cannot read no-such\.log/);
    expect(await refusal({ files: [] })).toMatch(/^user_error: air cpp parse needs at least one FILE/);
  });
});

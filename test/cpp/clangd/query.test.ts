/**
 * cpp.clangd.query on the real clangd, through the ToolRegistry the runtime uses and the tool set that
 * toolchain-cpp's `create_tools` builds: a two-file project with a header, its compile_commands.json
 * written with absolute paths into the temp project.
 */
import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CapabilityTools } from "../../../src/capabilities/builtin.js";
import { ClangdQueryOutput } from "../../../src/cpp/clangd/results.js";
import { toolchain_cpp } from "../../../src/cpp/capability.js";
import { error_of, output_of, tool_harness, type ToolHarness } from "../../tools/helpers.js";
import { clangd_children, HAS_CLANGD, write_clangd_project } from "./helpers.js";

let h: ToolHarness;
let tools: CapabilityTools;
beforeEach(() => {
  h = tool_harness();
  tools = toolchain_cpp.create_tools();
  for (const definition of tools.definitions) h.registry.register(definition);
  write_clangd_project(h.root);
});
afterEach(async () => {
  await tools.close();
  h.cleanup();
});

async function query(input: Record<string, unknown>): Promise<ClangdQueryOutput> {
  return v.parse(ClangdQueryOutput, output_of(await h.call("cpp.clangd.query", input)));
}

async function locations(input: Record<string, unknown>) {
  const output = await query(input);
  if (output.action !== "definition" && output.action !== "references") throw new Error(`no locations in ${output.action}`);
  return output.locations.map(({ file, line, column }) => ({ file, line, column }));
}

describe.skipIf(!HAS_CLANGD)("cpp.clangd.query", () => {
  it("finds the definition of a function used in main.cpp in the other translation unit", async () => {
    // main.cpp:7 `int first = area(corner);` — `area` is declared in the header and defined in geometry.cpp:3.
    expect(await locations({ file: "src/main.cpp", action: "definition", line: 7, column: 15 })).toEqual([{ file: "src/geometry.cpp", line: 3, column: 5 }]);
  });

  it("finds the definition of a type in the header", async () => {
    expect(await locations({ file: "src/main.cpp", action: "definition", line: 6, column: 3 })).toEqual([{ file: "include/geometry.hpp", line: 4, column: 8 }]);
  });

  it("lists every use of a function with its declaration and definition", async () => {
    expect(await locations({ file: "src/main.cpp", action: "references", line: 7, column: 15 })).toEqual([
      { file: "include/geometry.hpp", line: 10, column: 5 },
      { file: "src/geometry.cpp", line: 3, column: 5 },
      { file: "src/main.cpp", line: 7, column: 15 },
      { file: "src/main.cpp", line: 8, column: 16 },
    ]);
  });

  it("names the type of a variable on hover, as plain text", async () => {
    const output = await query({ file: "src/main.cpp", action: "hover", line: 6, column: 9 });
    expect(output.action === "hover" && output.hover).toContain("Type: struct Point");
  });

  it("lists the functions of a file as its document symbols", async () => {
    const output = await query({ file: "src/main.cpp", action: "document_symbols" });
    if (output.action !== "document_symbols") throw new Error(output.action);
    expect(output.symbols.map(({ name, kind, line }) => ({ name, kind, line }))).toEqual([
      { name: "twice", kind: "function", line: 3 },
      { name: "main", kind: "function", line: 5 },
    ]);
  });

  it("reports a seeded error as a signed diagnostic record, and follows the file as it changes on disk", async () => {
    const clean = await query({ file: "src/main.cpp", action: "diagnostics" });
    expect(clean.action === "diagnostics" && clean.diagnostics).toEqual([]);
    const main = path.join(h.root, "src", "main.cpp");
    fs.writeFileSync(main, fs.readFileSync(main, "utf8").replace("return twice(first - second);", "return twice(first - undefined_value);"));
    const broken = await query({ file: "src/main.cpp", action: "diagnostics" });
    if (broken.action !== "diagnostics") throw new Error(broken.action);
    expect(broken.diagnostics).toHaveLength(1);
    expect(broken.diagnostics[0]).toMatchObject({
      severity: "error",
      file: "src/main.cpp",
      line: 9,
      column: 24,
      code: "undeclared_var_use",
      message: "Use of undeclared identifier 'undefined_value'",
      source: "clang",
    });
    expect(broken.diagnostics[0]?.semantic_signature).toMatch(/^sig\/v1:[0-9a-f]{64}$/);
  });

  it("answers no hover on blank space, and refuses a position past the end of the file", async () => {
    const blank = await query({ file: "src/main.cpp", action: "hover", line: 2, column: 1 });
    expect(blank.action === "hover" && blank.hover).toBeNull();
    const error = error_of(await h.call("cpp.clangd.query", { file: "src/main.cpp", action: "hover", line: 500, column: 1 }));
    expect(error.kind).toBe("tool_error");
    expect(error.message).toBe("line 500 is past the end of src/main.cpp (10 lines)");
  });

  it("refuses a position action without line and column, as an input error", async () => {
    const error = error_of(await h.call("cpp.clangd.query", { file: "src/main.cpp", action: "hover" }));
    expect(error.kind).toBe("tool_error");
    expect(error.message).toContain("definition, references and hover need line and column");
  });

  it("stops its clangd when the tool set closes, and each tool set has a clangd of its own", async () => {
    const other = toolchain_cpp.create_tools();
    const other_registry = tool_harness();
    try {
      for (const definition of other.definitions) other_registry.registry.register(definition);
      write_clangd_project(other_registry.root);
      await query({ file: "src/main.cpp", action: "document_symbols" });
      output_of(await other_registry.call("cpp.clangd.query", { file: "src/main.cpp", action: "document_symbols" }));
      expect(clangd_children()).toHaveLength(2);
      await tools.close();
      expect(clangd_children()).toHaveLength(1);
      await other.close();
      expect(clangd_children()).toEqual([]);
    } finally {
      await other.close();
      other_registry.cleanup();
    }
  });

  it("declares the file it reads and nothing else", () => {
    const tool = tools.definitions.find((definition) => definition.name === "cpp.clangd.query");
    expect(tool?.name).toBe("cpp.clangd.query");
    expect(tool?.category).toBe("project");
    expect(tool?.permissions.reads?.({ file: "src/main.cpp", action: "document_symbols" })).toEqual(["src/main.cpp"]);
    expect(tool?.permissions.writes).toBeUndefined();
    expect(tool?.permissions.executes).toBeUndefined();
  });
});

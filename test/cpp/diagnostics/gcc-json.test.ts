/**
 * GCC's -fdiagnostics-format=json on real outputs of the corpus: read alone, and merged into the text records of
 * the same bug when a log holds both.
 */
import { describe, expect, it } from "vitest";
import { parse_diagnostics } from "../../../src/cpp/diagnostics/parse.js";
import { corpus_entries, corpus_text, parse_entry } from "../../fixtures/cpp-corpus.js";

function entry(output: string) {
  const found = corpus_entries().find((candidate) => candidate.output === output);
  if (found === undefined) throw new Error(`no corpus output ${output}`);
  return found;
}

describe("GCC JSON diagnostics", () => {
  it("reads a JSON-only build: the option code and GCC's fix-it come from the JSON", () => {
    const [warning] = parse_entry(entry("gcc-json/unused-variable/base.txt")).filter((d) => d.severity === "warning");
    expect(warning).toMatchObject({ file: "main.cpp", line: 2, code: "-Wunused-variable", source: "gcc" });
    const [error] = parse_entry(entry("gcc-json/struct-missing-semicolon/base.txt"));
    expect(error?.fixits).toEqual([{ file: "main.cpp", start: { line: 3, column: 2 }, end: { line: 3, column: 2 }, replacement: ";" }]);
  });

  it("detects JSON under --from gcc as under auto", () => {
    const json = entry("gcc-json/undeclared-identifier/base.txt");
    const options = { root: json.root, build_dirs: json.build_dirs };
    expect(parse_diagnostics(corpus_text(json), { ...options, from: "gcc" })).toEqual(parse_diagnostics(corpus_text(json), { ...options, from: "auto" }));
  });

  it("merges the JSON's fix-its into the text record of the same place, keeping the text's enclosing function, with no second record", () => {
    const text = entry("compile/struct-missing-semicolon/gcc-base.txt");
    const json = entry("gcc-json/struct-missing-semicolon/base.txt");
    const both = parse_diagnostics(`${corpus_text(text)}\n${corpus_text(json)}`, {
      from: "auto",
      root: text.root,
      build_dirs: [...text.build_dirs, ...json.build_dirs],
    });
    const errors = both.filter((d) => d.severity === "error" && d.file === "main.cpp" && d.line === 3);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fixits.map((fixit) => fixit.replacement)).toEqual([";"]);
    expect(errors[0]?.semantic_signature).toBe(parse_entry(text).find((d) => d.line === 3)?.semantic_signature);
  });
});

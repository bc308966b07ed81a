/**
 * The DiagnosticParser never throws on what a log can turn out to be: cut off anywhere, binary, or huge.
 */
import { describe, expect, it } from "vitest";
import { From, parse_diagnostics } from "../../../src/cpp/diagnostics/parse.js";
import { seeded_random } from "../../fixtures/prng.js";
import { CORPUS_WORK, corpus_entries, corpus_text, mixed_log, parse_entry } from "../../fixtures/cpp-corpus.js";

const entries = corpus_entries();
/** Text formats: a structured format named explicitly and then broken is an AirFailure by design. */
const TEXT_FORMATS = From.options.filter((from) => !["ctest-junit", "gtest-json", "cppcheck-xml"].includes(from));

function random_bytes(seed: number, length: number): string {
  const random = seeded_random(seed);
  const bytes = Buffer.alloc(length);
  for (let index = 0; index < length; index += 1) bytes[index] = Math.floor(random() * 256);
  return bytes.toString("utf8");
}

describe("the DiagnosticParser on hostile input", () => {
  it("never throws on any corpus output cut at a tenth, a third, half, two thirds and one byte short", () => {
    let parses = 0;
    for (const entry of entries) {
      const text = corpus_text(entry);
      for (const share of [0.1, 1 / 3, 0.5, 2 / 3]) {
        expect(() => parse_entry(entry, text.slice(0, Math.floor(text.length * share)))).not.toThrow();
        parses += 1;
      }
      expect(() => parse_entry(entry, text.slice(0, -1))).not.toThrow();
      parses += 1;
    }
    expect(parses).toBeGreaterThan(1_500);
  });

  it("never throws on random bytes, NULs or control characters in any text format", () => {
    const inputs = [
      random_bytes(1, 64 * 1024),
      random_bytes(2, 3),
      "\0".repeat(10_000),
      `main.cpp:1:1: error: \0\u001b[31m\r\r${"\u0007".repeat(100)}`,
      `{"testsuites": [${"\0".repeat(50)}`,
      `<?xml version="1.0"?><results version="2"><errors><error id="x"`,
    ];
    for (const text of inputs) {
      for (const from of TEXT_FORMATS) expect(() => parse_diagnostics(text, { from, root: "/repo" })).not.toThrow();
    }
  });

  it("reads 10 MB of mixed build output without throwing and finds its diagnostics", () => {
    const diagnostics = parse_diagnostics(mixed_log(10 * 1024 * 1024), { from: "auto", root: `${CORPUS_WORK}/projects` });
    expect(diagnostics.length).toBeGreaterThan(1_000);
  }, 60_000);
});

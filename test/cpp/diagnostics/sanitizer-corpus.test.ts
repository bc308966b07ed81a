/**
 * ASan's further stacks ("freed by thread T0 here:", "previously allocated by thread T0 here:") on the corpus's
 * real reports: each becomes one child at its top frame in the program's own code, the lines the seeded project
 * marks (@2 the delete, @3 the new), whatever the line shift.
 */
import { describe, expect, it } from "vitest";
import { SANITIZER_CASES } from "../../../scripts/cpp-corpus/cases/run.js";
import { corpus_entries, parse_entry } from "../../fixtures/cpp-corpus.js";

const SHIFTS: Readonly<Record<string, number>> = { base: 0, moved: 0, shift1: 1, shift5: 5, shift50: 50 };

function marker_line(marker: string): number {
  const source = SANITIZER_CASES.find((project) => project.id === "use-after-free")?.files["main.cpp"] ?? "";
  return source.split("\n").findIndex((line) => line.endsWith(`// ${marker}`)) + 1;
}

describe("sanitizer child stacks", () => {
  it("keeps the free and the allocation of a use-after-free as children at their in-app lines", () => {
    const entries = corpus_entries().filter((entry) => entry.output.startsWith("sanitizer/use-after-free/"));
    expect(entries.length).toBeGreaterThanOrEqual(5);
    for (const entry of entries) {
      const shift = SHIFTS[/gcc-(\w+)\.txt$/.exec(entry.output)?.[1] ?? ""] ?? 0;
      const [report] = parse_entry(entry).filter((diagnostic) => diagnostic.code === "asan.heap-use-after-free");
      expect(report?.children.map((child) => [child.message, child.file, child.line])).toEqual([
        ["freed by thread T0 here", "main.cpp", marker_line("@2") + shift],
        ["previously allocated by thread T0 here", "main.cpp", marker_line("@3") + shift],
      ]);
    }
  });
});

/**
 * Builds that compile from a subfolder with relative paths (corpus part "relative"): the framing says where each
 * job ran, so `include/shared.h:3:10` printed from src/ is the repository's src/include/shared.h.
 */
import { describe, expect, it } from "vitest";
import { split_jobs } from "../../../src/cpp/diagnostics/jobs.js";
import { corpus_entries, corpus_text, parse_entry } from "../../fixtures/cpp-corpus.js";

function entry(output: string) {
  const found = corpus_entries().find((candidate) => candidate.output === output);
  if (found === undefined) throw new Error(`no corpus output ${output}`);
  return found;
}

describe("per-job working folders", () => {
  it("gives each make job the folder of make's innermost Entering directory", () => {
    const make = entry("relative/header-error-two-units/make-base.txt");
    const jobs = split_jobs(corpus_text(make).split("\n"));
    expect(jobs.filter((job) => job.target !== null).map((job) => [job.target, job.cwd])).toEqual([
      ["a.o", `${make.root}/src`],
      ["main.o", `${make.root}/src`],
    ]);
  });

  it("gives each ninja job the folder its command changes to, from ninja's own folder", () => {
    const ninja = entry("relative/header-error-two-units/ninja-base.txt");
    const jobs = split_jobs(corpus_text(ninja).split("\n"));
    // Ninja runs two jobs at once: the order they finish in is the log's.
    expect(jobs.map((job) => [job.target, job.cwd]).sort()).toEqual([
      ["out/a.o", `${ninja.root}/src`],
      ["out/main.o", `${ninja.root}/src`],
    ]);
  });

  it("resolves relative paths and translation units to repository paths, the same under make and ninja", () => {
    for (const system of ["make", "ninja"]) {
      const [error] = parse_entry(entry(`relative/header-error-two-units/${system}-base.txt`));
      expect(error).toMatchObject({ file: "src/include/shared.h", line: 3, occurrences: ["src/a.cpp", "src/main.cpp"] });
      expect(error?.context.include_chain.map((step) => step.file)).toHaveLength(1);
    }
  });
});

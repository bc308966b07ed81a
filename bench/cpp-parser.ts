import { parse_diagnostics } from "../src/cpp/diagnostics/parse.js";
import { CORPUS_WORK, mixed_log } from "../test/fixtures/cpp-corpus.js";
import { collect_garbage, median, ratios, time_ms } from "./stats.js";
import type { LimitLine } from "./report-limit.js";
import { VerificationError } from "./verify.js";

/**
 * DiagnosticParser throughput: `parse_diagnostics` over ~10 MB of real compiler, linker, CMake, sanitizer and
 * gdb output (the checked-in corpus, repeated under distinct project folders) beside a bare `text.split("\n")`
 * of the same string in the same run, alternating which goes first, after one unmeasured run of each.
 */
export type CppParserBench = {
  readonly bytes: number;
  readonly diagnostics: number;
  readonly parse_ms: number;
  readonly split_ms: number;
  /** Median of paired parse / split ratios. */
  readonly ratio: number;
};

const CPP_PARSER_BYTES = 10 * 1024 * 1024;

export function bench_cpp_parser(rounds: number, bytes: number = CPP_PARSER_BYTES): CppParserBench {
  const text = mixed_log(bytes);
  const options = { from: "auto", root: `${CORPUS_WORK}/projects` } as const;
  const parse: number[] = [];
  const split: number[] = [];
  // One unmeasured run first, so the medians compare compiled code with compiled code.
  let diagnostics = parse_diagnostics(text, options).length;
  let lines = text.split("\n").length;
  for (let round = 0; round < rounds; round += 1) {
    const measure_parse = (): void => {
      collect_garbage();
      parse.push(time_ms(() => (diagnostics = parse_diagnostics(text, options).length)));
    };
    const measure_split = (): void => {
      collect_garbage();
      split.push(time_ms(() => (lines = text.split("\n").length)));
    };
    if (round % 2 === 0) {
      measure_parse();
      measure_split();
    } else {
      measure_split();
      measure_parse();
    }
  }
  if (diagnostics < 1_000 || lines < 1_000) throw new VerificationError(`cpp parser: ${diagnostics} diagnostics from ${lines} lines`);
  return { bytes: Buffer.byteLength(text), diagnostics, parse_ms: median(parse), split_ms: median(split), ratio: median(ratios(parse, split)) };
}

/** Megabytes (2^20 bytes) per second. */
function mb_per_s(bytes: number, milliseconds: number): string {
  return `${(bytes / 1024 / 1024 / (milliseconds / 1000)).toFixed(1)} MB/s`;
}

/** The parser's budget for 10 MB of build output (issue 13). */
const CPP_PARSER_LIMIT_MS = 1_000;

/** The printed line: time for the whole input against the budget, the split beside it, both as MB/s in the note. */
export function cpp_parser_line(result: CppParserBench): LimitLine & { readonly note: string } {
  return {
    name: "cpp parse (10 MB)",
    ours_ms: result.parse_ms,
    ceiling_name: 'split("\\n")',
    ceiling_ms: result.split_ms,
    ratio: result.ratio,
    limit_ms: CPP_PARSER_LIMIT_MS,
    note: `${mb_per_s(result.bytes, result.parse_ms)} vs ${mb_per_s(result.bytes, result.split_ms)}; ${result.diagnostics.toLocaleString("en-US")} diagnostics`,
  };
}

import { prefix_report, type PrefixReport } from "../src/context/prefix.js";
import { run_session, SESSION_TURNS, type SessionApi } from "./context-session.js";
import { remove_dir, temp_dir } from "./temp.js";
import { VerificationError } from "./verify.js";

/**
 * Prefix stability over the 20-turn scripted executor session (issue 5): the share of each request's input
 * that repeats the previous request and so may be read from a prompt cache, beside the ceiling of the same
 * run — the whole previous request reused, which is all a cache could ever serve.
 */
export type PrefixBench = {
  readonly api: SessionApi;
  readonly report: PrefixReport;
  /** Cache-eligible share of the input after the second request, 0–1. */
  readonly eligible: number;
  /** The same share if every byte of each previous request were reused, 0–1. */
  readonly ceiling: number;
};

function ceiling_after_second(report: PrefixReport): number {
  const later = report.turns.slice(2);
  // The best a later turn can do is reuse the whole request before it: those are the second to the last but one.
  const reusable = report.turns.slice(1, -1).reduce((total, turn) => total + turn.bytes, 0);
  const input = later.reduce((total, turn) => total + turn.bytes, 0);
  return input === 0 ? 1 : reusable / input;
}

export async function bench_context_prefix(api: SessionApi): Promise<PrefixBench> {
  const work = temp_dir(`prefix-${api}`);
  try {
    const run = await run_session(api, work);
    if (run.code !== 0 || run.executor_requests.length !== SESSION_TURNS) {
      throw new VerificationError(
        `the ${api} prefix session failed (exit ${run.code}, ${run.executor_requests.length} executor requests):\n${run.stderr.slice(-2_000)}`,
      );
    }
    const report = prefix_report(run.executor_requests.map((request) => request.body as object));
    if (!report.all_prefixes_identical) {
      const broken = report.turns.filter((turn) => !turn.prefix_identical).map((turn) => turn.turn);
      throw new VerificationError(`the ${api} session's requests ${broken.join(", ")} do not start with the previous request's prefix`);
    }
    return { api, report, eligible: report.ratio_after_second, ceiling: ceiling_after_second(report) };
  } finally {
    remove_dir(work);
  }
}

/** `1:0/612 2:598/655 …`: cache-eligible / input tokens of each request. */
export function tokens_per_turn(report: PrefixReport): string {
  return report.turns.map((turn) => `${turn.turn}:${turn.cache_eligible_tokens}/${turn.input_tokens}`).join(" ");
}

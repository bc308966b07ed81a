import { parse } from "unbash";
import { GRAMMAR_CASES } from "../test/fixtures/permission-attacks/index.js";
import { COMMAND_CASES, temp_case_project } from "../test/fixtures/permission-cases.js";
import { trap_project } from "../test/fixtures/permission-traps.js";
import { DIST } from "./dist.js";

/**
 * `air permissions check --command …` over both adversarial suites, in process (the built command function:
 * permissions files and grants read, the command parsed, flattened and matched against its grammar, globs
 * expanded, every path resolved, recursive reads walked) — beside the bare `unbash` parse of the same
 * strings, the floor any analysis stands on. The second suite runs in its trap project, with HOME there.
 */
export type PermissionsCheckResult = {
  readonly cases: number;
  readonly p50_us: number;
  readonly p99_us: number;
  readonly parse_p50_us: number;
  readonly parse_p99_us: number;
};

type CheckModule = typeof import("../src/cli/commands/permissions-check.js");

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

type Timings = { readonly ours: number[]; readonly bare: number[] };

/** Times each command `rounds` times (after one warm-up round) in the project at `root`. */
async function time_suite(check: CheckModule["run_permissions_check"], root: string, commands: readonly string[], rounds: number, into: Timings) {
  const io = { out: () => undefined, err: () => undefined, cwd: root };
  for (let round = 0; round <= rounds; round++) {
    for (const command of commands) {
      let started = performance.now();
      await check(io, { json: true, command });
      const check_us = (performance.now() - started) * 1000;
      started = performance.now();
      try {
        parse(command);
      } catch {
        // an unparseable case costs the parser its attempt, which is what we time
      }
      const parse_us = (performance.now() - started) * 1000;
      if (round > 0) {
        into.ours.push(check_us);
        into.bare.push(parse_us);
      }
    }
  }
}

export async function bench_permissions_check(rounds: number): Promise<PermissionsCheckResult> {
  const { run_permissions_check } = (await import(new URL("cli/commands/permissions-check.js", DIST).href)) as CheckModule;
  const timings: Timings = { ours: [], bare: [] };
  const first = temp_case_project();
  try {
    await time_suite(
      run_permissions_check,
      first.root,
      COMMAND_CASES.map((c) => c.command),
      rounds,
      timings,
    );
  } finally {
    first.cleanup();
  }
  const second = trap_project();
  const home = process.env.HOME;
  process.env.HOME = second.home;
  try {
    await time_suite(
      run_permissions_check,
      second.root,
      GRAMMAR_CASES.map((c) => c.command),
      rounds,
      timings,
    );
  } finally {
    if (home === undefined) delete process.env.HOME;
    else process.env.HOME = home;
    second.cleanup();
  }
  const { ours, bare } = timings;
  ours.sort((a, b) => a - b);
  bare.sort((a, b) => a - b);
  return {
    cases: COMMAND_CASES.length + GRAMMAR_CASES.length,
    p50_us: percentile(ours, 50),
    p99_us: percentile(ours, 99),
    parse_p50_us: percentile(bare, 50),
    parse_p99_us: percentile(bare, 99),
  };
}

import { parse } from "unbash";
import { COMMAND_CASES, temp_case_project } from "../test/fixtures/permission-cases.js";
import { DIST } from "./dist.js";

/**
 * `air permissions check --command …` over the adversarial suite, in process (the built command function:
 * permissions files and grants read, the command parsed, flattened and classified, every path resolved) —
 * beside the bare `unbash` parse of the same strings, the floor any analysis stands on.
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

export async function bench_permissions_check(rounds: number): Promise<PermissionsCheckResult> {
  const { run_permissions_check } = (await import(new URL("cli/commands/permissions-check.js", DIST).href)) as CheckModule;
  const project = temp_case_project();
  const io = { out: () => undefined, err: () => undefined, cwd: project.root };
  const ours: number[] = [];
  const bare: number[] = [];
  try {
    for (let round = 0; round <= rounds; round++) {
      for (const { command } of COMMAND_CASES) {
        let started = performance.now();
        await run_permissions_check(io, { json: true, command });
        const check_us = (performance.now() - started) * 1000;
        started = performance.now();
        try {
          parse(command);
        } catch {
          // an unparseable case costs the parser its attempt, which is what we time
        }
        const parse_us = (performance.now() - started) * 1000;
        if (round > 0) {
          ours.push(check_us);
          bare.push(parse_us);
        }
      }
    }
  } finally {
    project.cleanup();
  }
  ours.sort((a, b) => a - b);
  bare.sort((a, b) => a - b);
  return {
    cases: COMMAND_CASES.length,
    p50_us: percentile(ours, 50),
    p99_us: percentile(ours, 99),
    parse_p50_us: percentile(bare, 50),
    parse_p99_us: percentile(bare, 99),
  };
}

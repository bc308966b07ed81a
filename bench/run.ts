/**
 * `npm run bench`: air's figures against ceilings measured in the same run.
 *   1. durable ingest, 1 and 100 events per transaction — air's write path vs hand-written libsql
 *   2. cold `air session list` over 200 sessions — the built CLI vs `node -e 0`
 *   3. worker spawn → `worker.ready` — dist/workers/main.js over its stdio protocol vs a one-line `node -e` child
 *   4. `tool.call` round trip of `fs.list` through the real bridge and ToolRegistry — vs a bare NDJSON echo
 *   5. `air e2e cpp-fix-fixture` wall time split into runtime overhead, cmake/ctest and scripted model
 *   6. `air permissions check` latency per command (p50/p99) over the adversarial suite — vs the bare unbash parse
 *   7. prefix stability of a 20-turn executor session (Anthropic and OpenAI wire formats): cache-eligible share
 *      of the input after the second request — vs the whole previous request reused; tokens per turn
 *   8. context assembly of 5,000 messages with 500 tool runs — vs JSON.stringify of the same messages
 *   9. `air run` (the TUI, in a tmux pane) from process start to the first frame (the pre-frame), ink's first
 *      frame and the Main Agent ready, and `air --version` — vs `node -e 0`; beside them, where installed
 *      (`$AIR_BENCH_PEERS_DIR/node_modules/.bin` or PATH), the first visible frame of claude, codex and opencode
 *      in the same tmux harness
 *  10. the TUI during a scripted stream of 2,000 assistant deltas: frames per second (vs the 30 fps cap) and
 *      the process's CPU — vs the same stream with no UI
 *  11. wave planning over a 10,000-task graph with 20,000 dependencies — vs a plain topological sort (Kahn) of
 *      the same rows
 *  13. wave speedup: the parallel fixture with a delayed scripted model, --max-parallel 4 vs 1 — the critical path
 *      (longest chain of hard dependencies) printed as the lower bound
 *  12. one task's workspace round trip (snapshot, worktree, commit as air, journaled merge into the checkout) —
 *      vs `git worktree add` + `git commit -a` + `git merge` of the same change
 *  14. scheduler overhead per task (worktree → worker ready → result → merge, less model and command time) of a
 *      team run of trivial tasks, from its event log — vs raw git worktree/commit/merge/remove + a bare node spawn
 *  15. `cpp.build` of a small CMake+GoogleTest project from a clean build folder — vs a bare `cmake --build` of the
 *      same folder with the same -j
 *  16. the startup dependency check of `air run` (doctor, D-045), cold and warm (cached) — vs `node -e 0`
 *  17. DiagnosticParser throughput over 10 MB of real compiler/linker/CMake/sanitizer output — vs a bare
 *      `split("\n")` of the same text
 *  18. the review gate per task (diff, reviewer worker, one model turn of a fixed delay) — beside the executor run
 *      it gates
 *  19. model turns to fix a compile error whose signature has a debug record — beside the same failure without one
 *  20. an MCP tool call (`mcp.fixture.echo` of the stdio fixture server) through ToolRegistry, PermissionEngine and the
 *      session DB, p50 and p95 — vs a bare SDK `Client` calling the same server's `echo`, call for call
 *  21. `air restore time T --yes` (the built CLI) over 100 files air changed in a 1,000-file project — vs
 *      `git checkout -- .` putting the same files back; `node -e 0` beside them (the CLI's start)
 * Exits 1 if any run fails its verification (a broken run never reports a figure).
 */
import os from "node:os";
import { bench_context_assembly } from "./context-assembly.js";
import { bench_cpp_build } from "./cpp-build.js";
import { bench_cpp_parser, cpp_parser_line } from "./cpp-parser.js";
import { bench_context_prefix, tokens_per_turn } from "./context-prefix.js";
import { bench_doctor_startup, format_doctor_startup } from "./doctor-startup.js";
import { bench_review_gate } from "./review-gate.js";
import { bench_debug_known_fix, format_debug_known_fix } from "./debug-known-fix.js";
import { bench_e2e_split } from "./e2e-split.js";
import { bench_ingest, type IngestMode } from "./ingest.js";
import { bench_mcp_call, format_mcp_call } from "./mcp-call.js";
import { bench_permissions_check } from "./permissions-check.js";
import { format_line, ms, rate, type Line } from "./report.js";
import { format_limit_line } from "./report-limit.js";
import { format_goal_line, format_info_line, format_skip_line, format_split_line, us } from "./report-info.js";
import { bench_session_list } from "./session-list.js";
import { bench_snapshot } from "./snapshot.js";
import { remove_all, temp_dir } from "./temp.js";
import { bench_tool_call } from "./tool-call.js";
import { bench_tui_peers, PEERS } from "./tui-peers.js";
import { bench_tui_startup } from "./tui-startup.js";
import { format_startup } from "./report-startup.js";
import { bench_tui_stream } from "./tui-stream.js";
import { bench_wave_planning } from "./wave-planning.js";
import { bench_worker_spawn } from "./worker-spawn.js";
import { bench_wave_speedup } from "./wave-speedup.js";
import { bench_workspace_merge } from "./workspace-merge.js";
import { bench_restore } from "./restore.js";
import { format_overhead_lines } from "./report-overhead.js";
import { bench_scheduler_overhead } from "./scheduler-overhead.js";

/** `--quick`: a smoke run of the same code at a tenth of the size (figures not meaningful). */
const QUICK = process.argv.includes("--quick");
const MODES: IngestMode[] = [
  { name: "ingest 1 event/tx", per_tx: 1, events: QUICK ? 700 : 7_000 },
  { name: "ingest 100 events/tx", per_tx: 100, events: QUICK ? 7_000 : 70_000 },
];
const ROUNDS = QUICK ? 1 : 5;
const LIST_SESSIONS = QUICK ? 20 : 200;
const LIST_RUNS = QUICK ? 3 : 15;
const SPAWN_RUNS = QUICK ? 3 : 21;
const TOOL_ROUNDS = QUICK ? 1 : 9;
const TOOL_WARMUP = QUICK ? 5 : 20;
const TOOL_CALLS = QUICK ? 20 : 200;
const MCP_WARMUP = QUICK ? 5 : 20;
const MCP_CALLS = QUICK ? 20 : 200;
const E2E_RUNS = QUICK ? 1 : 3;
const CHECK_ROUNDS = QUICK ? 1 : 5;
const ASSEMBLY_ROUNDS = QUICK ? 2 : 15;
const TUI_STARTS = QUICK ? 2 : 7;
const TUI_STREAMS = QUICK ? 1 : 3;
/** Issue 15: the TUI may cost at most twice the CPU of the same stream with no UI. */
const TUI_CPU_GOAL = 2;
const WAVE_ROUNDS = QUICK ? 2 : 15;
/** The wave planner's budget per plan over the 10,000-task graph (issue 12). */
const WAVE_LIMIT_MS = 100;
const CPP_PARSER_ROUNDS = QUICK ? 1 : 5;
const WORKSPACE_ROUNDS = QUICK ? 1 : 7;
const RESTORE_ROUNDS = QUICK ? 1 : 7;
const CPP_BUILD_ROUNDS = QUICK ? 1 : 5;
const SPEEDUP_ROUNDS = QUICK ? 1 : 3;
/** Rounds of the review-gate bench, and its model's delay: a fixed, known share of the gate's time. */
const REVIEW_ROUNDS = QUICK ? 1 : 3;
const REVIEW_MODEL_DELAY_MS = 200;

/** What the scripted model waits before each answer in the wave-speedup runs, as a real model takes time. */
const SPEEDUP_DELAY_MS = 300;
const OVERHEAD_ROUNDS = QUICK ? 1 : 3;
const DOCTOR_RUNS = QUICK ? 3 : 21;
/** Tasks in each scheduler-overhead run: one wave, a worktree each. */
const OVERHEAD_TASKS = 4;
/** The Scheduler's budget per task, model and command time excluded (issue 12). */
const OVERHEAD_LIMIT_MS = 150;
/** Edits measured by the snapshot bench, and its budget per edit (issue 17). */
const SNAPSHOT_EDITS = QUICK ? 20 : 200;
const SNAPSHOT_LIMIT_MS = 20;
/** The App's re-render cap while the projection changes (src/tui/props.ts `max_fps`). */
const TUI_FPS_CAP = 30;

function percent(share: number): string {
  return `${(100 * share).toFixed(1)} %`;
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function main(): Promise<number> {
  const started = performance.now();
  const air_home = temp_dir("home");
  process.env.AIR_HOME = air_home;
  const lines: Line[] = [];
  const printed: string[] = [];

  log(`ingest: warm-up + ${ROUNDS} rounds (${MODES.map((m) => `${m.events.toLocaleString("en-US")} events at ${m.per_tx}/tx`).join(", ")})`);
  for (const result of bench_ingest(MODES, ROUNDS, log)) {
    const goal = result.mode.per_tx === 1 ? 50 : 40;
    lines.push({
      name: result.mode.name,
      ours: rate(result.air_rate),
      ceiling_name: "raw libsql",
      ceiling: rate(result.raw_rate),
      ratio: 100 * result.ratio,
      goal: { kind: "at_least", value: goal, unit: "%" },
    });
  }

  log(`session list: ${LIST_SESSIONS} sessions, ${LIST_RUNS} cold runs each of air and node -e 0`);
  const list = bench_session_list(LIST_SESSIONS, LIST_RUNS, air_home);
  lines.push({
    name: `session list (${list.sessions})`,
    ours: ms(list.air_ms),
    ceiling_name: "node -e 0",
    ceiling: ms(list.node_ms),
    ratio: list.ratio,
    goal: { kind: "at_most", value: 2, unit: "×" },
  });

  printed.push(...lines.map(format_line));

  let section = performance.now();
  const took = () => {
    const seconds = (performance.now() - section) / 1000;
    section = performance.now();
    return `${seconds.toFixed(1)} s`;
  };
  log(`worker spawn: ${SPAWN_RUNS} interleaved runs each of dist/workers/main.js (agent.start → worker.ready) and a one-line node -e`);
  const spawn = await bench_worker_spawn(SPAWN_RUNS, temp_dir("spawn"));
  log(`  worker spawn: ${took()}`);
  printed.push(
    format_goal_line({
      name: "worker spawn → ready",
      ours: ms(spawn.worker_ms),
      ceiling_name: "node -e (1 line)",
      ceiling: ms(spawn.node_ms),
      ratio: spawn.ratio,
      goal: { kind: "at_most", value: 1.5, unit: "×" },
    }),
  );

  log(`tool.call: ${TOOL_ROUNDS} interleaved rounds of ${TOOL_CALLS} fs.list round trips (after ${TOOL_WARMUP} warm-up) and ${TOOL_CALLS} bare NDJSON echoes`);
  const tool = await bench_tool_call(TOOL_ROUNDS, TOOL_WARMUP, TOOL_CALLS);
  log(`  tool.call: ${took()}`);
  printed.push(
    format_info_line({
      name: "tool.call round trip",
      ours: us(tool.air_us),
      ceiling_name: "bare NDJSON",
      ceiling: us(tool.bare_us),
      ratio: tool.ratio,
      note: "fs.list through bridge + ToolRegistry + session DB",
    }),
  );

  log(`mcp call: ${MCP_CALLS} mcp.fixture.echo round trips through air (after ${MCP_WARMUP} warm-up), each beside a bare SDK Client's echo`);
  printed.push(...format_mcp_call(await bench_mcp_call(MCP_WARMUP, MCP_CALLS)));
  log(`  mcp call: ${took()}`);

  log(`e2e: ${E2E_RUNS} runs of air e2e cpp-fix-fixture`);
  const e2e = bench_e2e_split(E2E_RUNS);
  log(`  e2e: ${took()}`);
  printed.push(e2e.kind === "skipped" ? format_skip_line("e2e cpp-fix-fixture", e2e.reason) : format_split_line({ name: "e2e cpp-fix-fixture", ...e2e.split }));

  log(`permissions check: ${CHECK_ROUNDS} rounds over the adversarial suite, each command beside its bare parse`);
  const check = await bench_permissions_check(CHECK_ROUNDS);
  log(`  permissions check: ${took()}`);
  for (const [name, ours, bare] of [
    ["perm check p50", check.p50_us, check.parse_p50_us],
    ["perm check p99", check.p99_us, check.parse_p99_us],
  ] as const) {
    printed.push(
      format_info_line({
        name,
        ours: us(ours),
        ceiling_name: "bare unbash parse",
        ceiling: us(bare),
        ratio: ours / bare,
        note: `${check.cases} commands, in process`,
      }),
    );
  }

  const per_turn: string[] = [];
  for (const api of ["anthropic", "openai"] as const) {
    log(`prefix: the 20-turn executor session over ${api}`);
    const prefix = await bench_context_prefix(api);
    log(`  prefix ${api}: ${took()}`);
    printed.push(
      format_line({
        name: `cache-eligible ${api}`,
        ours: percent(prefix.eligible),
        ceiling_name: "whole prev. request",
        ceiling: percent(prefix.ceiling),
        ratio: 100 * prefix.eligible,
        goal: { kind: "at_least", value: 90, unit: "%" },
      }),
    );
    per_turn.push(`tokens per turn, cache-eligible/input (${api}): ${tokens_per_turn(prefix.report)}`);
  }

  log(`context assembly: ${ASSEMBLY_ROUNDS} rounds of 5,000 messages with 500 tool runs, each beside JSON.stringify of the same messages`);
  const assembly = bench_context_assembly(ASSEMBLY_ROUNDS);
  log(`  context assembly: ${took()}`);
  printed.push(
    format_info_line({
      name: "context assembly",
      ours: ms(assembly.cold_ms),
      ceiling_name: "JSON.stringify",
      ceiling: ms(assembly.stringify_ms),
      ratio: assembly.ratio,
      note: `${assembly.messages.toLocaleString("en-US")} messages, ${assembly.tool_runs} tool runs, ${assembly.omitted} left out to fit; next turn ${ms(assembly.warm_ms)}`,
    }),
  );

  log(`wave planning: ${WAVE_ROUNDS} rounds over 10,000 tasks and 20,000 dependencies, each beside a topological sort of the same rows`);
  const wave = bench_wave_planning(WAVE_ROUNDS);
  log(`  wave planning: ${took()} (${wave.runnable} runnable tasks per plan)`);
  printed.push(
    format_limit_line({
      name: "wave planning (10k)",
      ours_ms: wave.plan_ms,
      ceiling_name: "Kahn topo sort",
      ceiling_ms: wave.kahn_ms,
      ratio: wave.ratio,
      limit_ms: WAVE_LIMIT_MS,
    }),
  );

  log(`cpp parse: ${CPP_PARSER_ROUNDS} rounds of parse_diagnostics over 10 MB of corpus output, each beside split("\\n") of the same text`);
  const parser = cpp_parser_line(bench_cpp_parser(CPP_PARSER_ROUNDS));
  log(`  cpp parse: ${took()} (${parser.note})`);
  printed.push(format_limit_line(parser));

  log(`tui start: ${TUI_STARTS} runs of air run in a tmux pane (first frame, ink's frame, Main Agent ready) and of air --version, each beside node -e 0`);
  const start = await bench_tui_startup(TUI_STARTS, air_home);
  log(`  tui start: ${took()}`);
  log(`tui peers: ${TUI_STARTS} starts of each of ${PEERS.join(", ")} found in $AIR_BENCH_PEERS_DIR/node_modules/.bin or on PATH`);
  const peers = await bench_tui_peers(TUI_STARTS, process.env);
  log(`  tui peers: ${took()}`);
  printed.push(...format_startup(start, peers));

  log(`tui stream: ${TUI_STREAMS} interleaved runs of 2,000 deltas with the App rendering and with no UI`);
  const stream = await bench_tui_stream(TUI_STREAMS, air_home);
  log(`  tui stream: ${took()}`);
  printed.push(
    format_info_line({
      name: "tui fps (2,000 deltas)",
      ours: `${stream.fps.toFixed(1)} fps`,
      ceiling_name: "cap",
      ceiling: `${TUI_FPS_CAP} fps`,
      ratio: stream.fps / TUI_FPS_CAP,
      note: `stream of ${ms(stream.stream_ms)}`,
    }),
    format_goal_line({
      name: "tui cpu (2,000 deltas)",
      ours: ms(stream.tui_cpu_ms),
      ceiling_name: "no UI",
      ceiling: ms(stream.bare_cpu_ms),
      ratio: stream.tui_cpu_ms / stream.bare_cpu_ms,
      // user+system CPU of the process during the stream
      goal: { kind: "at_most", value: TUI_CPU_GOAL, unit: "×" },
    }),
  );

  log(`cpp.build: ${CPP_BUILD_ROUNDS} interleaved rounds of a clean build through cpp.build and by a bare cmake --build`);
  const cpp_build = await bench_cpp_build(CPP_BUILD_ROUNDS);
  log(`  cpp.build: ${took()}`);
  printed.push(
    format_goal_line({
      name: "cpp.build (clean)",
      ours: ms(cpp_build.air_ms),
      ceiling_name: "cmake --build",
      ceiling: ms(cpp_build.bare_ms),
      ratio: cpp_build.ratio,
      goal: { kind: "at_most", value: 1.1, unit: "×" },
    }),
  );

  log(`workspace merge: ${WORKSPACE_ROUNDS} interleaved rounds of a task's workspace round trip and the same change by raw git`);
  const workspace = await bench_workspace_merge(WORKSPACE_ROUNDS);
  log(`  workspace merge: ${took()}`);
  printed.push(
    format_goal_line({
      name: "workspace create+merge",
      ours: ms(workspace.air_ms),
      ceiling_name: "worktree add+merge",
      ceiling: ms(workspace.raw_ms),
      ratio: workspace.ratio,
      goal: { kind: "at_most", value: 1.5, unit: "×" },
    }),
  );

  log(`restore: ${RESTORE_ROUNDS} interleaved rounds of air restore time over changed files and git checkout of the same files`);
  const restore = await bench_restore(RESTORE_ROUNDS);
  log(`  restore: ${took()}`);
  printed.push(
    format_info_line({
      name: `restore ${restore.changed} files`,
      ours: ms(restore.air_ms),
      ceiling_name: "git checkout",
      ceiling: ms(restore.git_ms),
      ratio: restore.ratio,
      note: `air restore time --yes, the whole CLI run (node -e 0 alone: ${ms(restore.node_ms)}), ${restore.files.toLocaleString("en-US")}-file project`,
    }),
  );

  log(`snapshot: ${SNAPSHOT_EDITS} edits of a 5,000-file project, each snapshotted before it beside a copy of the file`);
  const snapshot = await bench_snapshot(SNAPSHOT_EDITS);
  log(`  snapshot: ${took()} (first snapshot of the project ${ms(snapshot.first_ms)})`);
  printed.push(
    format_limit_line({
      name: "snapshot per edit (5k)",
      ours_ms: snapshot.edit_ms,
      ceiling_name: "fs.copyFileSync",
      ceiling_ms: snapshot.copy_ms,
      ratio: snapshot.ratio,
      limit_ms: SNAPSHOT_LIMIT_MS,
    }),
    format_info_line({
      name: "snapshot command (5k)",
      ours: ms(snapshot.scan_ms),
      ceiling_name: "first snapshot",
      ceiling: ms(snapshot.first_ms),
      ratio: snapshot.scan_ms / snapshot.first_ms,
      note: "before + after a writing command, whole checkout",
    }),
  );

  log(`wave speedup: ${SPEEDUP_ROUNDS} interleaved rounds of the parallel fixture, --max-parallel 4 then 1, ${SPEEDUP_DELAY_MS} ms per model answer`);
  const speedup = await bench_wave_speedup(SPEEDUP_ROUNDS, SPEEDUP_DELAY_MS);
  log(`  wave speedup: ${took()}`);
  printed.push(
    format_goal_line({
      name: "wave speedup",
      ours: ms(speedup.parallel_ms),
      ceiling_name: "--max-parallel 1",
      ceiling: ms(speedup.sequential_ms),
      ratio: speedup.ratio,
      goal: { kind: "at_most", value: 0.45, unit: "×" },
    }),
    format_info_line({
      name: "  critical path",
      ours: `${speedup.critical_tasks} of 4 tasks`,
      ceiling_name: "lower bound",
      ceiling: `${speedup.critical_share.toFixed(2)}× of sequential`,
      ratio: speedup.critical_share,
      note: "the longest chain of hard dependencies: its tasks cannot overlap",
    }),
  );

  log(
    `scheduler overhead: ${OVERHEAD_ROUNDS} runs of ${OVERHEAD_TASKS} trivial tasks at --max-parallel ${OVERHEAD_TASKS}, each beside raw git and node -e on a copy`,
  );
  const overhead = await bench_scheduler_overhead(OVERHEAD_ROUNDS, OVERHEAD_TASKS);
  log(`  scheduler overhead: ${took()}`);
  printed.push(...format_overhead_lines(overhead, OVERHEAD_LIMIT_MS));

  log(`doctor startup: ${DOCTOR_RUNS} rounds of the cold and the warm dependency check, each beside node -e 0`);
  printed.push(...format_doctor_startup(await bench_doctor_startup(DOCTOR_RUNS)));
  log(`  doctor startup: ${took()}`);

  log(`review gate: ${REVIEW_ROUNDS} rounds of one reviewed task, the scripted model answering after ${REVIEW_MODEL_DELAY_MS} ms`);
  const review = await bench_review_gate(REVIEW_ROUNDS, REVIEW_MODEL_DELAY_MS);
  printed.push(
    `review gate per task: p50 ${review.gate_p50_ms} ms (model ${REVIEW_MODEL_DELAY_MS} ms, air ${review.gate_overhead_p50_ms} ms) beside the executor run it gates: p50 ${review.executor_p50_ms} ms`,
  );
  log(`  review gate: ${took()}`);

  log("debug known fix: the cpp-debug-review fixture's two runs in one project, model turns of each");
  printed.push(format_debug_known_fix(bench_debug_known_fix()));
  log(`  debug known fix: ${took()}`);

  console.log("");
  for (const line of printed) console.log(line);
  for (const line of per_turn) console.log(line);
  console.log(
    `\nmedians of ${ROUNDS} rounds (ingest), ${LIST_RUNS} runs (session list), ${SPAWN_RUNS} runs (worker spawn), ` +
      `${TOOL_ROUNDS} rounds × ${TOOL_CALLS} calls (tool.call: median per round, then across rounds), ` +
      `${MCP_CALLS} calls each (mcp call: p50 and p95 of air and of the bare client, ratio of the two), ${E2E_RUNS} runs (e2e), ` +
      `${ASSEMBLY_ROUNDS} rounds (context assembly), ${WAVE_ROUNDS} rounds (wave planning), ${WORKSPACE_ROUNDS} rounds (workspace merge, ${workspace.files.toLocaleString("en-US")} files), ` +
      `${OVERHEAD_ROUNDS} runs × ${OVERHEAD_TASKS} tasks (scheduler overhead: p50 and max over every task, steps as medians); ` +
      `cache-eligible: share of input bytes after the second request; ` +
      `ratios are medians of paired ratios; ` +
      `total ${((performance.now() - started) / 1000).toFixed(1)} s, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
  );
  return 0;
}

let code: number;
try {
  code = await main();
} catch (error) {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  code = 1;
}
remove_all();
process.exitCode = code;

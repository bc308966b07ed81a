import path from "node:path";
import { air, type Session } from "./dist.js";
import { RawWriter } from "./raw-writer.js";
import { collect_garbage, median, ratios, time_ms } from "./stats.js";
import { remove_dir, temp_dir } from "./temp.js";
import { verify_counts, verify_same_rows, workload_checks } from "./verify.js";
import { build_events, expected_rows, type BenchEvent } from "./workload.js";

/**
 * Durable ingest through air's full write path against the raw-libsql ceiling, writing the same rows.
 * Each round runs both on fresh files with the same pre-built events, alternating which goes first.
 */
export type IngestMode = { readonly name: string; readonly per_tx: number; readonly events: number };
/** Medians of each side's rate, and the median of the per-round air/raw ratios (paired, so load drift cancels). */
export type IngestResult = {
  readonly mode: IngestMode;
  readonly air_rate: number;
  readonly raw_rate: number;
  readonly ratio: number;
  readonly rounds: number;
};

type Run = { readonly ms: number; readonly file: string; readonly dir: string };

function open_fresh_session(): { session: Session; dir: string } {
  const dir = temp_dir("ingest-air");
  const { project } = air.projects.init_project(dir);
  return { session: air.sessions.open_session(project, { title: "bench ingest" }), dir };
}

function batches(events: readonly BenchEvent[], size: number): BenchEvent[][] {
  const out: BenchEvent[][] = [];
  for (let i = 0; i < events.length; i += size) out.push(events.slice(i, i + size));
  return out;
}

function run_air(session: Session, dir: string, events: readonly BenchEvent[], mode: IngestMode): Run {
  const file = session.db_path;
  let ms: number;
  if (mode.per_tx === 1) {
    const ingestor = session.ingestor;
    collect_garbage();
    ms = time_ms(() => {
      for (const event of events) ingestor.ingest(event);
    });
  } else {
    const store = session.store;
    const groups = batches(events, mode.per_tx);
    collect_garbage();
    ms = time_ms(() => {
      for (const group of groups) store.append_many(group);
    });
  }
  // session.created is the one event air adds of its own.
  verify_counts(`air ${mode.name}`, file, workload_checks(expected_rows(mode.events), 1));
  return { ms, file, dir };
}

/** A file with air's session schema, made by air's own migrations, then written by a bare libsql connection. */
function run_raw(events: readonly BenchEvent[], mode: IngestMode): Run {
  const dir = temp_dir("ingest-raw");
  const file = path.join(dir, "raw.db");
  const connection = air.connection.Connection.open(file);
  air.migrate.migrate(connection, "session");
  connection.close();
  const writer = new RawWriter(file);
  let ms: number;
  try {
    collect_garbage();
    ms = time_ms(() => writer.write(events, mode.per_tx));
  } finally {
    writer.close();
  }
  verify_counts(`raw ${mode.name}`, file, workload_checks(expected_rows(mode.events), 0));
  return { ms, file, dir };
}

/** One round of one mode: returns events/s for air and raw. `compare` also checks both wrote identical rows. */
function round(mode: IngestMode, air_first: boolean, compare: boolean): { air: number; raw: number } {
  const { session, dir } = open_fresh_session();
  const events = build_events({ session_id: session.id, project_id: session.project.file.project_id }, mode.events);
  let ours: Run | undefined;
  let ceiling: Run | undefined;
  try {
    if (air_first) {
      ours = run_air(session, dir, events, mode);
      ceiling = run_raw(events, mode);
    } else {
      ceiling = run_raw(events, mode);
      ours = run_air(session, dir, events, mode);
    }
    if (compare) verify_same_rows(mode.name, ours.file, ceiling.file);
    return { air: mode.events / (ours.ms / 1000), raw: mode.events / (ceiling.ms / 1000) };
  } finally {
    session.close();
    remove_dir(dir);
    if (ceiling !== undefined) remove_dir(ceiling.dir);
  }
}

/**
 * A warm-up round per mode (not counted; it also proves both sides write identical rows), then `rounds`
 * rounds in which the modes interleave and air and raw alternate going first. Medians per mode.
 */
export function bench_ingest(modes: readonly IngestMode[], rounds: number, log: (line: string) => void): IngestResult[] {
  for (const mode of modes) round(mode, true, true);
  const rates = modes.map((mode) => ({ mode, air: [] as number[], raw: [] as number[] }));
  for (let r = 0; r < rounds; r++) {
    const figures = rates.map((rate) => {
      const result = round(rate.mode, r % 2 === 0, false);
      rate.air.push(result.air);
      rate.raw.push(result.raw);
      return `${rate.mode.name} ${Math.round(result.air)}/${Math.round(result.raw)}`;
    });
    log(`  round ${r + 1}/${rounds}: ${figures.join(", ")} ev/s (air/raw)`);
  }
  return rates.map(({ mode, air: ours, raw }) => ({ mode, air_rate: median(ours), raw_rate: median(raw), ratio: median(ratios(ours, raw)), rounds }));
}

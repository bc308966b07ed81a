import fs from "node:fs";
import * as v from "valibot";
import { air_failure } from "../../contracts/errors.js";
import { ArtifactId } from "../../contracts/ids.js";
import { define_tool, type ToolExecution } from "../define.js";
import { locate, PathInput, type Located } from "../fs/common.js";
import { ScanSummary } from "./summary.js";
import { walk_tree, type ScanWarning } from "./walk.js";

const DEFAULT_MAX_ENTRIES = 200_000;
const MAX_WARNINGS = 100;
/** Between two live `tool.progress` events; stream chunks go out every batch. */
const PROGRESS_INTERVAL_MS = 250;

const ProjectScanInput = v.strictObject({
  path: v.optional(v.pipe(PathInput, v.description("Folder to scan (default: the project root).")), "."),
  max_entries: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(2_000_000), v.description(`Stop after this many entries (default ${DEFAULT_MAX_ENTRIES}).`)),
    DEFAULT_MAX_ENTRIES,
  ),
  max_depth: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000), v.description("Do not enter folders deeper than this (default: no limit).")),
  ),
});

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));

const ProjectScanOutput = v.strictObject({
  path: v.string(),
  totals: v.strictObject({ entries: Count, files: Count, directories: Count, symlinks: Count, special: Count, errors: Count, bytes: Count }),
  non_source_files: Count,
  languages: v.array(v.strictObject({ language: v.string(), files: Count, bytes: Count })),
  build_systems: v.array(v.strictObject({ system: v.string(), path: v.string() })),
  test_frameworks: v.array(v.strictObject({ framework: v.string(), path: v.string() })),
  test_files: Count,
  top_level: v.array(v.strictObject({ name: v.string(), type: v.string(), size_bytes: v.optional(Count) })),
  largest_files: v.array(v.strictObject({ path: v.string(), size_bytes: Count })),
  warnings: v.array(v.strictObject({ kind: v.string(), path: v.string(), message: v.string() })),
  warnings_total: Count,
  truncated: v.boolean(),
  /** Every entry as one JSON line: path, type, size, mode, mtime, symlink target, error. */
  listing_artifact_id: ArtifactId,
  duration_ms: v.pipe(v.number(), v.minValue(0)),
});

function scan_root(execution: ToolExecution, input: string): Located {
  const located = locate(execution, input);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(located.real);
  } catch {
    stat = undefined;
  }
  if (stat === undefined || !stat.isDirectory()) {
    throw air_failure({
      kind: "tool_error",
      message: `${located.display} is not an existing folder`,
      retryability: "retryable_after_change",
      user_action: "Pass a folder of the project (default: the project root).",
      metadata: { path: located.display },
    });
  }
  return located;
}

function cancelled(entries: number) {
  return air_failure({
    kind: "tool_error",
    severity: "warning",
    message: `project.scan was cancelled after ${entries} entries`,
    retryability: "retryable",
    user_action: "Scan again if it is still needed (a smaller path or max_depth finishes sooner).",
    metadata: { cancelled: true },
  });
}

/** Live progress: a stream chunk every batch, a `tool.progress` event at most every PROGRESS_INTERVAL_MS. */
function progress_reporter(execution: ToolExecution) {
  let last_event = 0;
  return (counts: { entries: number; directories: number; current: string }) => {
    execution.stream({ type: "project.scan.progress", ...counts });
    if (performance.now() - last_event < PROGRESS_INTERVAL_MS) return;
    last_event = performance.now();
    try {
      execution.emit("tool.progress", { tool_run_id: execution.tool_run_id, message: `scanned ${counts.entries} entries (${counts.directories} folders)` });
    } catch {
      // Progress is live-only; failing to show it must not fail the scan.
    }
  };
}

export const project_scan = define_tool({
  name: "project.scan",
  version: 1,
  description:
    "Scan a folder tree of the project from file-system metadata only (no file is opened): counts, languages by " +
    "extension, build systems and test frameworks by manifest names, largest files, warnings. Symlinks are listed, " +
    "not followed. The full listing is saved as an artifact (one JSON line per entry).",
  category: "project",
  input: ProjectScanInput,
  output: ProjectScanOutput,
  permissions: { reads: (input) => [input.path] },
  async execute(input, execution) {
    const started = performance.now();
    const root = scan_root(execution, input.path);
    const base = root.relative === undefined ? root.real : root.relative;
    /** A walk path (relative to the scanned folder) as reported: relative to the project root when inside it. */
    const shown = (relative: string) => [base, relative].filter((part) => part !== "").join("/") || ".";
    const summary = new ScanSummary();
    const lines: string[] = [];
    const warnings: ScanWarning[] = [];
    let warnings_total = 0;
    const result = await walk_tree(
      root.real,
      { max_entries: input.max_entries, max_depth: input.max_depth },
      {
        signal: execution.signal,
        on_entry: (entry) => {
          const path = shown(entry.path);
          summary.add(entry, path);
          const { name: _name, depth: _depth, ...listed } = entry;
          lines.push(JSON.stringify({ ...listed, path }));
        },
        on_warning: (warning) => {
          warnings_total += 1;
          if (warnings.length < MAX_WARNINGS) warnings.push({ ...warning, path: shown(warning.path) });
        },
        on_progress: progress_reporter(execution),
      },
    );
    if (result.cancelled) throw cancelled(result.entries);
    const listing = execution.artifact({
      type: "report",
      content: lines.length === 0 ? "" : `${lines.join("\n")}\n`,
      original_name: "project-scan.ndjson",
      extension: ".ndjson",
      mime_type: "application/x-ndjson",
    });
    return {
      path: root.relative === "" ? "." : root.display,
      totals: summary.totals,
      non_source_files: summary.non_source_files,
      languages: summary.languages,
      build_systems: summary.build_systems,
      test_frameworks: summary.test_frameworks,
      test_files: summary.test_files,
      top_level: summary.top_level,
      largest_files: summary.largest_files,
      warnings,
      warnings_total,
      truncated: result.truncated,
      listing_artifact_id: listing.id,
      duration_ms: Math.max(0, performance.now() - started),
    };
  },
});

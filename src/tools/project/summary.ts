import { build_system_of, is_not_source_folder, is_test_file, language_of, test_framework_of } from "./detect.js";
import type { ScanEntry } from "./walk.js";

const MAX_MANIFESTS = 100;
const LARGEST = 10;
const MAX_TOP_LEVEL = 200;

export type Totals = { entries: number; files: number; directories: number; symlinks: number; special: number; errors: number; bytes: number };

/** The structured summary of a scan, folded entry by entry so the tree never has to be held in memory. */
export class ScanSummary {
  readonly totals: Totals = { entries: 0, files: 0, directories: 0, symlinks: 0, special: 0, errors: 0, bytes: 0 };
  /** Files under dependency, build-output and tool folders (node_modules, build, .git …): counted, not summarised. */
  non_source_files = 0;
  test_files = 0;
  readonly #languages = new Map<string, { files: number; bytes: number }>();
  readonly build_systems: { system: string; path: string }[] = [];
  readonly test_frameworks: { framework: string; path: string }[] = [];
  readonly top_level: { name: string; type: string; size_bytes?: number }[] = [];
  #largest: { path: string; size_bytes: number }[] = [];

  /** `path` is the entry's path as reported (relative to the project root when inside it). */
  add(entry: ScanEntry, path: string): void {
    const totals = this.totals;
    totals.entries += 1;
    if (entry.error !== undefined) totals.errors += 1;
    if (entry.type === "directory") totals.directories += 1;
    else if (entry.type === "symlink") totals.symlinks += 1;
    else if (entry.type !== "file") totals.special += 1;
    if (entry.depth === 1 && this.top_level.length < MAX_TOP_LEVEL) {
      this.top_level.push({ name: entry.name, type: entry.type, ...(entry.size_bytes === undefined ? {} : { size_bytes: entry.size_bytes }) });
    }
    if (entry.type !== "file") return;
    const size = entry.size_bytes ?? 0;
    totals.files += 1;
    totals.bytes += size;
    this.#note_largest(path, size);
    if (entry.path.split("/").slice(0, -1).some(is_not_source_folder)) {
      this.non_source_files += 1;
      return;
    }
    this.#note_source(entry.name, path, size);
  }

  #note_source(name: string, path: string, size: number): void {
    const language = language_of(name);
    if (language !== undefined) {
      const stats = this.#languages.get(language) ?? { files: 0, bytes: 0 };
      stats.files += 1;
      stats.bytes += size;
      this.#languages.set(language, stats);
    }
    const system = build_system_of(name);
    if (system !== undefined && this.build_systems.length < MAX_MANIFESTS) this.build_systems.push({ system, path });
    const framework = test_framework_of(name);
    if (framework !== undefined && this.test_frameworks.length < MAX_MANIFESTS) this.test_frameworks.push({ framework, path });
    if (is_test_file(name)) this.test_files += 1;
  }

  #note_largest(path: string, size_bytes: number): void {
    // The list never holds more than LARGEST: its last place is taken only when it is full.
    const smallest = this.#largest[LARGEST - 1];
    if (smallest !== undefined && size_bytes <= smallest.size_bytes) return;
    this.#largest.push({ path, size_bytes });
    this.#largest.sort((a, b) => b.size_bytes - a.size_bytes);
    if (this.#largest.length > LARGEST) this.#largest.pop();
  }

  get largest_files(): { path: string; size_bytes: number }[] {
    return [...this.#largest];
  }

  /** Languages by bytes of source, largest first. */
  get languages(): { language: string; files: number; bytes: number }[] {
    return [...this.#languages.entries()].map(([language, stats]) => ({ language, ...stats })).sort((a, b) => b.bytes - a.bytes || b.files - a.files);
  }
}

import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import type { VersionSource } from "./detect.js";

/**
 * The version lines of the programs doctor probed, keyed by program path and arguments, each valid while the
 * file (the link's target: `c++` switched to another compiler is another file) keeps its inode, mtime and
 * size: a program that did not change needs no spawn (a stat, not a process).
 */
const VersionCacheEntry = v.strictObject({ ino: v.number(), mtime_ms: v.number(), size: v.number(), line: v.nullable(v.string()) });
const VersionCacheFile = v.strictObject({ version: v.literal(1), entries: v.record(v.string(), VersionCacheEntry) });
type VersionCacheFile = v.InferOutput<typeof VersionCacheFile>;

export function version_cache_file(air_home: string): string {
  return path.join(air_home, "cache", "doctor-deps.json");
}

/** A missing, unreadable or malformed cache is an empty one: it only ever saves work. */
function read_entries(file: string): VersionCacheFile["entries"] {
  try {
    const parsed = v.safeParse(VersionCacheFile, JSON.parse(fs.readFileSync(file, "utf8")));
    return parsed.success ? parsed.output.entries : {};
  } catch {
    return {};
  }
}

export class VersionCache {
  /** Version probes spawned through `source` (0 when every program was unchanged). */
  probes = 0;
  #dirty = false;

  private constructor(
    readonly file: string,
    readonly entries: VersionCacheFile["entries"],
  ) {}

  static load(file: string): VersionCache {
    const cache = new VersionCache(file, read_entries(file));
    // A file that did not parse is rewritten with what this run finds.
    cache.#dirty = fs.existsSync(file) && Object.keys(cache.entries).length === 0;
    return cache;
  }

  /** `probe`, answered from the cache for a program whose file is unchanged since it was last probed. */
  source(probe: VersionSource): VersionSource {
    return (program, args) => {
      const key = JSON.stringify([program, ...args]);
      let stat: fs.Stats;
      try {
        stat = fs.statSync(program);
      } catch {
        return probe(program, args);
      }
      const cached = this.entries[key];
      if (cached !== undefined && cached.ino === stat.ino && cached.mtime_ms === stat.mtimeMs && cached.size === stat.size) return cached.line ?? undefined;
      this.probes++;
      const line = probe(program, args);
      this.entries[key] = { ino: stat.ino, mtime_ms: stat.mtimeMs, size: stat.size, line: line ?? null };
      this.#dirty = true;
      return line;
    };
  }

  /** Writes the cache when it changed (whole file, then rename); a home that cannot be written is skipped. */
  save(): void {
    if (!this.#dirty) return;
    const temp = `${this.file}.${process.pid}.tmp`;
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      fs.writeFileSync(temp, `${JSON.stringify({ version: 1, entries: this.entries })}\n`);
      fs.renameSync(temp, this.file);
      this.#dirty = false;
    } catch {
      fs.rmSync(temp, { force: true });
    }
  }
}

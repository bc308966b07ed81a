import fs from "node:fs";
import path from "node:path";

/** How big a log grows before it is rotated, and how many rotated files (`.1` the newest) are kept. */
export type Rotation = { readonly max_bytes: number; readonly keep: number };

export const DEFAULT_ROTATION: Rotation = { max_bytes: 5 * 1024 * 1024, keep: 3 };

/**
 * An append-only log file rotated by size: `air.log` → `air.log.1` → … → `air.log.<keep>`, the oldest dropped.
 * Each record is one synchronous append of a whole line (O_APPEND keeps lines of concurrent air processes
 * apart); the size is read before each append, so several processes sharing the file still rotate it.
 * Nothing is opened until the first record: a run that logs nothing touches no file.
 */
export class RotatingFile {
  constructor(
    readonly file: string,
    private readonly rotation: Rotation = DEFAULT_ROTATION,
  ) {}

  append(line: string): void {
    const bytes = Buffer.byteLength(line);
    const size = this.#size();
    if (size === undefined) fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    else if (size > 0 && size + bytes > this.rotation.max_bytes) this.#rotate();
    fs.appendFileSync(this.file, line, { mode: 0o600 });
  }

  /** The live file, then the rotated ones from newest to oldest: every file of this log that exists. */
  files(): string[] {
    const names = [this.file, ...Array.from({ length: this.rotation.keep }, (_, index) => `${this.file}.${index + 1}`)];
    return names.filter((name) => fs.existsSync(name));
  }

  #size(): number | undefined {
    try {
      return fs.statSync(this.file).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  #rotate(): void {
    fs.rmSync(`${this.file}.${this.rotation.keep}`, { force: true });
    for (let index = this.rotation.keep - 1; index >= 1; index--) {
      if (fs.existsSync(`${this.file}.${index}`)) fs.renameSync(`${this.file}.${index}`, `${this.file}.${index + 1}`);
    }
    if (this.rotation.keep > 0) fs.renameSync(this.file, `${this.file}.1`);
    else fs.rmSync(this.file, { force: true });
  }
}

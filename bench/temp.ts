import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Temp folders of this run, removed on exit whatever happens (success, failure, Ctrl-C). */
const made: string[] = [];

export function temp_dir(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `air-bench-${label}-`));
  made.push(dir);
  return dir;
}

export function remove_dir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  const index = made.indexOf(dir);
  if (index >= 0) made.splice(index, 1);
}

export function remove_all(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

process.on("exit", remove_all);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    remove_all();
    process.exit(130);
  });
}

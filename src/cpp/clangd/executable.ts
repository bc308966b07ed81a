import fs from "node:fs";
import path from "node:path";
import { is_executable_file } from "../../tools/shell/sandbox.js";

/** The names Debian and upstream LLVM install clangd under, newest first (the manifest's `clangd` dependency). */
const NAMES = ["clangd", "clangd-19", "clangd-18", "clangd-17", "clangd-16", "clangd-15", "clangd-14"];
/** Debian's versioned LLVM trees, searched when no clangd is on PATH (the unversioned link is optional there). */
const LLVM_TREES = "/usr/lib";

function llvm_binaries(): string[] {
  let entries: string[];
  try {
    entries = fs.readdirSync(LLVM_TREES);
  } catch {
    return [];
  }
  return entries
    .filter((entry) => /^llvm-\d+$/.test(entry))
    .sort((a, b) => Number(b.slice(5)) - Number(a.slice(5)))
    .map((entry) => path.join(LLVM_TREES, entry, "bin", "clangd"));
}

/** The clangd this machine runs: the first name found on PATH, else the newest `/usr/lib/llvm-N/bin/clangd`; null if none. */
export function find_clangd(search_path: string = process.env.PATH ?? ""): string | null {
  const folders = search_path.split(path.delimiter).filter((folder) => folder !== "");
  for (const name of NAMES) {
    for (const folder of folders) {
      const candidate = path.join(folder, name);
      if (is_executable_file(candidate)) return candidate;
    }
  }
  return llvm_binaries().find(is_executable_file) ?? null;
}

/**
 * The clangd fixture project in a temp folder with a compile_commands.json of absolute paths, and readers of
 * which clangd processes run (from /proc, independent of the pool's own accounting).
 */
import fs from "node:fs";
import path from "node:path";
import { find_clangd } from "../../../src/cpp/clangd/executable.js";
import { fixture_path } from "../../fixtures/processes.js";

export const HAS_CLANGD = find_clangd() !== null;

/** The translation units the fixture's database compiles (a test may add a file to its copy). */
const UNITS = ["src/main.cpp", "src/geometry.cpp"];

/** Copies the fixture's sources into `root` and writes its compilation database there. */
export function write_clangd_project(root: string, units: readonly string[] = UNITS): void {
  const fixture = fixture_path("cpp-clangd");
  for (const folder of ["include", "src"]) fs.cpSync(path.join(fixture, folder), path.join(root, folder), { recursive: true });
  const database = units.map((unit) => ({
    directory: root,
    file: path.join(root, unit),
    arguments: ["c++", "-std=c++17", `-I${path.join(root, "include")}`, "-c", unit],
  }));
  fs.writeFileSync(path.join(root, "compile_commands.json"), `${JSON.stringify(database, null, 2)}\n`);
}

type ProcessEntry = { pid: number; comm: string; state: string; ppid: number };

function stat_of(pid: number): ProcessEntry | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // `pid (comm) state ppid …`; comm may hold spaces and parentheses, so split at the last ')'.
  const close = text.lastIndexOf(")");
  const [state = "", ppid = "0"] = text.slice(close + 2).split(" ");
  return { pid, comm: text.slice(text.indexOf("(") + 1, close), state, ppid: Number(ppid) };
}

/** Running (not exited, not a zombie waiting for its reaper). */
export function process_alive(pid: number): boolean {
  const entry = stat_of(pid);
  return entry !== null && entry.state !== "Z" && entry.state !== "X";
}

/** The live clangd processes whose parent is `parent` (this test process by default). */
export function clangd_children(parent: number = process.pid): number[] {
  return fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((name) => stat_of(Number(name)))
    .filter((entry): entry is ProcessEntry => entry !== null && entry.ppid === parent && entry.comm.startsWith("clangd"))
    .filter((entry) => process_alive(entry.pid))
    .map((entry) => entry.pid)
    .sort((a, b) => a - b);
}

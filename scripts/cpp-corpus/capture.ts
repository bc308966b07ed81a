import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Expect, Project } from "./cases/types.js";

/** Where the mini projects are built: a fixed folder, so the printed paths (and the corpus) are the same every run. */
export const WORK = "/tmp/air-cpp-corpus";

/** A stable, uncoloured, non-TTY environment; colour variants ask for it with a flag, as CI logs do. */
const ENV: NodeJS.ProcessEnv = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/tmp", LC_ALL: "C.UTF-8", TERM: "dumb" };

export const COMPILERS = { gcc: "/usr/bin/g++", clang: "/usr/bin/clang++" } as const;
export type Compiler = keyof typeof COMPILERS;

export interface Layout {
  /** Blank and comment lines inserted at the top of the bug file. */
  readonly shift: number;
  readonly moved: boolean;
  readonly build: string;
}

export const BASE: Layout = { shift: 0, moved: false, build: "build" };

/** The stability variants every project gets: line shifts of 1, 5 and 50, another folder, another build folder name. */
export const LAYOUTS: readonly (readonly [string, Layout])[] = [
  ["base", BASE],
  ["shift1", { ...BASE, shift: 1 }],
  ["shift5", { ...BASE, shift: 5 }],
  ["shift50", { ...BASE, shift: 50 }],
  ["moved", { ...BASE, moved: true }],
  ["build-renamed", { ...BASE, build: "out-renamed" }],
];

function padding(file: string, count: number): string {
  const comment = file.endsWith(".txt") || file.endsWith(".cmake") ? "# padding" : "// padding";
  return Array.from({ length: count }, (_, index) => (index % 2 === 0 ? "" : comment)).join("\n");
}

export function project_root(id: string, layout: Layout): string {
  return layout.moved ? path.join(WORK, "elsewhere", "checkout", id) : path.join(WORK, "projects", id);
}

/** Writes the project fresh (the folder emptied first) with its bug file shifted; returns the shifted files. */
export function write_project(root: string, project: Project, layout: Layout, extra: Readonly<Record<string, string>>): Record<string, string> {
  rmSync(root, { recursive: true, force: true });
  const files: Record<string, string> = { ...project.files, ...extra };
  if (layout.shift > 0) files[project.bug_file] = `${padding(project.bug_file, layout.shift)}\n${files[project.bug_file] ?? ""}`;
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return files;
}

/** The line a marker comment sits on, in the files as written. */
function marker_line(files: Readonly<Record<string, string>>, file: string, marker: string): number {
  const lines = (files[file] ?? "").split("\n");
  const at = lines.findIndex((line) => new RegExp(`(//|#) ${marker}$`).test(line));
  if (at < 0) throw new Error(`marker ${marker} not found in ${file}`);
  return at + 1;
}

export interface Expected {
  readonly file: string | null;
  readonly line: number | null;
  readonly severity: string;
  readonly code: string | null;
}

export function expected(files: Readonly<Record<string, string>>, expect: readonly Expect[], compiler: "gcc" | "clang"): Expected[] {
  return expect
    .filter((entry) => entry.only === undefined || entry.only === compiler)
    .map((entry) => ({
      file: entry.file,
      line: entry.file === null || entry.at === null ? null : marker_line(files, entry.file, entry.at),
      severity: entry.severity,
      code: entry.code ?? null,
    }));
}

/** Runs a command with stdout and stderr into one file, interleaved as a terminal shows them; returns what it printed. */
export function run(command: string, args: readonly string[], cwd: string, streams: "both" | "stderr" = "both"): string {
  mkdirSync(WORK, { recursive: true });
  const capture = path.join(WORK, "capture.log");
  const fd = openSync(capture, "w");
  try {
    spawnSync(command, args, { cwd, env: ENV, stdio: ["ignore", streams === "both" ? fd : "ignore", fd], timeout: 120_000 });
  } finally {
    closeSync(fd);
  }
  return readFileSync(capture, "utf8");
}

export function cmake_configure(root: string, build: string, options: readonly string[]): string {
  return run("cmake", ["-S", root, "-B", path.join(root, build), ...options], root);
}

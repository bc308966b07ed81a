import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Expected, WORK } from "./capture.js";

const CORPUS = fileURLToPath(new URL("../../test/fixtures/cpp-diagnostics/corpus/", import.meta.url));
const MANIFEST = path.join(CORPUS, "manifest.json");

export interface Entry {
  readonly output: string;
  readonly root: string;
  readonly build_dirs: readonly string[];
  /** Variants of one bug under one tool: their signatures must be equal. */
  readonly stability: string;
  /** The root cause: different causes must have different signatures. */
  readonly cause: string;
  /** How the build framed its jobs, for the job-order shuffle. */
  readonly framing: "ninja" | "make" | null;
  readonly expected: readonly Expected[];
}

const entries: Entry[] = [];

/** One output checked in as printed, with what its seeded bug must produce. */
export function record(output: string, text: string, entry: Omit<Entry, "output">): void {
  mkdirSync(path.dirname(path.join(CORPUS, output)), { recursive: true });
  writeFileSync(path.join(CORPUS, output), text);
  entries.push({ output, ...entry });
  process.stdout.write(`${output}\n`);
}

export interface Part {
  readonly name: string;
  /** The corpus folders its outputs go to. */
  readonly outputs: readonly string[];
  readonly build: () => void;
}

function previous_entries(): Entry[] {
  if (!existsSync(MANIFEST)) return [];
  const manifest: { entries: Entry[] } = JSON.parse(readFileSync(MANIFEST, "utf8"));
  return manifest.entries;
}

/** Builds every part (or the one named, keeping the others' outputs) and writes the sorted manifest. */
export function write_corpus(only: string | undefined, parts: readonly Part[]): void {
  const chosen = parts.filter((part) => only === undefined || part.name === only);
  if (chosen.length === 0) throw new Error(`no corpus part ${only}; parts: ${parts.map((part) => part.name).join(", ")}`);
  const replaced = chosen.flatMap((part) => part.outputs);
  const kept = only === undefined ? [] : previous_entries().filter((entry) => !replaced.some((folder) => entry.output.startsWith(`${folder}/`)));
  if (only === undefined) rmSync(CORPUS, { recursive: true, force: true });
  for (const folder of replaced) rmSync(path.join(CORPUS, folder), { recursive: true, force: true });
  rmSync(WORK, { recursive: true, force: true });
  for (const part of chosen) part.build();
  const all = [...kept, ...entries].sort((a, b) => (a.output < b.output ? -1 : a.output > b.output ? 1 : 0));
  // One entry a line: small to check in, and a regenerated part shows as its own lines in a diff.
  const head = JSON.stringify({ generator: "scripts/cpp-corpus/generate.ts", work: WORK }).slice(0, -1);
  writeFileSync(MANIFEST, `${head},"entries":[\n${all.map((entry) => JSON.stringify(entry)).join(",\n")}\n]}\n`);
}

/**
 * The soundness of areas_overlap, checked against the matcher the permission layer enforces: whenever it
 * calls two globs disjoint, no path from a generated set lies in both. Seeded, so a failure names the seed
 * and the globs that reproduce it (`AIR_AREA_SEED=<seed> npx vitest run test/orchestration/areas`).
 */
import picomatch from "picomatch";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { AreaGlob } from "../../../src/contracts/write-area.js";
import { areas_overlap } from "../../../src/orchestration/areas/overlap.js";
import { within } from "../../../src/permissions/paths.js";
import { in_write_area } from "../../../src/permissions/write-area.js";
import { seeded_random } from "../../fixtures/prng.js";

const SEED = Number(process.env.AIR_AREA_SEED ?? 20_260_412);
const GLOBS = 260;
const RANDOM_PATHS = 1_500;

/** File and folder names, chosen so that most patterns below match some of them and miss others. */
const NAMES = [
  "src",
  "Src",
  "lib",
  "libs",
  "net",
  "fs",
  "a",
  "b",
  "ab",
  "aab",
  "ac",
  "bc",
  "cc",
  "main.cpp",
  "main.h",
  "x.cpp",
  "x.CPP",
  "x.h",
  "util.hpp",
  "test_net",
  "test_fs",
  "bench_x",
  "c++",
  ".hidden",
  ".cpp",
  "!notes",
  "notes",
  "z",
];
/** One-segment pieces of a glob: literals come from NAMES, these are the patterns. */
const PATTERNS = [
  "*",
  "*.cpp",
  "*.h",
  "*pp",
  "*.CPP",
  "test_*",
  "bench_*",
  "lib?",
  "?",
  "a*b",
  "a*",
  "*b",
  "[ab]c",
  "[!a]c",
  "{net,fs}",
  "{a,b}.cpp",
  "x{.cpp,.h}",
  "@(a|ab)",
  "!(a)",
  "+(a)",
  "?(b)c",
  "c+*",
  "**",
  "a**",
];
/** Pieces spanning segments or changing the glob's reading, which must never be taken apart. */
const ODD = ["{src/net,lib}", "[/]", "!src", ""];

type Random = () => number;

function pick<T>(random: Random, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

function random_glob(random: Random): string {
  const length = 1 + Math.floor(random() * 4);
  const parts: string[] = [];
  for (let index = 0; index < length; index += 1) {
    const roll = random();
    parts.push(roll < 0.5 ? pick(random, NAMES) : roll < 0.95 ? pick(random, PATTERNS) : pick(random, ODD));
  }
  const parsed = v.safeParse(AreaGlob, parts.join("/"));
  return parsed.success ? parsed.output : pick(random, NAMES);
}

/** The permission layer's in_write_area for one glob, compiled once (it compiles on every call). */
function area_matcher(glob: string): (relative: string) => boolean {
  if (!picomatch.scan(glob).isGlob) return (relative) => within(relative, glob);
  const exact = picomatch(glob, { dot: true });
  const under = picomatch(`${glob}/**`, { dot: true });
  return (relative) => exact(relative) || under(relative);
}

/** A path the glob is likely to contain: each segment replaced by a name its pattern matches, sometimes one deeper. */
function instance(random: Random, glob: string): string {
  const parts: string[] = [];
  for (const segment of glob.split("/")) {
    if (segment.includes("**")) {
      for (let extra = Math.floor(random() * 3); extra > 0; extra -= 1) parts.push(pick(random, NAMES));
      continue;
    }
    const matching = segment === "" ? [] : NAMES.filter((name) => picomatch(segment, { dot: true })(name));
    parts.push(matching.length > 0 && random() < 0.85 ? pick(random, matching) : pick(random, NAMES));
  }
  if (random() < 0.3) parts.push(pick(random, NAMES));
  return parts.length === 0 ? pick(random, NAMES) : parts.join("/");
}

function random_path(random: Random): string {
  const parts: string[] = [];
  for (let length = 1 + Math.floor(random() * 4); length > 0; length -= 1) parts.push(pick(random, NAMES));
  return parts.join("/");
}

function world(seed: number) {
  const random = seeded_random(seed);
  const globs = [...new Set(Array.from({ length: GLOBS }, () => random_glob(random)))];
  const paths = [
    ...new Set([
      ...globs.flatMap((glob) => [instance(random, glob), instance(random, glob)]),
      ...Array.from({ length: RANDOM_PATHS }, () => random_path(random)),
    ]),
  ];
  const contained = globs.map((glob) => {
    const matcher = area_matcher(glob);
    return new Set(paths.filter((relative) => matcher(relative)));
  });
  return { random, globs, paths, contained };
}

describe("areas_overlap (property)", () => {
  const { random, globs, paths, contained } = world(SEED);

  it("compiles in_write_area's reading of a glob faithfully", () => {
    for (let sample = 0; sample < 400; sample += 1) {
      const index = Math.floor(random() * globs.length);
      const glob = pick(random, globs);
      const relative = pick(random, paths);
      expect(contained[globs.indexOf(glob)]?.has(relative), `${glob} ∋ ${relative} (seed ${SEED}, sample ${index})`).toBe(in_write_area(relative, [glob]));
    }
  });

  it("never calls two globs disjoint when a path lies in both", () => {
    let disjoint = 0;
    let witnessed = 0;
    for (let i = 0; i < globs.length; i += 1) {
      for (let j = i; j < globs.length; j += 1) {
        const a = globs[i] ?? "";
        const b = globs[j] ?? "";
        const answer = areas_overlap([a], [b]).overlap;
        expect(areas_overlap([b], [a]).overlap, `symmetry of ${a} and ${b}`).toBe(answer);
        const left = contained[i] ?? new Set<string>();
        const shared = [...(contained[j] ?? [])].find((relative) => left.has(relative));
        if (shared !== undefined) witnessed += 1;
        if (answer) continue;
        disjoint += 1;
        expect(shared, `${a} and ${b} were called disjoint but both contain ${shared} (seed ${SEED})`).toBeUndefined();
      }
    }
    // The property has teeth only if both answers occur often and the paths really meet inside globs.
    const pairs = (globs.length * (globs.length + 1)) / 2;
    expect(disjoint).toBeGreaterThan(pairs / 5);
    expect(witnessed).toBeGreaterThan(pairs / 20);
  });

  it("never calls two areas disjoint when a path lies in both", () => {
    for (let sample = 0; sample < 2_000; sample += 1) {
      const a = [pick(random, globs), pick(random, globs)];
      const b = [pick(random, globs), pick(random, globs), pick(random, globs)];
      if (areas_overlap(a, b).overlap) continue;
      const inside = (area: string[]) => (relative: string) => area.some((glob) => contained[globs.indexOf(glob)]?.has(relative) === true);
      expect(
        paths.find((relative) => inside(a)(relative) && inside(b)(relative)),
        `${a} and ${b} (seed ${SEED})`,
      ).toBeUndefined();
    }
  });
});

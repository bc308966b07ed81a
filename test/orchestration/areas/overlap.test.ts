import { describe, expect, it } from "vitest";
import { areas_overlap, WHOLE_PROJECT } from "../../../src/orchestration/areas/overlap.js";

const overlap = (a: string[] | undefined, b: string[] | undefined) => areas_overlap(a, b).overlap;

/** The answer must not depend on which area is asked about first. */
function both_ways(a: string, b: string): boolean {
  const forward = overlap([a], [b]);
  expect(overlap([b], [a])).toBe(forward);
  return forward;
}

describe("areas_overlap", () => {
  it("treats a task without a write area as the whole project", () => {
    expect(areas_overlap(undefined, ["src/net/**"])).toEqual({ overlap: true, a_glob: WHOLE_PROJECT, b_glob: "src/net/**" });
    expect(areas_overlap(["docs"], undefined)).toEqual({ overlap: true, a_glob: "docs", b_glob: WHOLE_PROJECT });
    expect(overlap(undefined, undefined)).toBe(true);
  });

  it("names the first pair of globs that overlap", () => {
    expect(areas_overlap(["docs", "src/net/**"], ["lib", "src/net/tcp.ts"])).toEqual({ overlap: true, a_glob: "src/net/**", b_glob: "src/net/tcp.ts" });
    expect(areas_overlap(["docs", "lib/a"], ["lib/b", "src"])).toEqual({ overlap: false });
  });

  it("separates plain entries that differ in a segment", () => {
    expect(both_ways("src/net", "src/fs")).toBe(false);
    expect(both_ways("lib_a", "lib_b")).toBe(false);
    expect(both_ways("src/net/tcp.ts", "src/net/udp.ts")).toBe(false);
  });

  it("reads a plain entry as a folder and everything under it", () => {
    expect(both_ways("src", "src/net/tcp.ts")).toBe(true);
    expect(both_ways("src/net", "src/net")).toBe(true);
    expect(both_ways("src/*.ts", "src/a.ts/inner")).toBe(true);
    expect(both_ways("src/net", "src/netx")).toBe(false);
  });

  it("lets a globstar overlap everything after it", () => {
    expect(both_ways("src/**", "src/net/tcp.ts")).toBe(true);
    expect(both_ways("**/*.cpp", "include/a.h")).toBe(true);
    expect(both_ways("src/**/test", "src/net/x.ts")).toBe(true);
    expect(both_ways("src/**", "lib/**")).toBe(false);
    expect(both_ways("src/a**b", "src/zzz")).toBe(true);
  });

  it("separates a literal from a one-segment pattern that cannot match it", () => {
    expect(both_ways("src/*.cpp", "src/main.h")).toBe(false);
    expect(both_ways("src/*.cpp", "src/main.cpp")).toBe(true);
    expect(both_ways("lib?", "libs")).toBe(true);
    expect(both_ways("lib?", "lib")).toBe(false);
    expect(both_ways("[ab]c", "bc")).toBe(true);
    expect(both_ways("[ab]c", "cc")).toBe(false);
    expect(both_ways("{net,fs}/x", "fs/x")).toBe(true);
    expect(both_ways("{net,fs}/x", "io/x")).toBe(false);
    expect(both_ways("src/*", "src/.hidden")).toBe(true);
  });

  it("separates two star patterns only by incompatible fixed heads or tails", () => {
    expect(both_ways("src/*.cpp", "src/*.h")).toBe(false);
    expect(both_ways("src/*.cpp", "src/*pp")).toBe(true);
    expect(both_ways("src/test_*", "src/bench_*")).toBe(false);
    expect(both_ways("src/test_*", "src/test_net_*")).toBe(true);
    expect(both_ways("src/a*.ts", "src/*b.ts")).toBe(true);
    expect(both_ways("src/*.cpp/x", "src/*.h")).toBe(false);
  });

  it("assumes overlap between patterns it cannot reason about", () => {
    expect(both_ways("src/{a,b}.ts", "src/*.h")).toBe(true);
    expect(both_ways("src/[ab].cpp", "src/*.h")).toBe(true);
    expect(both_ways("src/@(a|b)", "src/*.c")).toBe(true);
  });

  it("assumes overlap where segments stop lining up", () => {
    expect(both_ways("{src/net,lib}/x", "lib/y")).toBe(true);
    expect(both_ways("src/[/]x", "src/y")).toBe(true);
    expect(both_ways("!src/*.ts", "lib/a")).toBe(true);
    expect(both_ways("a//b", "a/c")).toBe(true);
  });

  it("compares names regardless of case, as a case-insensitive file system does", () => {
    expect(both_ways("Src/net", "src/net")).toBe(true);
    expect(both_ways("src/*.CPP", "src/main.cpp")).toBe(true);
    expect(both_ways("src/*.CPP", "src/*.cpp")).toBe(true);
  });

  it("reads a spelling picomatch does not call a glob as plain text, as in_write_area does", () => {
    expect(both_ways("!notes", "notes")).toBe(false);
    expect(both_ways("!notes", "!notes/a")).toBe(true);
  });
});

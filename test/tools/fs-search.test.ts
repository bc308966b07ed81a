/**
 * fs.glob and fs.grep: paths relative to the project root, .gitignore respected (root, nested and
 * .git/info/exclude) with an opt-out, .git never searched, symlinks never followed, the search root
 * judged by the PermissionEngine, and grep's limits (binary, size, credentials, long lines, work).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { error_of, output_of, tool_harness, write, type ToolHarness } from "./helpers.js";

let h: ToolHarness;
let elsewhere: string;
beforeEach(() => {
  h = tool_harness();
  elsewhere = path.join(h.outside, "elsewhere");
  write(elsewhere, "secret.ts", "const needle = 'outside';\n");
});
afterEach(() => h.cleanup());

type GlobOutput = { paths: string[]; truncated: boolean };
type GrepMatch = { path: string; line: number; column: number; text: string; before: string[]; after: string[] };
type GrepOutput = { matches: GrepMatch[]; truncated: boolean; truncated_reason?: string; files_searched: number; files_skipped: number };

const glob = async (input: Record<string, unknown>) => output_of<GlobOutput>(await h.call("fs.glob", input));
const grep = async (input: Record<string, unknown>) => output_of<GrepOutput>(await h.call("fs.grep", input));
const paths_of = (output: GrepOutput) => output.matches.map((match) => `${match.path}:${match.line}`);

/** A git repository with ignore rules at three levels. */
function ignored_tree() {
  execFileSync("git", ["init", "-q"], { cwd: h.root });
  write(h.root, ".gitignore", "dist/\n*.log\n");
  write(h.root, ".git/info/exclude", "notes.txt\n");
  write(h.root, "src/.gitignore", "generated.ts\n!keep.log\n");
  for (const file of ["src/main.ts", "src/generated.ts", "src/keep.log", "src/debug.log", "dist/bundle.ts", "notes.txt", "lib/generated.ts"]) {
    write(h.root, file, "needle\n");
  }
}

describe("fs.glob", () => {
  beforeEach(() => {
    for (const file of ["src/a.ts", "src/b/c.ts", "src/d.js", "README.md", ".hidden/e.ts"]) write(h.root, file, "x\n");
  });

  it("returns the matching files, relative to the project root and sorted", async () => {
    expect(await glob({ pattern: "src/**/*.ts" })).toEqual({ paths: ["src/a.ts", "src/b/c.ts"], truncated: false });
    expect((await glob({ pattern: "**/*.ts" })).paths).toEqual([".hidden/e.ts", "src/a.ts", "src/b/c.ts"]);
    expect((await glob({ pattern: ["**/*.{ts,js}", "!src/b/**"] })).paths).toEqual([".hidden/e.ts", "src/a.ts", "src/d.js"]);
  });

  it("matches relative to cwd, and says when the limit cut the list", async () => {
    expect((await glob({ pattern: "*.ts", cwd: "src" })).paths).toEqual(["src/a.ts"]);
    expect(await glob({ pattern: "**/*", limit: 2 })).toMatchObject({ truncated: true, paths: expect.any(Array) });
    expect((await glob({ pattern: "**/*", limit: 2 })).paths).toHaveLength(2);
  });

  it("skips what git ignores (root and nested .gitignore, .git/info/exclude) and .git itself; include_ignored lifts the first", async () => {
    ignored_tree();
    expect((await glob({ pattern: "**/*" })).paths).toEqual(expect.arrayContaining(["src/main.ts", "src/keep.log", "lib/generated.ts", ".gitignore"]));
    const visible = (await glob({ pattern: "**/*" })).paths;
    for (const hidden of ["src/generated.ts", "src/debug.log", "dist/bundle.ts", "notes.txt"]) expect(visible).not.toContain(hidden);
    expect(visible.some((file) => file.startsWith(".git/"))).toBe(false);
    const all = (await glob({ pattern: "**/*", include_ignored: true })).paths;
    expect(all).toEqual(expect.arrayContaining(["src/generated.ts", "src/debug.log", "dist/bundle.ts", "notes.txt"]));
    expect(all.some((file) => file.startsWith(".git/"))).toBe(false);
  });

  it("agrees with git on which files are ignored, nested rules and negations included", async () => {
    execFileSync("git", ["init", "-q"], { cwd: h.root });
    write(h.root, ".gitignore", "build/\n*.tmp\n/top-only.txt\ncache\n");
    write(h.root, ".git/info/exclude", "local-*\n");
    write(h.root, "src/.gitignore", "!keep.tmp\n!build/\nvendor/**/*.js\n/anchored.txt\n");
    write(h.root, "src/deeper/.gitignore", "*.md\n!README.md\n");
    const files = [
      "top-only.txt",
      "src/top-only.txt",
      "a.tmp",
      "src/keep.tmp",
      "src/other.tmp",
      "build/out.js",
      "src/build/kept.js",
      "src/vendor/lib/x.js",
      "src/vendor/lib/x.ts",
      "src/anchored.txt",
      "src/deeper/anchored.txt",
      "src/deeper/notes.md",
      "src/deeper/README.md",
      "cache/file.txt",
      "src/cache",
      "local-notes.txt",
      "src/local-x.txt",
      "src/main.ts",
    ];
    for (const file of files) write(h.root, file, "x\n");
    const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
    const listed = execFileSync("git", ["ls-files", "--others", "--exclude-standard", "-z"], { cwd: h.root, env, encoding: "utf8" });
    const by_git = listed
      .split("\0")
      .filter((file) => file !== "" && !file.startsWith(".air/"))
      .sort();
    const by_glob = (await glob({ pattern: "**/*" })).paths.filter((file) => !file.startsWith(".air/"));
    expect(by_glob).toEqual(by_git);
    expect(by_glob).toEqual(
      expect.arrayContaining(["src/keep.tmp", "src/top-only.txt", "src/deeper/anchored.txt", "src/deeper/README.md", "src/vendor/lib/x.ts"]),
    );
  });

  it("lists a symlink but never walks through one (a folder outside stays unseen)", async () => {
    fs.symlinkSync(elsewhere, path.join(h.root, "src", "link"));
    expect((await glob({ pattern: "**/*.ts" })).paths).toEqual([".hidden/e.ts", "src/a.ts", "src/b/c.ts"]);
    expect((await glob({ pattern: "src/*" })).paths).toContain("src/link");
  });

  it.each([["../elsewhere"], ["src/link"]])("refuses a cwd outside the project (%s)", async (cwd) => {
    fs.symlinkSync(elsewhere, path.join(h.root, "src", "link"));
    const error = error_of(await h.call("fs.glob", { pattern: "**/*", cwd }));
    expect(error.kind).toBe("permission_error");
    expect(h.events("tool.started")).toEqual([]);
  });

  it.each(["../*", "src/../../*", "/etc/*"])("refuses a pattern that climbs out (%s)", async (pattern) => {
    const error = error_of(await h.call("fs.glob", { pattern }));
    expect(error.kind).toBe("tool_error");
    expect(error.message).toMatch(/absolute or climbs out/);
  });

  it("rejects bad input by schema", async () => {
    for (const input of [{ pattern: "" }, { pattern: "*", limit: 0 }, { pattern: [] }, { pattern: "*", extra: true }]) {
      expect(error_of(await h.call("fs.glob", input)).message).toMatch(/input of fs.glob fails its schema/);
    }
  });
});

describe("fs.grep", () => {
  it("returns each matching line with path, line, column and context, in tree order", async () => {
    write(h.root, "src/a.ts", "one\nconst needle = 1;\nthree\nfour\n");
    write(h.root, "src/b/c.ts", "  needle()\r\n");
    write(h.root, "README.md", "no match\n");
    const output = await grep({ pattern: "needle", before: 1, after: 2 });
    expect(output.matches).toEqual([
      { path: "src/a.ts", line: 2, column: 7, text: "const needle = 1;", before: ["one"], after: ["three", "four"] },
      { path: "src/b/c.ts", line: 1, column: 3, text: "  needle()", before: [], after: [] },
    ]);
    expect(output).toMatchObject({ truncated: false, files_skipped: 0 });
    expect(await grep({ pattern: "needle", path: "src" })).toMatchObject({ files_searched: 2, files_skipped: 0 });
  });

  it("searches a folder or a single file, case-insensitively on request, with include and exclude globs", async () => {
    write(h.root, "src/a.ts", "Needle\n");
    write(h.root, "src/a.test.ts", "needle\n");
    write(h.root, "src/b.js", "needle\n");
    write(h.root, "docs/a.ts", "needle\n");
    expect(paths_of(await grep({ pattern: "needle", path: "src" }))).toEqual(["src/a.test.ts:1", "src/b.js:1"]);
    expect(paths_of(await grep({ pattern: "needle", path: "src", case_insensitive: true }))).toEqual(["src/a.test.ts:1", "src/a.ts:1", "src/b.js:1"]);
    expect(paths_of(await grep({ pattern: "needle", path: "src/b.js" }))).toEqual(["src/b.js:1"]);
    expect(paths_of(await grep({ pattern: "needle", include: ["*.ts"], exclude: ["*.test.ts"], case_insensitive: true }))).toEqual([
      "docs/a.ts:1",
      "src/a.ts:1",
    ]);
    expect(paths_of(await grep({ pattern: "needle", exclude: ["src"] }))).toEqual(["docs/a.ts:1"]);
  });

  it("an invalid regular expression is a clear tool error", async () => {
    const error = error_of(await h.call("fs.grep", { pattern: "foo(" }));
    expect(error.kind).toBe("tool_error");
    expect(error.message).toMatch(/invalid regular expression "foo\(":/);
    expect(error.user_action).toBeTruthy();
  });

  it("respects .gitignore at every level and .git/info/exclude, never searches .git; include_ignored and an explicit ignored path lift it", async () => {
    ignored_tree();
    expect(paths_of(await grep({ pattern: "needle" })).sort()).toEqual(["lib/generated.ts:1", "src/keep.log:1", "src/main.ts:1"]);
    expect(paths_of(await grep({ pattern: "needle", include_ignored: true })).sort()).toEqual([
      "dist/bundle.ts:1",
      "lib/generated.ts:1",
      "notes.txt:1",
      "src/debug.log:1",
      "src/generated.ts:1",
      "src/keep.log:1",
      "src/main.ts:1",
    ]);
    expect(paths_of(await grep({ pattern: "needle", path: "dist" }))).toEqual(["dist/bundle.ts:1"]);
    expect(paths_of(await grep({ pattern: "repositoryformatversion", include_ignored: true }))).toEqual([]);
  });

  it("skips binary files, files over the size limit, hard-linked files and credential files", async () => {
    write(h.root, "ok.txt", "needle\n");
    fs.writeFileSync(path.join(h.root, "blob.bin"), Buffer.from("needle\0\x01\x02"));
    write(h.root, "huge.txt", `needle\n${"x".repeat(3 * 1024 * 1024)}\n`);
    write(h.root, ".env", "API_KEY=needle\n");
    write(h.root, "keys/server.pem", "needle\n");
    fs.linkSync(path.join(elsewhere, "secret.ts"), path.join(h.root, "linked.ts"));
    const output = await grep({ pattern: "needle" });
    expect(paths_of(output)).toEqual(["ok.txt:1"]);
    expect(output.files_skipped).toBe(5);
  });

  it("never follows a symlink out of the project, to a folder or to a file", async () => {
    write(h.root, "src/a.ts", "const needle = 'inside';\n");
    fs.symlinkSync(elsewhere, path.join(h.root, "src", "dir-link"));
    fs.symlinkSync(path.join(elsewhere, "secret.ts"), path.join(h.root, "src", "file-link.ts"));
    const output = await grep({ pattern: "needle" });
    expect(paths_of(output)).toEqual(["src/a.ts:1"]);
    expect(output.matches.map((match) => match.text).join()).not.toContain("outside");
  });

  it.each([["../elsewhere"], ["src/dir-link"], ["src/file-link.ts"]])("refuses a search root outside the project (%s)", async (target) => {
    write(h.root, "src/a.ts", "x\n");
    fs.symlinkSync(elsewhere, path.join(h.root, "src", "dir-link"));
    fs.symlinkSync(path.join(elsewhere, "secret.ts"), path.join(h.root, "src", "file-link.ts"));
    const error = error_of(await h.call("fs.grep", { pattern: "needle", path: target }));
    expect(error.kind).toBe("permission_error");
    expect(h.events("tool.started")).toEqual([]);
  });

  it("an absolute path outside the project is refused", async () => {
    expect(error_of(await h.call("fs.grep", { pattern: "needle", path: elsewhere })).kind).toBe("permission_error");
  });

  it("stops at max_matches and says so", async () => {
    write(h.root, "many.txt", "needle\n".repeat(50));
    const output = await grep({ pattern: "needle", max_matches: 10 });
    expect(output.matches).toHaveLength(10);
    expect(output).toMatchObject({ truncated: true, truncated_reason: "max_matches" });
    expect((await grep({ pattern: "needle", max_matches: 50 })).truncated).toBe(false);
  });

  it("matches only the first 10,000 characters of a line and returns lines clipped", async () => {
    write(h.root, "long.txt", `${"a".repeat(20_000)}needle\nstart ${"b".repeat(5_000)}\n`);
    expect((await grep({ pattern: "needle" })).matches).toEqual([]);
    const [match] = (await grep({ pattern: "^start" })).matches;
    expect(match!.text.length).toBeLessThanOrEqual(1001);
  });

  it("is cancelled through the call's signal", async () => {
    for (let index = 0; index < 50; index += 1) write(h.root, `src/f${index}.txt`, "needle\n");
    const controller = new AbortController();
    const unsubscribe = h.temp.session.bus.subscribe({}, (event) => {
      if (event.type === "tool.started") controller.abort("user pressed stop");
    });
    const error = error_of(await h.call("fs.grep", { pattern: "needle" }, { signal: controller.signal }));
    unsubscribe();
    expect(error.metadata).toMatchObject({ cancelled: true });
    expect(h.events("tool.cancelled")).toHaveLength(1);
  });
});

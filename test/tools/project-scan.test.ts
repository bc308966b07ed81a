/**
 * project.scan against real trees (seeds 003 §15 scanner rules): metadata only — no file is opened, which
 * a FIFO in the tree would turn into a hang — symlinks listed and never followed, nothing excluded from
 * the listing, limits reported as warnings, progress while it runs and a prompt stop on cancellation.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { error_of, output_of, tool_harness, write, type ToolHarness } from "./helpers.js";

let h: ToolHarness;
beforeEach(() => {
  h = tool_harness();
});
afterEach(() => h.cleanup());

type Listed = { path: string; type: string; size_bytes?: number; mode?: string; modified_at?: string; link_target?: string; error?: { code: string } };
type ScanOutput = {
  path: string;
  totals: { entries: number; files: number; directories: number; symlinks: number; special: number; errors: number; bytes: number };
  non_source_files: number;
  languages: { language: string; files: number; bytes: number }[];
  build_systems: { system: string; path: string }[];
  test_frameworks: { framework: string; path: string }[];
  test_files: number;
  top_level: { name: string; type: string; size_bytes?: number }[];
  largest_files: { path: string; size_bytes: number }[];
  warnings: { kind: string; path: string; message: string }[];
  warnings_total: number;
  truncated: boolean;
  listing_artifact_id: string;
};

function listing(output: ScanOutput): Listed[] {
  return h
    .artifact_text(output.listing_artifact_id)
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Listed);
}

/** A small C++ + TypeScript project with dependencies and build output beside the sources. */
function mixed_project(root: string): void {
  write(root, "CMakeLists.txt", "project(x)\n");
  write(root, "src/main.cpp", "int main() { return 0; }\n");
  write(root, "include/x.hpp", "#pragma once\n");
  write(root, "package.json", "{}\n");
  write(root, "web/app.ts", "export const a = 1;\n");
  write(root, "web/app.test.ts", "test\n");
  write(root, "vitest.config.ts", "export default {}\n");
  write(root, "node_modules/dep/package.json", "{}\n");
  write(root, "node_modules/dep/index.js", "module.exports = 1;\n");
  write(root, "build/main.o", "\0\0\0");
}

describe("project.scan", () => {
  it("summarises languages, build systems and test frameworks from names, leaving dependencies and build output out of the summary", async () => {
    mixed_project(h.root);
    const output = output_of<ScanOutput>(await h.call("project.scan", {}));
    expect(output.path).toBe(".");
    expect(output.languages.map((language) => language.language)).toEqual(expect.arrayContaining(["C++", "TypeScript", "CMake"]));
    expect(output.languages.find((language) => language.language === "C++")).toMatchObject({ files: 2 });
    expect(output.languages.some((language) => language.language === "JavaScript")).toBe(false);
    expect(output.build_systems).toEqual([
      { system: "cmake", path: "CMakeLists.txt" },
      { system: "npm", path: "package.json" },
    ]);
    expect(output.test_frameworks).toEqual([{ framework: "vitest", path: "vitest.config.ts" }]);
    expect(output.test_files).toBe(1);
    expect(output.top_level.map((entry) => entry.name)).toEqual([
      ".air",
      "CMakeLists.txt",
      "build",
      "include",
      "node_modules",
      "package.json",
      "src",
      "vitest.config.ts",
      "web",
    ]);
    expect(output.truncated).toBe(false);
    expect(output.non_source_files).toBeGreaterThanOrEqual(3);
  });

  it("lists every entry, none excluded, with type, size, mode and mtime in the listing artifact", async () => {
    mixed_project(h.root);
    const output = output_of<ScanOutput>(await h.call("project.scan", {}));
    const entries = listing(output);
    expect(entries).toHaveLength(output.totals.entries);
    const by_path = Object.fromEntries(entries.map((entry) => [entry.path, entry]));
    expect(by_path["node_modules/dep/index.js"]).toMatchObject({ type: "file", size_bytes: 20 });
    expect(by_path["build/main.o"]).toMatchObject({ type: "file", size_bytes: 3 });
    expect(by_path.src).toMatchObject({ type: "directory" });
    expect(by_path["src/main.cpp"]!.mode).toMatch(/^0[0-7]{3}$/);
    expect(Number.isNaN(Date.parse(by_path["src/main.cpp"]!.modified_at!))).toBe(false);
    expect(output.totals.files).toBe(entries.filter((entry) => entry.type === "file").length);
    expect(output.totals.bytes).toBe(entries.reduce((sum, entry) => sum + (entry.size_bytes ?? 0), 0));
  });

  it("records FIFOs and sockets without opening them (opening the FIFO would hang the scan)", async () => {
    execFileSync("mkfifo", [path.join(h.root, "pipe")]);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(h.root, "sock"), resolve));
    try {
      const output = output_of<ScanOutput>(await h.call("project.scan", {}));
      const by_path = Object.fromEntries(listing(output).map((entry) => [entry.path, entry]));
      expect(by_path.pipe).toMatchObject({ type: "fifo" });
      expect(by_path.sock).toMatchObject({ type: "socket" });
      expect(by_path.pipe!.size_bytes).toBeUndefined();
      expect(output.totals.special).toBe(2);
    } finally {
      server.close();
    }
  });

  it("lists symlinks with their targets and never follows them: no loop, nothing from outside, dangling ones too", async () => {
    write(h.outside, "secret-dir/inside.txt", "outside the project\n");
    write(h.root, "src/a.c", "int a;\n");
    fs.symlinkSync("..", path.join(h.root, "src", "loop"));
    fs.symlinkSync(path.join(h.outside, "secret-dir"), path.join(h.root, "escape"));
    fs.symlinkSync("missing-target", path.join(h.root, "dangling"));
    const output = output_of<ScanOutput>(await h.call("project.scan", {}));
    const entries = listing(output);
    const by_path = Object.fromEntries(entries.map((entry) => [entry.path, entry]));
    expect(by_path["src/loop"]).toMatchObject({ type: "symlink", link_target: ".." });
    expect(by_path.escape).toMatchObject({ type: "symlink", link_target: path.join(h.outside, "secret-dir") });
    expect(by_path.dangling).toMatchObject({ type: "symlink", link_target: "missing-target" });
    expect(entries.some((entry) => entry.path.startsWith("escape/") || entry.path.startsWith("src/loop/"))).toBe(false);
    expect(output.totals.symlinks).toBe(3);
  });

  it.skipIf(process.getuid?.() === 0)("records a folder it cannot list as an entry with its error, and a warning", async () => {
    write(h.root, "locked/hidden.txt", "x\n");
    fs.chmodSync(path.join(h.root, "locked"), 0o000);
    try {
      const output = output_of<ScanOutput>(await h.call("project.scan", {}));
      const locked = listing(output).find((entry) => entry.path === "locked");
      expect(locked).toMatchObject({ type: "directory", error: { code: "EACCES" } });
      expect(output.totals.errors).toBe(1);
      expect(output.warnings).toContainEqual(expect.objectContaining({ kind: "permission", path: "locked" }));
    } finally {
      fs.chmodSync(path.join(h.root, "locked"), 0o755);
    }
  });

  it("stops at max_depth and max_entries and says so in warnings", async () => {
    write(h.root, "a/b/c/d/deep.txt", "x\n");
    const shallow = output_of<ScanOutput>(await h.call("project.scan", { path: "a", max_depth: 2 }));
    expect(shallow.path).toBe("a");
    expect(listing(shallow).map((entry) => entry.path)).toEqual(["a/b", "a/b/c"]);
    expect(shallow.warnings).toEqual([{ kind: "depth_limit", path: "a/b/c", message: "deeper than max_depth 2: not entered" }]);

    const capped = output_of<ScanOutput>(await h.call("project.scan", { path: "a", max_entries: 2 }));
    expect(capped.truncated).toBe(true);
    expect(capped.totals.entries).toBe(2);
    expect(capped.warnings.map((warning) => warning.kind)).toEqual(["entry_limit"]);
  });

  it("reports progress while it runs: stream chunks and live tool.progress events", async () => {
    for (let index = 0; index < 600; index += 1) write(h.root, `many/f${index}.txt`, "");
    const chunks: unknown[] = [];
    output_of<ScanOutput>(await h.call("project.scan", {}, { on_stream: (chunk) => chunks.push(chunk) }));
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(chunks[0]).toMatchObject({ type: "project.scan.progress", entries: 256 });
    expect(h.bus_events.some((event) => event.type === "tool.progress")).toBe(true);
  });

  it("stops promptly when cancelled: tool.cancelled, no listing artifact", async () => {
    for (let index = 0; index < 3000; index += 1) write(h.root, `tree/d${index % 30}/f${index}.txt`, "");
    const controller = new AbortController();
    const chunks: unknown[] = [];
    const outcome = await h.call(
      "project.scan",
      {},
      {
        signal: controller.signal,
        on_stream: (chunk) => {
          chunks.push(chunk);
          controller.abort();
        },
      },
    );
    expect(error_of(outcome).message).toContain("cancelled");
    expect(chunks).toHaveLength(1);
    expect(h.events("tool.cancelled")).toHaveLength(1);
    expect(h.artifacts()).toEqual([]);
  });

  it("refuses a folder outside the project and a path that is not a folder", async () => {
    expect(error_of(await h.call("project.scan", { path: h.outside })).kind).toBe("permission_error");
    write(h.root, "file.txt", "x\n");
    expect(error_of(await h.call("project.scan", { path: "file.txt" })).message).toContain("not an existing folder");
  });
});

/**
 * Folders read as whole trees: what the program reaches below the operand, walked as it walks — through
 * symlinks only when it follows them, past dot entries only when it reads them — in a real temporary
 * project with a symlink into `~/.ssh`, a hard link to the key and a credential file inside a folder.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReadDepth } from "../../../src/permissions/command-risk/grammar/matched.js";
import { analyze_command } from "../../../src/permissions/command-risk/index.js";
import { judge_tree, MAX_TREE_ENTRIES } from "../../../src/permissions/command-risk/trees.js";
import type { AnalyzerContext } from "../../../src/permissions/command-risk/types.js";

let base: string;
let root: string;
let context: AnalyzerContext;

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "air-trees-")));
  root = path.join(base, "project");
  const home = path.join(base, "home");
  const outside = path.join(base, "outside");
  for (const file of ["src/a.ts", "src/lib/c.ts", "config/app.json", "config/.env.production", "docs/guide.md", "mixed/a.ts", "loop/a.ts"]) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), "x");
  }
  fs.mkdirSync(path.join(home, ".ssh"), { recursive: true });
  fs.mkdirSync(outside, { recursive: true });
  fs.mkdirSync(path.join(root, "assets"), { recursive: true });
  fs.mkdirSync(path.join(root, "big"), { recursive: true });
  fs.writeFileSync(path.join(home, ".ssh", "id_rsa"), "key");
  fs.symlinkSync(path.join(home, ".ssh"), path.join(root, "src", "link"));
  fs.linkSync(path.join(home, ".ssh", "id_rsa"), path.join(root, "assets", "id_copy"));
  fs.symlinkSync("guide.md", path.join(root, "docs", "current.md"));
  fs.symlinkSync(outside, path.join(root, "mixed", "out"));
  fs.symlinkSync("..", path.join(root, "loop", "up"));
  for (let index = 0; index <= MAX_TREE_ENTRIES; index += 1) fs.writeFileSync(path.join(root, "big", `f${index}`), "");
  context = { cwd_real: root, root_real: root, home };
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const tree = (word: string, depth: ReadDepth) => judge_tree(word, path.join(root, word), depth, context);
const verdict = (command: string) => analyze_command(command, context).verdict;

describe("judge_tree", () => {
  it("does not follow a symlink below the operand for a tree read, and denies it for a linked one", () => {
    expect(tree("src", "tree")).toEqual([]);
    expect(tree("src", "linked_tree")).toEqual([
      expect.objectContaining({ action: "deny", category: "credential_sensitive", reason: expect.stringContaining("src/link") }),
    ]);
  });

  it("asks for a hard link below the operand, whatever the depth", () => {
    for (const depth of ["tree", "linked_tree", "visible_tree"] as const)
      expect(tree("assets", depth)).toEqual([expect.objectContaining({ action: "ask_user", reason: expect.stringContaining("assets/id_copy") })]);
  });

  it("asks for a credential file below the operand, naming it, and skips it when dot entries are skipped", () => {
    expect(tree("config", "tree")).toEqual([
      expect.objectContaining({ action: "ask_user", category: "credential_sensitive", reason: expect.stringContaining("config/.env.production") }),
    ]);
    expect(tree("config", "visible_tree")).toEqual([]);
  });

  it("follows a symlink inside the project, asks for one leading out, and stops at a symlink loop", () => {
    expect(tree("docs", "linked_tree")).toEqual([]);
    expect(tree("mixed", "linked_tree")).toEqual([expect.objectContaining({ action: "ask_user", category: "outside_project" })]);
    expect(tree("loop", "linked_tree").map((finding) => finding.action)).toContain("deny");
  });

  it("asks when the tree holds too many entries to check", () => {
    expect(tree("big", "tree")).toEqual([expect.objectContaining({ action: "ask_user", reason: expect.stringContaining("too many files to check") })]);
  });

  it("reaches nothing more for a path read or an operand that is no folder", () => {
    expect(tree("src", "path")).toEqual([]);
    expect(tree("src/a.ts", "linked_tree")).toEqual([]);
  });
});

describe("tree reads in analysed commands", () => {
  it("judges each read by the depth its rule gives it (ls a path, grep -r a tree, grep -R a linked tree, rg a visible tree)", () => {
    expect(verdict("ls src")).toBe("allow");
    expect(verdict("grep -r x src")).toBe("allow");
    expect(verdict("grep -R x src")).toBe("deny");
    expect(verdict("grep -r x config")).toBe("ask_user");
    expect(verdict("rg x config")).toBe("allow");
    expect(verdict("grep -r x assets")).toBe("ask_user");
  });

  it("walks what a glob expands to", () => {
    expect(verdict("grep -R x s*")).toBe("deny");
    expect(verdict("grep -r x *")).toBe("ask_user");
  });

  it("still judges the operand itself as today: a symlink on the command line is followed", () => {
    expect(verdict("grep -r x src/link")).toBe("deny");
  });
});

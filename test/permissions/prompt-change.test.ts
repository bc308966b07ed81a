/**
 * The change before approval: a prompt for fs.edit, fs.write or fs.patch carries the diff the call would make
 * (from its input and the file as it is), redacted, counted and clipped; a command's prompt carries each
 * command with what the analyzer found and the paths; all of it is recorded, so a resumed session asks again
 * with it, and the line prompt prints it.
 */
import fs from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import type { PermissionPrompt, PromptAnswerer } from "../../src/permissions/prompts.js";
import { LinePromptAnswerer } from "../../src/permissions/prompts.js";
import { prompts_of } from "../../src/permissions/session-permissions.js";
import { tool_harness, type ToolHarness } from "../tools/helpers.js";

let h: ToolHarness | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

/** Answers "deny" after noting the prompt and what the file held while it was asked. */
function watching(file: () => string): PromptAnswerer & { asked: { prompt: PermissionPrompt; while_asked: string }[] } {
  const asked: { prompt: PermissionPrompt; while_asked: string }[] = [];
  return {
    asked,
    answer: async (prompt) => {
      asked.push({ prompt, while_asked: file() });
      return { answer: "deny", grant_scope: "once", resolved_by: "user" };
    },
  };
}

function harness(relative: string, content?: string) {
  let root = "";
  const answerer = watching(() => (fs.existsSync(path.join(root, relative)) ? fs.readFileSync(path.join(root, relative), "utf8") : "(no file)"));
  h = tool_harness({ policy: { mode: "default", rules: [] }, answerer });
  root = h.root;
  if (content !== undefined) {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), content);
  }
  return { h, answerer };
}

const CALC = "int sum(int n) {\n  return n;\n}\n";

describe("a prompt's proposed change", () => {
  it("shows an fs.edit as the file's diff while nothing is written yet, and records it", async () => {
    const { h, answerer } = harness("src/calc.cpp", CALC);
    await h.call("fs.edit", { path: "src/calc.cpp", old_string: "return n;", new_string: "return n * (n + 1) / 2;", expected_sha256: "0".repeat(64) });
    const [asked] = answerer.asked;
    expect(asked?.while_asked).toBe(CALC);
    expect(asked?.prompt.change).toMatchObject({ added: 1, removed: 1, clipped: false });
    expect(asked?.prompt.change?.diff).toContain("-  return n;\n+  return n * (n + 1) / 2;");
    expect(asked?.prompt.change?.diff).toContain("@@ -1,3 +1,3 @@");
    expect(asked?.prompt.paths).toEqual([{ op: "write", path: "src/calc.cpp", category: "project_source" }]);
    expect(asked?.prompt.categories).toEqual(["write"]);
    const [recorded] = h.events("permission.prompt.requested");
    expect(recorded?.payload.change).toEqual(asked?.prompt.change);
  });

  it("counts a long fs.write whole but keeps only its first lines, and redacts a secret in it", async () => {
    const { h, answerer } = harness("notes.txt");
    const lines = Array.from({ length: 2000 }, (_, index) => `line ${index}`);
    const content = `key AKIAABCDEFGHIJKLMNOP\n${lines.join("\n")}\n`;
    await h.call("fs.write", { path: "notes.txt", content });
    const change = answerer.asked[0]?.prompt.change;
    expect(change).toMatchObject({ added: 2001, removed: 0, lines: 2005, clipped: true });
    expect(change?.diff.split("\n").length).toBeLessThan(2005);
    expect(change?.diff).not.toContain("AKIAABCDEFGHIJKLMNOP");
    expect(JSON.stringify(h.events("permission.prompt.requested"))).not.toContain("AKIAABCDEFGHIJKLMNOP");
    expect(answerer.asked[0]?.while_asked).toBe("(no file)");
  });

  it("shows fs.patch's own diff", async () => {
    const { h, answerer } = harness("src/calc.cpp", CALC);
    const patch = "--- a/src/calc.cpp\n+++ b/src/calc.cpp\n@@ -1,3 +1,3 @@\n int sum(int n) {\n-  return n;\n+  return 0;\n }\n";
    await h.call("fs.patch", { patch, expected_sha256: { "src/calc.cpp": "0".repeat(64) } });
    expect(answerer.asked[0]?.prompt.change).toMatchObject({ diff: patch.trimEnd(), added: 1, removed: 1 });
  });

  it("does not read a file outside the project into the prompt", async () => {
    const { h, answerer } = harness("src/calc.cpp", CALC);
    const secret_file = path.join(h.outside, "private.txt");
    fs.writeFileSync(secret_file, "private words\n");
    await h.call("fs.write", { path: secret_file, content: "replaced\n" });
    const change = answerer.asked[0]?.prompt.change;
    expect(change?.diff).toContain("current content not shown");
    expect(change?.diff).not.toContain("private words");
    expect(answerer.asked[0]?.prompt.paths?.[0]).toMatchObject({ op: "write", category: "outside_project" });
  });

  it("carries each command of a shell.run with its categories", async () => {
    const { h, answerer } = harness("src/calc.cpp", CALC);
    await h.call("shell.run", { command: "make test && rm -rf build" });
    expect(answerer.asked[0]?.prompt.command_parts).toEqual([
      { command: "make test", categories: ["build", "test"] },
      { command: "rm -rf build", categories: ["destructive"] },
    ]);
  });

  it("is read back with its change while it waits, so a resumed session asks it again with the diff", async () => {
    let asked: () => void = () => {};
    const waiting = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const answerer: PromptAnswerer = {
      answer: (_prompt, signal) =>
        new Promise((resolve) => {
          asked();
          signal?.addEventListener("abort", () => resolve({ answer: "deny", grant_scope: "once", resolved_by: "policy" }), { once: true });
        }),
    };
    h = tool_harness({ policy: { mode: "default", rules: [] }, answerer });
    fs.mkdirSync(path.join(h.root, "src"));
    fs.writeFileSync(path.join(h.root, "src/calc.cpp"), CALC);
    const stop = new AbortController();
    const call = h.call(
      "fs.edit",
      { path: "src/calc.cpp", old_string: "return n;", new_string: "return 1;", expected_sha256: "0".repeat(64) },
      { signal: stop.signal },
    );
    await waiting;
    const { pending } = prompts_of(h.temp.session);
    expect(pending).toHaveLength(1);
    expect(pending[0]?.change).toMatchObject({ added: 1, removed: 1 });
    expect(pending[0]?.change?.diff).toContain("+  return 1;");
    stop.abort();
    await call;
  });
});

describe("the line prompt", () => {
  it("prints the change under its size, and each command with what the analyzer found", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = "";
    output.on("data", (chunk: Buffer) => {
      printed += chunk.toString();
    });
    const answerer = new LinePromptAnswerer(input, output);
    const answered = answerer.answer({
      prompt_id: "permission_prompt_01" as PermissionPrompt["prompt_id"],
      tool_name: "fs.edit",
      question: "Allow fs.edit?",
      reason: "writing src/calc.cpp",
      risk_level: "low",
      offered_scopes: ["once"],
      subjects: [],
      categories: ["write"],
      commands: [],
      command_parts: [{ command: "rm -rf build", categories: ["destructive"] }],
      paths: [{ op: "write", path: "src/calc.cpp", category: "project_source" }],
      change: { diff: "@@ -1 +1 @@\n-old\n+new", added: 1, removed: 1, lines: 3, clipped: false },
    });
    input.write("n\n");
    await answered;
    answerer.close();
    expect(printed).toContain("$ rm -rf build → destructive");
    expect(printed).toContain("write src/calc.cpp · project source");
    expect(printed).toContain("change: +1 −1 · 3 lines\n  @@ -1 +1 @@\n  -old\n  +new");
  });
});

import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TypedKeys } from "../../src/cli/pre-frame-keys.js";
import { REPO_ROOT, temp_workspace } from "../fixtures/cli.js";
import { import_log_of, loaded_modules } from "../fixtures/loaded-modules.js";

describe("what air run loads before its pre-frame", () => {
  let workspace: ReturnType<typeof temp_workspace>;
  beforeEach(() => {
    workspace = temp_workspace();
  });
  afterEach(() => workspace.cleanup());

  it("loads the bundle's entry and the pre-frame's part and no package at all: no ink, React, runtime or SDK", () => {
    const bundle = path.join(REPO_ROOT, "dist", "bundle");
    const tui = path.join(bundle, "tui");
    const holds = JSON.parse(fs.readFileSync(path.join(tui, "meta.json"), "utf8")) as Record<string, string[]>;
    const part = Object.keys(holds).find((file) => holds[file]?.some((input) => input.endsWith("/dist/cli/pre-frame.js")));
    expect(part).toBeDefined();
    // What bin/air.js loads, then what `air run` imports before it paints (src/cli/main.ts): the TUI bundle's entry and the pre-frame's part.
    const log = import_log_of([path.join(bundle, "main.js"), path.join(tui, "tui-main.js"), path.join(tui, part ?? "")], workspace);
    const loaded = loaded_modules(log).join("\n");
    expect(loaded).toContain("/dist/cli/pre-frame.js");
    expect(loaded).not.toContain("/node_modules/");
    for (const later of ["/dist/cli/commands/run.js", "/dist/cli/interactive.js", "/dist/tui/app.js", "/dist/providers/"]) expect(loaded).not.toContain(later);
  });
});

/** A stdin as ink reads it: on each `readable`, everything buffered, in one chunk. */
function ink_like_reads(stdin: Readable): string[] {
  const reads: string[] = [];
  stdin.setEncoding("utf8");
  stdin.on("readable", () => {
    let chunk: string | null;
    while ((chunk = stdin.read() as string | null) !== null) reads.push(chunk);
  });
  return reads;
}

describe("TypedKeys", () => {
  it("shows the typed text on the prompt line, Backspace applied, and arms the exit hint on a Ctrl+C until another key", () => {
    const keys = new TypedKeys();
    keys.add("helo\x7flo");
    expect(keys.draft()).toBe("hello");
    expect(keys.armed).toBe(false);
    keys.add("\x03");
    expect(keys.armed).toBe(true);
    keys.add("!");
    expect(keys.armed).toBe(false);
    expect(keys.draft()).toBe("hello!");
  });

  it("hands the keys to ink in order, each Ctrl+C in a read of its own so the App sees it as a key", async () => {
    const keys = new TypedKeys();
    keys.add("hello");
    keys.add(" world\x03");
    keys.add("\x03");
    const stdin = new Readable({ read() {} });
    keys.hand_to(stdin as unknown as NodeJS.ReadStream);
    const reads = ink_like_reads(stdin);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reads).toEqual(["hello world", "\x03", "\x03"]);
    expect(stdin.listenerCount("readable")).toBe(1);
  });

  it("gives the keys back as they came to a reader that is not the App", () => {
    const keys = new TypedKeys();
    keys.add("ab\x03c");
    const stdin = new Readable({ read() {} });
    keys.give_back(stdin as unknown as NodeJS.ReadStream);
    expect(String(stdin.read())).toBe("ab\x03c");
  });
});

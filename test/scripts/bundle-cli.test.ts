import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { REPO_ROOT, temp_workspace } from "../fixtures/cli.js";
import { import_log_of, loaded_modules } from "../fixtures/loaded-modules.js";

const BUNDLE = path.join(REPO_ROOT, "dist", "bundle");
const STATELESS_ROUTER = ["dist/cli/command.js", "dist/cli/output.js", "dist/cli/run-command.js"];

function modules_of(meta_file: string): Set<string> {
  return new Set(Object.values(JSON.parse(fs.readFileSync(meta_file, "utf8")) as Record<string, string[]>).flat());
}

describe("the CLI's bundles", () => {
  let workspace: ReturnType<typeof temp_workspace>;
  beforeEach(() => {
    workspace = temp_workspace();
  });
  afterEach(() => workspace.cleanup());

  it("share no module between the CLI's entry and the TUI's bundle but the stateless router's", () => {
    const log = import_log_of([path.join(BUNDLE, "main.js")], workspace);
    const tui = modules_of(path.join(BUNDLE, "tui", "meta.json"));
    const twice = loaded_modules(log).filter((module) => tui.has(module));
    expect(twice.map((module) => path.relative(REPO_ROOT, module)).sort()).toEqual(STATELESS_ROUTER);
  });

  it("leave the TUI's entry out of the CLI's bundle and the other commands out of the TUI's", () => {
    const main = modules_of(path.join(BUNDLE, "meta.json"));
    const tui = modules_of(path.join(BUNDLE, "tui", "meta.json"));
    expect([...main].some((module) => module.endsWith("/dist/cli/tui-main.js"))).toBe(false);
    expect(tui.has(path.join(REPO_ROOT, "dist/cli/tui-main.js"))).toBe(true);
    for (const other of ["main.js", "commands/session-list.js", "commands/history.js", "commands/doctor.js", "commands/restore.js"]) {
      expect(tui.has(path.join(REPO_ROOT, "dist/cli", other)), other).toBe(false);
    }
  });
});

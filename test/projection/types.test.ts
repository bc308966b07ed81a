/**
 * The TUI's whole view of the runtime is src/projection/types.ts (DESIGN §2: the TUI imports contracts and
 * projection types only), so that module must pull in no runtime code: every import in it is a type import.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../fixtures/cli.js";

describe("src/projection/types.ts", () => {
  it("imports types only, from contracts and the projection's own type declarations", () => {
    const text = fs.readFileSync(path.join(REPO_ROOT, "src", "projection", "types.ts"), "utf8");
    const imports = [...text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+"([^"]+)"/gms)];
    expect(imports.length).toBeGreaterThan(0);
    for (const [statement, , type_only, specifier] of imports) {
      expect(type_only, statement).toBe("type ");
      expect(specifier, statement).toMatch(/^\.\.\/contracts\/|^\.\/(ui-state|ui-command-channel)\.js$/);
    }
  });
});

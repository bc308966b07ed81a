import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../fixtures/cli.js";

const SRC = path.join(REPO_ROOT, "src");

function source_files(folder: string): string[] {
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The top-level src/ folder a file belongs to, e.g. "contracts". */
function layer_of(file: string): string {
  return path.relative(SRC, file).split(path.sep)[0]!;
}

type Import = { from: string; specifier: string; layer: string | undefined };

function imports_of(file: string): Import[] {
  const text = fs.readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*)["']([^"']+)["']/g)].map((match) => match[1]!);
  return specifiers.map((specifier) => ({
    from: path.relative(REPO_ROOT, file),
    specifier,
    layer: specifier.startsWith(".") ? layer_of(path.resolve(path.dirname(file), specifier)) : undefined,
  }));
}

/** Our layers each layer may import (DESIGN.md §2); undefined = no restriction. */
const ALLOWED: Record<string, { ours: string[]; packages?: RegExp }> = {
  contracts: { ours: ["contracts"], packages: /^(node:|valibot$|ulidx$)/ },
  machines: { ours: ["machines", "contracts"], packages: /^(xstate(\/graph)?$)/ },
  // A worker assembles its own requests (src/context/: pure modules, no file or database access).
  workers: { ours: ["workers", "contracts", "context"] },
  tui: { ours: ["tui", "contracts", "projection"] },
};

describe("import direction", () => {
  for (const [layer, rule] of Object.entries(ALLOWED)) {
    it(`${layer}/ imports only ${rule.ours.join(", ")}`, () => {
      const offending = source_files(path.join(SRC, layer))
        .flatMap(imports_of)
        .filter((entry) =>
          entry.layer === undefined ? rule.packages !== undefined && !rule.packages.test(entry.specifier) : !rule.ours.includes(entry.layer),
        );
      expect(offending).toEqual([]);
    });
  }

  it("finds imports at all (the check cannot pass vacuously)", () => {
    const machine_imports = source_files(path.join(SRC, "machines")).flatMap(imports_of);
    expect(machine_imports.some((entry) => entry.layer === "contracts")).toBe(true);
  });
});

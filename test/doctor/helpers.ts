/**
 * Test-made capabilities for doctor: a manifest whose dependency is the executable `airtest-tool`, a real
 * script that prints its version, and a bin folder of the test's own to put on PATH.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as v from "valibot";
import { CapabilityManifest, type DependencySpec } from "../../src/capabilities/manifest.js";

/** A dependency as a manifest file spells it (defaults left out). */
export type DependencyInput = Partial<v.InferInput<typeof DependencySpec>>;

export type ToolBox = {
  readonly root: string;
  /** Empty at first; on PATH in the context `env`. */
  readonly bin: string;
  /** The script an install command copies into `bin`. */
  readonly source: string;
  /** PATH with `bin` first, then the system's. */
  readonly env: NodeJS.ProcessEnv;
  cleanup(): void;
};

/** A temp folder with `bin/` and `src/airtest-tool`, a shell script that prints `airtest-tool 2.4.1`. */
export function tool_box(version = "2.4.1"): ToolBox {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "air-doctor-"));
  const bin = path.join(root, "bin");
  fs.mkdirSync(bin);
  fs.mkdirSync(path.join(root, "src"));
  const source = path.join(root, "src", "airtest-tool");
  write_tool(source, version);
  return {
    root,
    bin,
    source,
    env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` },
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

export function write_tool(file: string, version: string): void {
  fs.writeFileSync(file, `#!/bin/sh\necho "airtest-tool ${version}"\n`, { mode: 0o755 });
}

/** A project-local style capability with one executable dependency; `install` adds its install command. */
export function airtest_manifest(dependency: DependencyInput = {}): CapabilityManifest {
  return v.parse(CapabilityManifest, {
    schema_version: 1,
    id: "airtest",
    version: "1.0.0",
    description: "A capability made by the doctor tests.",
    trust: "project_local",
    tools: [{ name: "airtest.run", description: "Runs airtest-tool.", category: "project", implementation: { kind: "command", argv: ["airtest-tool"] } }],
    dependencies: [
      {
        id: "airtest-tool",
        kind: "executable",
        required_for: ["airtest.run"],
        severity: "required",
        detect: { by: "executable", names: ["airtest-tool"], version_args: ["--version"], min_version: "2.0" },
        risk: "none",
        ...dependency,
      },
    ],
    triggers: [{ kind: "always" }],
  });
}

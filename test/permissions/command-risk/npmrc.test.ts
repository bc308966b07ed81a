/**
 * Package-manager configuration that runs code (issue 4: "project .npmrc settings that run code during npm
 * test"): a project whose .npmrc names a script shell turns `npm test` into that program.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { analyze_command } from "../../../src/permissions/command-risk/index.js";
import { package_manager_execution } from "../../../src/permissions/command-risk/npmrc.js";

let base: string;
let root: string;

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "air-npmrc-")));
  root = path.join(base, "project");
  fs.mkdirSync(path.join(root, "packages", "a"), { recursive: true });
  fs.writeFileSync(path.join(root, "package.json"), '{"scripts":{"test":"vitest run"}}\n');
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

const analyze = (command: string, cwd = root) => analyze_command(command, { cwd_real: cwd, root_real: root, home: path.join(base, "home") });
const write = (relative: string, text: string) => fs.writeFileSync(path.join(root, relative), text);

describe("project package-manager configuration", () => {
  it("npm test is allowed without one, and denied when .npmrc sets script-shell", () => {
    expect(analyze("npm test").verdict).toBe("allow");
    write(".npmrc", "script-shell=./evil.sh\n");
    const analysis = analyze("npm test");
    expect(analysis.verdict).toBe("deny");
    expect(analysis.findings).toContainEqual(
      expect.objectContaining({ action: "deny", category: "system_sensitive", reason: expect.stringMatching(/^\.npmrc sets script-shell = \.\/evil\.sh/) }),
    );
  });

  it("is checked for every package manager, after wrappers, in chains and nested shells", () => {
    write(".npmrc", "node-options=--require ./hook.js\n");
    for (const command of [
      "npm test",
      "CI=true npm test",
      "timeout 60 npx vitest run",
      "pnpm install",
      "yarn test",
      "ls && npm run build",
      "bash -c 'npm test'",
      "env npm_config_x=1 npm t",
      "corepack pnpm test",
    ]) {
      expect(analyze(command).verdict, command).toBe("deny");
    }
    expect(analyze("ls -la").verdict).toBe("allow");
  });

  it("finds the keys that run code and leaves ordinary settings alone", () => {
    const executing = [
      "script-shell=/tmp/x",
      "script_shell=/tmp/x",
      "node-options=--import=./x.mjs",
      "NODE_OPTIONS=--inspect=0.0.0.0:9229",
      "node-gyp=./gyp.js",
      "git=./fake-git",
      "shell=./sh",
      "editor=./ed",
      "call=./x",
      "onload-script=./x.js",
      "init-module=./x.js",
      "userconfig=./other.npmrc",
      "globalconfig=./g",
      "pnpmfile=./p.cjs",
    ];
    for (const line of executing) {
      write(".npmrc", `${line}\n`);
      expect(package_manager_execution(root, root).length, line).toBe(1);
    }
    write(
      ".npmrc",
      "; comment\n# comment\nregistry=https://npm.example.com/\nengine-strict=true\nignore-scripts=false\nsave-exact=true\nnode-options=--max-old-space-size=4096 --enable-source-maps\nscript-shell=/bin/bash\n@scope:registry=https://x/\n",
    );
    expect(package_manager_execution(root, root)).toEqual([]);
  });

  it("reads .yarnrc, .yarnrc.yml and pnpm-workspace.yaml; yarn's own releases and plugins under .yarn/ are normal", () => {
    write(
      ".yarnrc.yml",
      "yarnPath: .yarn/releases/yarn-4.1.0.cjs\nplugins:\n  - path: .yarn/plugins/@yarnpkg/plugin-x.cjs\n    spec: x\nnodeLinker: node-modules\n",
    );
    expect(analyze("yarn test").verdict).toBe("allow");
    write(".yarnrc.yml", "yarnPath: ./tools/evil.cjs\n");
    expect(analyze("yarn test").verdict).toBe("deny");
    write(".yarnrc.yml", "injectEnvironmentFiles:\n  - .env.yarn\n");
    expect(analyze("yarn test").verdict).toBe("deny");
    fs.rmSync(path.join(root, ".yarnrc.yml"));
    write(".yarnrc", 'yarn-path "./evil.js"\n');
    expect(analyze("yarn test").verdict).toBe("deny");
    fs.rmSync(path.join(root, ".yarnrc"));
    write("pnpm-workspace.yaml", "packages:\n  - 'packages/*'\nscriptShell: ./evil.sh\n");
    expect(analyze("pnpm test").verdict).toBe("deny");
  });

  it("looks in the command's folder up to the root, and in folders the script cds into", () => {
    write("packages/a/.npmrc", "script-shell=./evil.sh\n");
    expect(analyze("npm test").verdict).toBe("allow");
    expect(analyze("npm test", path.join(root, "packages", "a")).verdict).toBe("deny");
    expect(analyze("cd packages/a && npm test").verdict).toBe("deny");
  });

  it("a .npmrc too big to read cheaply is reported, not skipped", () => {
    write(".npmrc", `# ${"x".repeat(70 * 1024)}\n`);
    expect(analyze("npm test").verdict).toBe("deny");
  });
});

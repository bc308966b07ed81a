/**
 * PathClassifier (seeds 003 §12 boundary rules 1–2): realpath before any prefix check, symlink and `..`
 * escapes, git internals in any spelling, credentials, and the scope helpers. Real folders and symlinks.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { classify_path, is_env_file, normalise_scope_path, resolve_physical, resolve_real, within } from "../../src/permissions/paths.js";

let base: string;
let root: string;
let outside: string;
let home: string;

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "air-paths-")));
  root = path.join(base, "project");
  outside = path.join(base, "elsewhere");
  home = path.join(base, "home");
  for (const folder of [root, outside, home, path.join(root, "src"), path.join(root, ".git", "hooks")]) fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(root, "src", "main.c"), "int main() {}\n");
  fs.writeFileSync(path.join(outside, "secret.txt"), "outside\n");
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

const classify = (input: string) => classify_path(input, root, { home });

describe("escapes", () => {
  it("`..` out of the root is outside the project, even through an existing folder", () => {
    for (const input of ["../elsewhere/secret.txt", "src/../../elsewhere/new.txt", "./../project-sibling.txt"]) {
      const c = classify(input);
      expect(c.inside_project, input).toBe(false);
      expect(c.category, input).toBe("outside_project");
    }
  });

  it("a sibling folder whose name starts with the root's name is outside (root + path.sep, not a string prefix)", () => {
    fs.mkdirSync(`${root}-evil`);
    const c = classify(`${root}-evil/x.txt`);
    expect(c.inside_project).toBe(false);
    expect(c.real).toBe(path.join(`${root}-evil`, "x.txt"));
  });

  it("absolute paths: inside the root is inside, anywhere else is outside", () => {
    expect(classify(path.join(root, "src", "main.c"))).toMatchObject({ inside_project: true, relative: "src/main.c", category: "project_source" });
    expect(classify(path.join(outside, "secret.txt"))).toMatchObject({ inside_project: false, category: "outside_project" });
    expect(classify("/etc/hosts")).toMatchObject({ inside_project: false, category: "system_sensitive" });
  });

  it("a symlinked folder pointing outside is outside, for existing and new files under it", () => {
    fs.symlinkSync(outside, path.join(root, "link"));
    expect(classify("link/secret.txt")).toMatchObject({ inside_project: false, real: path.join(outside, "secret.txt") });
    expect(classify("link/new/deeper.txt")).toMatchObject({ inside_project: false, real: path.join(outside, "new", "deeper.txt") });
  });

  it("a symlinked file pointing outside is outside", () => {
    fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "innocent.txt"));
    expect(classify("innocent.txt")).toMatchObject({ inside_project: false, exists: true });
  });

  it("a dangling symlink is followed to where a write would land", () => {
    fs.symlinkSync(path.join(outside, "not-yet.txt"), path.join(root, "dangling.txt"));
    fs.symlinkSync(path.join(outside, "no-dir"), path.join(root, "dangling-dir"));
    expect(classify("dangling.txt")).toMatchObject({ inside_project: false, real: path.join(outside, "not-yet.txt") });
    expect(classify("dangling-dir/a/b.txt")).toMatchObject({ inside_project: false, real: path.join(outside, "no-dir", "a", "b.txt") });
  });

  it("a symlink loop is reported, not followed forever", () => {
    fs.symlinkSync(path.join(root, "loop-b"), path.join(root, "loop-a"));
    fs.symlinkSync(path.join(root, "loop-a"), path.join(root, "loop-b"));
    expect(() => classify("loop-a/x.txt")).toThrow(/symbolic links/);
  });

  it("a symlink inside the project to another place inside stays inside, classified by its target", () => {
    fs.symlinkSync(path.join(root, "src"), path.join(root, "alias"));
    expect(classify("alias/main.c")).toMatchObject({ inside_project: true, relative: "src/main.c", category: "project_source" });
    fs.symlinkSync(path.join(root, ".git"), path.join(root, "gitdir"));
    expect(classify("gitdir/config").category).toBe("project_git_internal");
  });

  it("a root reached through a symlink is compared by its realpath", () => {
    const alias = path.join(base, "alias-root");
    fs.symlinkSync(root, alias);
    expect(classify_path("src/main.c", alias, { home })).toMatchObject({ inside_project: true, relative: "src/main.c" });
    expect(classify_path(path.join(alias, "..", "elsewhere", "secret.txt"), alias, { home }).inside_project).toBe(false);
  });

  it("a NUL byte is refused", () => {
    expect(() => classify("src/a\0.txt")).toThrow(/NUL/);
  });
});

describe("categories", () => {
  it("git internals in any case and spelling", () => {
    for (const input of [".git/config", ".GIT/hooks/pre-commit", ".Git/HEAD", "sub/.git/config", ".git", ".git./config", ".git /config", ".g\u200cit/config"]) {
      expect(classify(input).category, JSON.stringify(input)).toBe("project_git_internal");
    }
    expect(classify(".gitignore").category).toBe("project_source");
    expect(classify(".github/workflows/ci.yml").category).toBe("project_source");
  });

  it(".air shared and local", () => {
    expect(classify(".air/shared/project.json").category).toBe("project_air_shared");
    expect(classify(".air/local/sessions/x/session.db").category).toBe("project_air_local");
    expect(classify(".AIR/shared/permissions.yaml").category).toBe("project_air_shared");
    expect(classify("docs/.air/notes.md").category).toBe("project_source");
  });

  it("build output", () => {
    for (const input of ["build/a.o", "dist/index.js", "node_modules/x/index.js", "cmake-build-debug/app"]) {
      expect(classify(input).category, input).toBe("project_build_output");
    }
  });

  it("credentials: env files but not their templates, keys, ssh, home credentials", () => {
    for (const input of [".env", ".env.local", ".env.production", "config/.env", "certs/server.key", "certs/tls.pem", "id_ed25519", "deploy/.ssh/id_rsa", "~/.ssh/id_rsa", "~/.aws/credentials", "~/.netrc", "~/.npmrc", "~/.docker/config.json"]) {
      expect(classify(input).category, input).toBe("credential_or_secret");
    }
    for (const input of [".env.example", ".env.sample", ".env.template", "id_ed25519.pub", "~/.ssh/known_hosts", "src/environment.ts", "docs/env.md"]) {
      expect(classify(input).category, input).not.toBe("credential_or_secret");
    }
  });

  it("a symlink named .env to a plain file is still treated as a credential", () => {
    fs.writeFileSync(path.join(root, "settings.txt"), "A=1\n");
    fs.symlinkSync(path.join(root, "settings.txt"), path.join(root, ".env"));
    expect(classify(".env").category).toBe("credential_or_secret");
  });

  it("is_env_file", () => {
    expect([".env", ".ENV", ".env.local", ".env.example", ".environment", "env"].map(is_env_file)).toEqual([true, true, true, false, false, false]);
  });
});

describe("resolution helpers", () => {
  it("resolve_real keeps the segments that do not exist yet", () => {
    expect(resolve_real(path.join(root, "src", "new", "file.txt"))).toBe(path.join(root, "src", "new", "file.txt"));
  });

  it("resolve_physical: `..` after a symlink leaves the symlink's target, as bash does", () => {
    fs.mkdirSync(path.join(outside, "inner"));
    fs.symlinkSync(path.join(outside, "inner"), path.join(root, "link"));
    // Lexically link/../secret.txt is <root>/secret.txt; physically it is <outside>/secret.txt.
    expect(resolve_physical(root, "link/../secret.txt", home)).toBe(path.join(outside, "secret.txt"));
    expect(resolve_physical(root, "~/x", home)).toBe(path.join(home, "x"));
    expect(resolve_physical(root, "src/./main.c", home)).toBe(path.join(root, "src", "main.c"));
  });

  it("scope entries are normalised and compared segment-wise", () => {
    expect(["src/", "./src", "src/**", "src/*", ".", "./"].map(normalise_scope_path)).toEqual(["src", "src", "src", "src", "", ""]);
    expect(within("src/parser/a.ts", "src/parser")).toBe(true);
    expect(within("src/parser", "src/parser/")).toBe(true);
    expect(within("src/parser2/a.ts", "src/parser")).toBe(false);
    expect(within("src/a.ts", "../src")).toBe(false);
    expect(within("anything", ".")).toBe(true);
  });
});

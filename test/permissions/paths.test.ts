/**
 * PathClassifier (seeds 003 §12 boundary rules 1–2): realpath before any prefix check, symlink and `..`
 * escapes, git internals in any spelling, credentials, and the scope helpers. Real folders and symlinks.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { classify_path, has_registry_token, is_env_file, normalise_scope_path, resolve_real, within } from "../../src/permissions/paths.js";

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
    for (const input of [
      ".env",
      ".env.local",
      ".env.production",
      "config/.env",
      "certs/server.key",
      "certs/tls.pem",
      "id_ed25519",
      "deploy/.ssh/id_rsa",
      "~/.ssh/id_rsa",
      "~/.aws/credentials",
      "~/.netrc",
      "~/.npmrc",
      "~/.docker/config.json",
    ]) {
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

  it("`..` after a symlink leaves the symlink's target (physical resolution, as the kernel and bash do)", () => {
    fs.mkdirSync(path.join(outside, "inner"));
    fs.symlinkSync(path.join(outside, "inner"), path.join(root, "link"));
    // Lexically link/../secret.txt is <root>/secret.txt; physically it is <outside>/secret.txt.
    expect(classify("link/../secret.txt")).toMatchObject({ real: path.join(outside, "secret.txt"), inside_project: false, category: "outside_project" });
    expect(classify("link/../secret.txt").absolute).toBe(path.join(root, "secret.txt"));
    expect(resolve_real(`${root}/link/../secret.txt`)).toBe(path.join(outside, "secret.txt"));
    expect(classify("~/x").real).toBe(path.join(home, "x"));
    expect(classify("src/./main.c").real).toBe(path.join(root, "src", "main.c"));
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

describe("hard links", () => {
  it("a project file hard-linked to a file outside is not project content, for reading or writing", () => {
    fs.linkSync(path.join(outside, "secret.txt"), path.join(root, "src", "notes.txt"));
    const c = classify("src/notes.txt");
    expect(c).toMatchObject({ hard_linked: true, inside_project: false, category: "outside_project", relative: "src/notes.txt", exists: true });
  });

  it("a hard link to a credential keeps the credential category when named like one, and is outside otherwise", () => {
    fs.mkdirSync(path.join(home, ".ssh"));
    fs.writeFileSync(path.join(home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n");
    fs.linkSync(path.join(home, ".ssh", "id_rsa"), path.join(root, "id_rsa"));
    fs.linkSync(path.join(home, ".ssh", "id_rsa"), path.join(root, "cache.bin"));
    expect(classify("id_rsa").category).toBe("credential_or_secret");
    expect(classify("cache.bin")).toMatchObject({ hard_linked: true, inside_project: false, category: "outside_project" });
  });

  it("a hard link inside git internals stays a git internal (writes stay refused) but is not project content", () => {
    fs.linkSync(path.join(outside, "secret.txt"), path.join(root, ".git", "packed"));
    expect(classify(".git/packed")).toMatchObject({ hard_linked: true, inside_project: false, category: "project_git_internal" });
  });

  it("folders (whose link count is their subfolders) and single-name files are not hard links", () => {
    fs.mkdirSync(path.join(root, "src", "sub"));
    expect(classify("src")).toMatchObject({ hard_linked: false, inside_project: true });
    expect(classify("src/main.c")).toMatchObject({ hard_linked: false, inside_project: true });
    expect(classify("src/new.c")).toMatchObject({ hard_linked: false, exists: false, inside_project: true });
  });
});

describe("/proc and /dev/fd", () => {
  it("paths through /proc are system paths whatever they resolve to here", () => {
    for (const input of [
      "/proc/self/root/etc/passwd",
      `/proc/self/root${root}/src/main.c`,
      "/proc/self/cwd/x",
      "/proc/1/root/tmp",
      "/proc/self/fd/0",
      "/dev/fd/0",
      "/dev/stdin",
      "/proc/thread-self/root/x",
    ]) {
      const c = classify(input);
      expect(c.category, input).toBe("system_sensitive");
      expect(c.process_link, input).toBe(true);
      expect(c.inside_project, input).toBe(false);
      expect(c.relative, input).toBeUndefined();
    }
  });

  it("a project symlink into /proc/self/root is caught, though it resolves back into the project", () => {
    fs.symlinkSync(`/proc/self/root${root}/src/main.c`, path.join(root, "main-alias.c"));
    fs.symlinkSync("/proc/self/root/etc/passwd", path.join(root, "passwd"));
    fs.symlinkSync("/proc/self/cwd", path.join(root, "here"));
    for (const input of ["main-alias.c", "passwd", "here/x.txt"]) {
      expect(classify(input), input).toMatchObject({ process_link: true, inside_project: false, category: "system_sensitive" });
    }
  });

  it("a chain of symlinks whose middle hop goes through /proc is caught", () => {
    fs.symlinkSync("/proc/self/root", path.join(outside, "root-alias"));
    fs.symlinkSync(path.join(outside, "root-alias"), path.join(root, "hop"));
    expect(classify(`hop${root}/src/main.c`)).toMatchObject({ process_link: true, category: "system_sensitive" });
  });
});

describe("the lstat/readlink walk", () => {
  it("a dangling symlink whose target is outside classifies a write as landing outside", () => {
    fs.symlinkSync(path.join(outside, "created-by-write.txt"), path.join(root, "src", "out.txt"));
    expect(classify("src/out.txt")).toMatchObject({
      exists: false,
      inside_project: false,
      category: "outside_project",
      real: path.join(outside, "created-by-write.txt"),
    });
  });

  it("a dangling symlink to a relative target that climbs out is followed from the link's folder", () => {
    fs.symlinkSync("../../elsewhere/new.txt", path.join(root, "src", "rel.txt"));
    expect(classify("src/rel.txt")).toMatchObject({ inside_project: false, real: path.join(outside, "new.txt") });
  });

  it("a symlink chain is followed hop by hop to its end", () => {
    fs.symlinkSync(path.join(outside, "secret.txt"), path.join(outside, "c"));
    fs.symlinkSync(path.join(outside, "c"), path.join(root, "b"));
    fs.symlinkSync("b", path.join(root, "a"));
    expect(classify("a")).toMatchObject({ inside_project: false, exists: true, real: path.join(outside, "secret.txt") });
  });

  it("a symlink that points at itself is a loop reported as an AirError", () => {
    fs.symlinkSync("self", path.join(root, "self"));
    expect(() => classify("self")).toThrow(/too many levels of symbolic links/);
    expect(() => resolve_real(path.join(root, "self", "x"))).toThrow(/symbolic links/);
  });

  it("trailing slashes and repeated separators change nothing", () => {
    fs.symlinkSync(outside, path.join(root, "out-link"));
    expect(classify("out-link/")).toMatchObject({ inside_project: false, real: outside });
    expect(classify("src//main.c/")).toMatchObject({ inside_project: true, relative: "src/main.c" });
    expect(classify(".git/").category).toBe("project_git_internal");
    expect(classify(`${root}/`)).toMatchObject({ inside_project: true, relative: "" });
  });

  it("a sibling whose name extends the root's (/tmp/proj-evil vs /tmp/proj) is outside, also through a symlink", () => {
    fs.mkdirSync(`${root}-evil`);
    fs.symlinkSync(`${root}-evil`, path.join(root, "evil"));
    expect(classify(`${root}-evil`)).toMatchObject({ inside_project: false, category: "outside_project" });
    expect(classify("evil/x")).toMatchObject({ inside_project: false, real: path.join(`${root}-evil`, "x") });
    expect(classify(`${root}evil`).inside_project).toBe(false);
  });

  it("`..` climbing above / stays at /", () => {
    expect(classify("../../../../../../../../../../etc/passwd")).toMatchObject({ real: "/etc/passwd", category: "system_sensitive" });
  });
});

describe(".git in every spelling", () => {
  it("case variants, trailing dots and spaces, ignorable code points, NTFS short names and streams", () => {
    const spellings = [
      ".GIT/config",
      ".Git/hooks/pre-commit",
      ".gIt/HEAD",
      ".git./config",
      ".git../config",
      ".git /config",
      ".g\u200cit/config",
      ".gi\u200dt/hooks/x",
      "\ufeff.git/config",
      ".git\u200e/config",
      "GIT~1/config",
      ".git::$INDEX_ALLOCATION/config",
      "sub/.GIT/config",
    ];
    for (const input of spellings) expect(classify(input).category, JSON.stringify(input)).toBe("project_git_internal");
  });

  it("a symlink named innocently that points at .git (or .GIT on a case-insensitive file system) is git internal", () => {
    fs.symlinkSync(path.join(root, ".git", "hooks"), path.join(root, "tools"));
    expect(classify("tools/pre-commit").category).toBe("project_git_internal");
  });

  it("names that merely contain git are source", () => {
    for (const input of [".gitignore", ".gitattributes", ".github/workflows/ci.yml", "git/notes.md", "src/.gitkeep"])
      expect(classify(input).category, input).toBe("project_source");
  });
});

describe("credential files", () => {
  it("env files except templates, keys, ssh/aws/gcloud folders, netrc", () => {
    const credentials = [
      ".env",
      ".env.local",
      ".ENV.Production",
      "app/.env.test",
      "tls/server.pem",
      "tls/server.key",
      "keys/deploy.p12",
      "keys/putty.ppk",
      "id_rsa",
      "id_ecdsa",
      "~/.ssh/id_ed25519",
      "~/.ssh/authorized_keys",
      "~/.aws/credentials",
      "~/.aws/config",
      "~/.config/gcloud/application_default_credentials.json",
      "~/.netrc",
      ".netrc",
      "~/.git-credentials",
      "~/.kube/config",
    ];
    for (const input of credentials) expect(classify(input).category, input).toBe("credential_or_secret");
    const templates = [".env.example", ".env.sample", ".env.template", ".env.dist", ".env.defaults", "~/.ssh/id_rsa.pub", "src/env.ts", "docs/.environment.md"];
    for (const input of templates) expect(classify(input).category, input).not.toBe("credential_or_secret");
  });

  it("a project .npmrc is source without a token and a credential with one; ~/.npmrc always is", () => {
    fs.writeFileSync(path.join(root, ".npmrc"), "engine-strict=true\nsave-exact=true\n");
    expect(classify(".npmrc").category).toBe("project_source");
    fs.writeFileSync(path.join(root, ".npmrc"), "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n");
    expect(classify(".npmrc").category, "an environment reference is no secret").toBe("project_source");
    for (const line of [
      "//registry.npmjs.org/:_authToken=npm_abc123",
      "_auth=dXNlcjpwYXNz",
      "//npm.example.com:8080/:_password = c2VjcmV0",
      "  _authToken = xyz",
    ]) {
      fs.writeFileSync(path.join(root, ".npmrc"), `registry=https://npm.example.com/\n${line}\n`);
      expect(classify(".npmrc").category, line).toBe("credential_or_secret");
    }
    fs.writeFileSync(path.join(root, ".yarnrc.yml"), 'npmRegistries:\n  "https://npm.example.com":\n    npmAuthToken: "abc"\n');
    expect(classify(".yarnrc.yml").category).toBe("credential_or_secret");
    expect(classify("~/.npmrc").category).toBe("credential_or_secret");
    expect(classify("packages/a/.npmrc").category, "a .npmrc that does not exist yet holds nothing").toBe("project_source");
  });

  it("has_registry_token reads only registry configuration files", () => {
    fs.writeFileSync(path.join(root, "notes.txt"), "_authToken=abc\n");
    expect(has_registry_token(path.join(root, "notes.txt"))).toBe(false);
    fs.writeFileSync(path.join(root, ".npmrc"), "_authToken=abc\n");
    expect(has_registry_token(path.join(root, ".npmrc"))).toBe(true);
  });
});

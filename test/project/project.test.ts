/**
 * The project's `.air` tree and identity (DESIGN.md §9, seeds 003 §8.1): init, idempotency, locating the
 * root from a nested folder, corrupt project.json, AIR_HOME.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { air_home, project_layout } from "../../src/project/layout.js";
import { init_project, locate_project_root, open_project, read_project } from "../../src/project/project-store.js";
import { expect_air_failure } from "../fixtures/failures.js";
import { TempDirs } from "../fixtures/processes.js";
import { set_air_home } from "../fixtures/session.js";

const dirs = new TempDirs();
let restore_air_home: () => void;
let home: string;

beforeEach(() => {
  home = path.join(dirs.make("air-home-"), "air-home");
  restore_air_home = set_air_home(home);
});
afterEach(() => restore_air_home());
afterAll(() => dirs.cleanup());

/** Every path under `dir`, relative, sorted; folders end with "/". */
function tree(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((entry) => {
      const relative = path.relative(dir, path.join(entry.parentPath, entry.name));
      return entry.isDirectory() ? `${relative}/` : relative;
    })
    .sort();
}

describe("init_project", () => {
  it("creates .air/shared/{project.json,rules,plan}, .air/local/{sessions,backups,workspaces,tmp,locks} and a .gitignore ignoring local/", () => {
    const root = dirs.make("air-project-");
    const { project, created } = init_project(root);
    expect(created).toBe(true);
    expect(tree(path.join(root, ".air"))).toEqual(
      [
        ".gitignore",
        "local/",
        "local/backups/",
        "local/locks/",
        "local/sessions/",
        "local/tmp/",
        "local/workspaces/",
        "shared/",
        "shared/plan/",
        "shared/project.json",
        "shared/rules/",
      ].sort(),
    );

    const gitignore = fs.readFileSync(path.join(root, ".air", ".gitignore"), "utf8");
    const patterns = gitignore
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#"));
    expect(patterns).toEqual(["/local/"]);

    const file = JSON.parse(fs.readFileSync(path.join(root, ".air", "shared", "project.json"), "utf8")) as Record<string, unknown>;
    expect(file).toEqual({
      project_id: project.file.project_id,
      name: path.basename(root),
      created_at: project.file.created_at,
      layout_version: 1,
    });
    expect(project.file.project_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(project.layout).toEqual(project_layout(path.resolve(root)));
    // No temp files of the atomic writes are left behind.
    expect(tree(path.join(root, ".air")).filter((entry) => entry.endsWith(".tmp"))).toEqual([]);
  });

  it("uses the given name", () => {
    const root = dirs.make("air-project-");
    expect(init_project(root, { name: "my game" }).project.file.name).toBe("my game");
  });

  it("is idempotent: a second init returns the same project id and rewrites nothing", () => {
    const root = dirs.make("air-project-");
    const first = init_project(root);
    const project_json = path.join(root, ".air", "shared", "project.json");
    const bytes = fs.readFileSync(project_json);
    const gitignore = path.join(root, ".air", ".gitignore");
    fs.writeFileSync(gitignore, "/local/\n# edited by the user\n");

    const second = init_project(root, { name: "another name" });
    expect(second.created).toBe(false);
    expect(second.project.file).toEqual(first.project.file);
    expect(fs.readFileSync(project_json).equals(bytes)).toBe(true);
    expect(fs.readFileSync(gitignore, "utf8")).toBe("/local/\n# edited by the user\n");
    expect(read_project(root).file.project_id).toBe(first.project.file.project_id);
  });

  it("re-creates missing local folders of an existing project without changing its identity", () => {
    const root = dirs.make("air-project-");
    const { project } = init_project(root);
    fs.rmSync(path.join(root, ".air", "local"), { recursive: true });
    const again = init_project(root);
    expect(again.project.file.project_id).toBe(project.file.project_id);
    for (const folder of ["sessions", "backups", "workspaces", "tmp", "locks"]) {
      expect(fs.statSync(path.join(root, ".air", "local", folder)).isDirectory()).toBe(true);
    }
  });

  it("respects AIR_HOME: the runtime home (logs/) is created there", () => {
    const root = dirs.make("air-project-");
    expect(air_home()).toBe(path.resolve(home));
    init_project(root);
    expect(fs.statSync(path.join(home, "logs")).isDirectory()).toBe(true);
  });

  it("defaults the runtime home to ~/.air when AIR_HOME is unset or empty", () => {
    expect(air_home({})).toBe(path.join(os.homedir(), ".air"));
    expect(air_home({ AIR_HOME: "" })).toBe(path.join(os.homedir(), ".air"));
    expect(air_home({ AIR_HOME: "relative/home" })).toBe(path.resolve("relative/home"));
  });
});

describe("init_project and read_project on a corrupt project.json", () => {
  const CORRUPT: [string, string][] = [
    ["not JSON", "{ this is not json"],
    ["JSON failing the schema (no project_id)", JSON.stringify({ name: "x", created_at: "2026-01-01T00:00:00.000Z", layout_version: 1 })],
    [
      "JSON failing the schema (unknown layout_version)",
      JSON.stringify({ project_id: "0b5f3c1e-7a0e-4c8a-9b1d-2f6e8a4c3d21", name: "x", created_at: "2026-01-01T00:00:00.000Z", layout_version: 7 }),
    ],
    ["JSON that is not an object", "[1, 2, 3]"],
  ];

  for (const [what, content] of CORRUPT) {
    it(`reports ${what} as a project_error with a user action, and init neither overwrites it nor creates folders`, () => {
      const root = dirs.make("air-corrupt-");
      const shared = path.join(root, ".air", "shared");
      fs.mkdirSync(shared, { recursive: true });
      const project_json = path.join(shared, "project.json");
      fs.writeFileSync(project_json, content);

      for (const attempt of [() => init_project(root), () => read_project(root), () => open_project(path.join(root))]) {
        const failure = expect_air_failure(attempt);
        expect(failure.error).toMatchObject({ kind: "project_error", retryability: "not_retryable" });
        expect(failure.message).toContain(project_json);
        expect(failure.error.user_action).toMatch(/project\.json/);
      }
      expect(fs.readFileSync(project_json, "utf8")).toBe(content);
      expect(tree(path.join(root, ".air"))).toEqual(["shared/", "shared/project.json"]);
      expect(fs.existsSync(home)).toBe(false);
    });
  }
});

describe("locate_project_root and open_project", () => {
  it("walk up from a nested folder to the project root", () => {
    const root = dirs.make("air-locate-");
    const { project } = init_project(root);
    const nested = path.join(root, "src", "engine", "render");
    fs.mkdirSync(nested, { recursive: true });
    expect(locate_project_root(nested)).toBe(path.resolve(root));
    expect(open_project(nested).file.project_id).toBe(project.file.project_id);
    expect(open_project(root).layout.root).toBe(path.resolve(root));
  });

  it("stop at the nearest project when projects are nested", () => {
    const outer = dirs.make("air-locate-");
    init_project(outer);
    const inner = path.join(outer, "vendor", "lib");
    fs.mkdirSync(inner, { recursive: true });
    const { project } = init_project(inner);
    const deep = path.join(inner, "a", "b");
    fs.mkdirSync(deep, { recursive: true });
    expect(locate_project_root(deep)).toBe(path.resolve(inner));
    expect(open_project(deep).file.project_id).toBe(project.file.project_id);
    expect(locate_project_root(path.join(outer, "vendor"))).toBe(path.resolve(outer));
  });

  it("explain a folder outside any project as a user_error naming `air init`", () => {
    const lonely = dirs.make("air-no-project-");
    expect(locate_project_root(lonely)).toBeUndefined();
    const failure = expect_air_failure(() => open_project(lonely));
    expect(failure.error).toMatchObject({ kind: "user_error" });
    expect(failure.message).toContain(path.resolve(lonely));
    expect(failure.error.user_action).toMatch(/air init/);
  });

  it("do not treat a .air folder without project.json as a project", () => {
    const root = dirs.make("air-locate-");
    fs.mkdirSync(path.join(root, ".air", "shared"), { recursive: true });
    expect(locate_project_root(root)).toBeUndefined();
  });
});

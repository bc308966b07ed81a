/**
 * `air restore` and `air history --restore-points` through the built CLI, on real projects: the C++ fixture
 * kept after `air e2e`, and a git project changed by a scripted model run (fs.edit, `sed -i`, a generated
 * file, a deleted file). Real git, real files, the scripted model server on loopback.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { start_scripted_server } from "../../src/providers/scripted/server.js";
import { REPO_ROOT } from "../fixtures/cli.js";
import { commit_files, git, init_repo } from "../fixtures/git-repo.js";
import { air, air_env, events_of, open_readonly, require_build, session_files, session_ids, SHIPPED_FIXTURES, temp_dir } from "./helpers.js";

const missing_tools = ["cmake", "ctest", "c++"].filter((tool) => spawnSync("bash", ["-c", `command -v ${tool}`]).status !== 0);
if (missing_tools.length > 0) console.warn(`[e2e] skipping the C++ restore: ${missing_tools.join(", ")} not found on PATH`);

const SCRIPT = path.join(REPO_ROOT, "test", "fixtures", "restore", "script.yaml");

const ORIGINAL = {
  "notes.txt": "release 1.2\nstatus: draft\n",
  "config.ini": "[app]\ndebug=false\nname=demo\n",
  "obsolete.txt": "remove me after the release\n",
  "README.md": "# demo\n",
};

function read(project: string, relative: string): string | undefined {
  const file = path.join(project, relative);
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
}

/** The events of the session a restore opened (the newest one). */
function restore_events(project: string) {
  const newest = session_ids(project).sort().at(-1)!;
  const connection = open_readonly(session_files(project, newest).db);
  try {
    return events_of(connection);
  } finally {
    connection.close();
  }
}

describe.skipIf(missing_tools.length > 0)("air restore file on the C++ fixture kept by air e2e", () => {
  let home: ReturnType<typeof temp_dir>;
  let kept_work: string | undefined;
  let project: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    require_build();
    home = temp_dir("air-e2e-restore-home-");
    env = air_env(path.join(home.dir, "air-home"));
    const run = await air(["e2e", "cpp-fix-fixture", "--keep"], { cwd: home.dir, env });
    const kept = /^fixture cpp-fix: (.+)$/m.exec(run.stdout)?.[1];
    if (kept !== undefined) kept_work = path.dirname(kept);
    expect(run.result, run.transcript).toEqual({ code: 0, signal: null });
    project = kept!;
  });

  afterAll(() => {
    if (kept_work !== undefined && path.basename(kept_work).startsWith("air-e2e-cpp-fix-")) fs.rmSync(kept_work, { recursive: true, force: true });
    home?.cleanup();
  });

  it("shows the diff and refuses without --yes when there is no terminal, writing nothing", async () => {
    const fixed = read(project, "src/calc.cpp");
    const run = await air(["restore", "file", "src/calc.cpp"], { cwd: project, env });
    expect(run.result.code, run.transcript).toBe(1);
    expect(run.stdout).toContain("--- a/src/calc.cpp");
    expect(run.stdout).toContain("-  for (long i = 1; i <= n; ++i) {");
    expect(run.stdout).toContain("+  for (long i = 1; i < n; ++i) {");
    expect(run.stderr).toContain("--yes");
    expect(read(project, "src/calc.cpp")).toBe(fixed);
  });

  it("brings back the original bytes of src/calc.cpp with --yes, records restore.applied and a restore commit", async () => {
    const original = fs.readFileSync(path.join(SHIPPED_FIXTURES, "cpp-fix", "project", "src", "calc.cpp"));
    expect(fs.readFileSync(path.join(project, "src", "calc.cpp")).equals(original)).toBe(false);
    const run = await air(["restore", "file", "src/calc.cpp", "--yes"], { cwd: project, env });
    expect(run.result.code, run.transcript).toBe(0);
    expect(fs.readFileSync(path.join(project, "src", "calc.cpp")).equals(original)).toBe(true);
    expect(run.stdout).toMatch(/To undo this restore: air restore session ses_\w+/);

    const events = restore_events(project);
    const applied = events.find((event) => event.type === "restore.applied");
    expect(applied?.payload).toMatchObject({ target: { kind: "snapshot" }, files: [{ path: "src/calc.cpp", action: "written" }], files_total: 1 });
    expect(events.filter((event) => event.type === "snapshot.taken").map((event) => event.payload.cause)).toEqual(["restore", "restore"]);
    expect(events.find((event) => event.type === "permission.decision.recorded")?.payload).toMatchObject({ tool_name: "air.restore" });
    const subjects = git(path.join(project, ".air", "local", "backups"), "log", "--all", "--format=%s");
    const target = applied?.payload.target as { snapshot_id: string } | undefined;
    expect(subjects).toContain(`after restore to snapshot ${target?.snapshot_id}`);
  });
});

/** A git project with committed files, changed by the scripted run; `before_run` is a time just before it. */
async function project_after_a_run(
  work: string,
  env_home: string,
  user_changes: (project: string) => void = () => undefined,
): Promise<{ project: string; env: NodeJS.ProcessEnv; before_run: string }> {
  const project = path.join(work, "project");
  init_repo(project);
  commit_files(project, "the project before air", ORIGINAL);
  user_changes(project);
  const server = await start_scripted_server({ script: SCRIPT, api_key: "sk-e2e-restore" });
  try {
    const env = air_env(env_home, { ANTHROPIC_API_KEY: "sk-e2e-restore", ANTHROPIC_BASE_URL: server.url });
    const before_run = new Date().toISOString();
    const run = await air(["run", "-p", "Prepare the release notes", "--permission-mode", "bypass"], { cwd: project, env });
    expect(run.result, run.transcript).toEqual({ code: 0, signal: null });
    return { project, env: air_env(env_home), before_run };
  } finally {
    await server.close();
  }
}

describe("air restore time to before a scripted run", () => {
  let work: ReturnType<typeof temp_dir>;
  let project: string;
  let env: NodeJS.ProcessEnv;
  let before_run: string;
  let after_run: Record<string, string | undefined>;

  beforeAll(async () => {
    require_build();
    work = temp_dir("air-e2e-restore-time-");
    ({ project, env, before_run } = await project_after_a_run(work.dir, path.join(work.dir, "air-home")));
    after_run = Object.fromEntries(["notes.txt", "config.ini", "generated.txt", "obsolete.txt"].map((name) => [name, read(project, name)]));
  });

  afterAll(() => work?.cleanup());

  it("ran the changes a restore must undo: an edit, a sed -i, a generated file, a deleted file", () => {
    expect(after_run).toEqual({
      "notes.txt": "release 1.2\nstatus: final\n",
      "config.ini": "[app]\ndebug=true\nname=demo\n",
      "generated.txt": "generated by the release script\n",
      "obsolete.txt": undefined,
    });
  });

  it("lists the run's changes as restore points, newest first, each with the command that goes back", async () => {
    const run = await air(["history", "--restore-points", "--json"], { cwd: project, env });
    expect(run.result.code, run.transcript).toBe(0);
    const points = (JSON.parse(run.stdout) as { restore_points: { at: string; what: string; files_changed: number; paths: string[]; go_back: string }[] })
      .restore_points;
    expect(points.map((point) => [point.what, point.paths])).toEqual([
      ["command `rm obsolete.txt`", ["obsolete.txt"]],
      ["command `printf 'generated by the release script\\n' > generated.txt`", ["generated.txt"]],
      ["command `sed -i 's/debug=false/debug=true/' config.ini`", ["config.ini"]],
      ["fs.edit", ["notes.txt"]],
    ]);
    for (const point of points) expect(point.go_back).toBe(`air restore time ${point.at}`);
    const text = await air(["history", "--restore-points"], { cwd: project, env });
    expect(text.stdout).toContain(`air restore time ${points[0]!.at}`);
    expect(text.stdout).toContain("Prepare the release notes");
  });

  it("restores every file the run changed, the shell command's writes and deletion included, and the restore can be undone", async () => {
    const before_restore = new Date().toISOString();
    const restore = await air(["restore", "time", before_run, "--yes"], { cwd: project, env });
    expect(restore.result.code, restore.transcript).toBe(0);
    expect(restore.stdout).toContain("+++ /dev/null");
    expect(restore.stdout).toContain("--- /dev/null");
    for (const [name, content] of Object.entries(ORIGINAL)) expect(read(project, name), name).toBe(content);
    expect(read(project, "generated.txt")).toBeUndefined();
    const applied = restore_events(project).find((event) => event.type === "restore.applied");
    expect(applied?.payload).toMatchObject({ target: { kind: "time", at: before_run }, files_total: 4 });

    const undo = await air(["restore", "time", before_restore, "--yes"], { cwd: project, env });
    expect(undo.result.code, undo.transcript).toBe(0);
    for (const [name, content] of Object.entries(after_run)) expect(read(project, name), name).toBe(content);

    const history = await air(["history", "--restore-points", "--json"], { cwd: project, env });
    const points = (JSON.parse(history.stdout) as { restore_points: { what: string; cause: string; files_changed: number }[] }).restore_points;
    expect(points.slice(0, 2)).toMatchObject([
      { cause: "restore", what: `restore to time ${before_restore}`, files_changed: 4 },
      { cause: "restore", what: `restore to time ${before_run}`, files_changed: 4 },
    ]);
  });
});

describe("air restore in a project with uncommitted user changes", () => {
  let work: ReturnType<typeof temp_dir>;

  beforeAll(() => require_build());
  afterAll(() => work?.cleanup());

  it("leaves the user's changes outside the restored files untouched", async () => {
    work = temp_dir("air-e2e-restore-user-");
    // One change the user made before the run (so the run's snapshots hold it), one made after it.
    const { project, env, before_run } = await project_after_a_run(work.dir, path.join(work.dir, "air-home"), (root) =>
      fs.writeFileSync(path.join(root, "README.md"), "# demo\n\nthe user's own edit, not committed\n"),
    );
    fs.writeFileSync(path.join(project, "scratch.txt"), "the user's untracked notes\n");
    const status_before = git(project, "status", "--porcelain", "--", "README.md", "scratch.txt");
    expect(status_before).toBe(" M README.md\n?? scratch.txt\n");

    const restore = await air(["restore", "time", before_run, "--yes"], { cwd: project, env });
    expect(restore.result.code, restore.transcript).toBe(0);
    expect(restore.stdout).not.toContain("README.md");
    expect(read(project, "README.md")).toBe("# demo\n\nthe user's own edit, not committed\n");
    expect(read(project, "scratch.txt")).toBe("the user's untracked notes\n");
    expect(git(project, "status", "--porcelain", "--", "README.md", "scratch.txt")).toBe(status_before);
    expect(read(project, "notes.txt")).toBe(ORIGINAL["notes.txt"]);
  });
});

describe("air restore under the project's permissions", () => {
  let work: ReturnType<typeof temp_dir>;

  beforeAll(() => require_build());
  afterAll(() => work?.cleanup());

  it("writes nothing when a deny rule covers one of the files it would restore", async () => {
    work = temp_dir("air-e2e-restore-deny-");
    const { project, env, before_run } = await project_after_a_run(work.dir, path.join(work.dir, "air-home"));
    fs.writeFileSync(path.join(project, ".air", "shared", "permissions.yaml"), 'version: 1\ndeny:\n  - path: "config.ini"\n    op: write\n');
    const after_run = Object.fromEntries(["notes.txt", "config.ini", "generated.txt", "obsolete.txt"].map((name) => [name, read(project, name)]));

    const restore = await air(["restore", "time", before_run, "--yes"], { cwd: project, env });
    expect(restore.result.code, restore.transcript).toBe(1);
    expect(restore.stderr).toContain("refused by the permissions");
    for (const [name, content] of Object.entries(after_run)) expect(read(project, name), name).toBe(content);
    const decision = restore_events(project).find((event) => event.type === "permission.decision.recorded");
    expect(decision?.payload).toMatchObject({ tool_name: "air.restore", action: "deny" });
    expect(restore_events(project).some((event) => event.type === "restore.applied")).toBe(false);
  });
});

describe("air restore file --before a command run", () => {
  let work: ReturnType<typeof temp_dir>;

  beforeAll(() => require_build());
  afterAll(() => work?.cleanup());

  it("puts back only that file, as it was before the command, leaving the run's other changes", async () => {
    work = temp_dir("air-e2e-restore-before-");
    const { project, env } = await project_after_a_run(work.dir, path.join(work.dir, "air-home"));
    const history = await air(["history", "--restore-points", "--json"], { cwd: project, env });
    const points = (JSON.parse(history.stdout) as { restore_points: { what: string; run_id?: string }[] }).restore_points;
    const sed = points.find((point) => point.what.includes("sed -i"));
    expect(sed?.run_id).toMatch(/^cmr_/);

    const restore = await air(["restore", "file", "config.ini", "--before", sed!.run_id!, "--yes"], { cwd: project, env });
    expect(restore.result.code, restore.transcript).toBe(0);
    expect(read(project, "config.ini")).toBe(ORIGINAL["config.ini"]);
    expect(read(project, "notes.txt")).toBe("release 1.2\nstatus: final\n");
    expect(read(project, "generated.txt")).toBe("generated by the release script\n");
    expect(read(project, "obsolete.txt")).toBeUndefined();

    const bad = await air(["restore", "file", "config.ini", "--before", "not-a-run"], { cwd: project, env });
    expect(bad.result.code).toBe(1);
    expect(bad.stderr).toContain("is not a run id");
  });
});

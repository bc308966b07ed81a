/**
 * Workspace confinement (issue 12 "Isolation"): a task dispatched into a git worktree under
 * `.air/local/workspaces/` writes only that worktree. Attacks first, against a real repository with two real
 * sibling worktrees: every route into the main checkout or the sibling — fs tools with absolute and climbing
 * paths, symlinks (there before, or made by the command itself), `cd`, redirections, `tee`, `cp`/`mv`
 * targets, `sed -i`, `git -C`, `--git-dir`/`--work-tree`, `GIT_DIR`/`GIT_WORK_TREE` — is refused in every
 * mode, bypass included, with a reason naming the workspace; and a shell command that gets past the analyzer
 * meets the bwrap sandbox, which leaves the main checkout and the sibling byte-identical.
 */
import crypto from "node:crypto";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PermissionMode } from "../../src/contracts/events/permission.js";
import { new_id } from "../../src/contracts/ids.js";
import { PermissionEngine, type PermissionRequest } from "../../src/permissions/engine.js";
import type { WorkspaceConfinement } from "../../src/permissions/confinement.js";
import { shell_env } from "../../src/tools/shell/env.js";
import { bwrap_args, plan_sandbox } from "../../src/tools/shell/sandbox-plan.js";
import { bwrap_probe } from "../../src/tools/shell/sandbox.js";
import { commit_files, git, init_repo } from "../fixtures/git-repo.js";
import { error_of, files_under, output_of, tool_harness, type ToolHarness } from "../tools/helpers.js";

const probe = bwrap_probe();
const skip_reason = probe.ok ? "" : ` (skipped: bwrap does not work here: ${probe.error})`;

const MODES: readonly PermissionMode[] = ["default", "accept-edits", "bypass"];

let h: ToolHarness;
/** The main checkout (real path). */
let main: string;
/** The confined task's workspace, and its sibling. */
let ws: string;
let sibling: string;
let workspace: WorkspaceConfinement;
let before: Record<string, string>;
let saved_setting: string | undefined;

/** sha256 of every file under `folder`, `skip` (relative folders) left out. */
function hashes(folder: string, skip: readonly string[] = []): Record<string, string> {
  const kept = files_under(folder).filter((file) => !skip.some((prefix) => file === prefix || file.startsWith(`${prefix}/`)));
  return Object.fromEntries(
    kept.map((file) => [
      file,
      crypto
        .createHash("sha256")
        .update(fs.readFileSync(path.join(folder, file)))
        .digest("hex"),
    ]),
  );
}

/** What must never change: the main checkout with its .git (air's own session data aside) and the sibling worktree. */
function protected_state(): Record<string, string> {
  const outside = Object.entries(hashes(path.dirname(main), ["project", "air-home"])).map(([file, hash]) => [`outside:${file}`, hash]);
  const of_main = Object.entries(hashes(main, [".air"])).map(([file, hash]) => [`main:${file}`, hash]);
  const of_sibling = Object.entries(hashes(sibling)).map(([file, hash]) => [`sibling:${file}`, hash]);
  const worktree_admin = Object.entries(hashes(path.join(main, ".git", "worktrees"))).map(([file, hash]) => [`admin:${file}`, hash]);
  return Object.fromEntries([...outside, ...of_main, ...of_sibling, ...worktree_admin]);
}

function expect_untouched(): void {
  expect(protected_state()).toEqual(before);
  expect(fs.readFileSync(path.join(main, "src/a.txt"), "utf8")).toBe("alpha\n");
  expect(fs.readFileSync(path.join(sibling, "src/a.txt"), "utf8")).toBe("alpha\n");
}

// One repository for the whole file: every attack is refused or fails, so none changes what the next one meets.
beforeAll(() => {
  saved_setting = process.env.AIR_SANDBOX;
  delete process.env.AIR_SANDBOX;
  h = tool_harness({ policy: { mode: "bypass", rules: [] } });
  main = fs.realpathSync(h.root);
  init_repo(main);
  commit_files(main, "base", { "src/a.txt": "alpha\n", "README.md": "main checkout\n" });
  const workspaces = path.join(main, ".air", "local", "workspaces");
  const ws_id = new_id("workspace");
  const sibling_id = new_id("workspace");
  git(main, "worktree", "add", "--quiet", "-b", "air/task-a", path.join(workspaces, ws_id));
  git(main, "worktree", "add", "--quiet", "-b", "air/task-b", path.join(workspaces, sibling_id));
  ws = path.join(workspaces, ws_id);
  sibling = path.join(workspaces, sibling_id);
  // Pre-existing escapes inside the workspace: a symlink to the main checkout and one to the sibling.
  fs.symlinkSync(main, path.join(ws, "to_main"));
  fs.symlinkSync(sibling, path.join(ws, "to_sibling"));
  fs.symlinkSync(path.join(main, "src", "a.txt"), path.join(ws, "main_file_link.txt"));
  fs.writeFileSync(path.join(h.outside, "outside.txt"), "outside\n");
  workspace = { workspace_id: ws_id, root: ws, project_root: main };
  before = protected_state();
});
afterAll(() => {
  h.cleanup();
  if (saved_setting === undefined) delete process.env.AIR_SANDBOX;
  else process.env.AIR_SANDBOX = saved_setting;
});

/** A request as the ToolRegistry builds it for a call of a task confined to `workspace`. */
function request_of(fields: Partial<PermissionRequest>): PermissionRequest {
  const executes = fields.command !== undefined;
  return {
    tool_name: executes ? "shell.run" : "fs.write",
    category: executes ? "shell" : "filesystem",
    declared: { reads: true, writes: !executes, executes, network: false },
    reads: [],
    writes: [],
    project_root: ws,
    workspace,
    ...fields,
  };
}

function engine(mode: PermissionMode): PermissionEngine {
  return new PermissionEngine({ policy: { mode, rules: [] } });
}

/** Paths a write may be aimed at, each outside the workspace; the workspace is the cwd. */
const WRITE_TARGETS: readonly [string, () => string][] = [
  ["an absolute path into the main checkout", () => path.join(main, "src", "a.txt")],
  ["a new file in the main checkout", () => path.join(main, "planted.txt")],
  ["a relative climb into the main checkout", () => "../../../../src/a.txt"],
  ["a climb from a subfolder of the workspace", () => "src/../../../../../README.md"],
  ["an absolute path into the sibling worktree", () => path.join(sibling, "src", "a.txt")],
  ["a relative path into the sibling worktree", () => `../${path.basename(sibling)}/src/a.txt`],
  ["a pre-existing symlink to the main checkout", () => "to_main/src/a.txt"],
  ["a pre-existing symlink to the sibling", () => "to_sibling/src/a.txt"],
  ["a pre-existing symlink to a file of the main checkout", () => "main_file_link.txt"],
  ["the main checkout's git folder", () => path.join(main, ".git", "config")],
  ["the workspace's own git administration in the main .git", () => path.join(main, ".git", "worktrees", path.basename(ws), "HEAD")],
  ["the sibling's .git file", () => path.join(sibling, ".git")],
  ["a file outside the project altogether", () => path.join(path.dirname(main), "outside.txt")],
];

describe("the engine, for a task confined to a workspace", () => {
  for (const mode of MODES) {
    it.each(WRITE_TARGETS)(`${mode} mode refuses an fs write to %s`, async (_what, target) => {
      const decision = await engine(mode).classify(request_of({ writes: [target()] }));
      expect(decision.action, decision.reason).toBe("refuse");
      expect(decision.layer).toBe("task_scope");
      expect(decision.reason).toContain(workspace.workspace_id);
      expect(decision.backup_paths).toEqual([]);
    });
  }

  it("judges paths from the workspace root: its files are project source, not air's internal data", async () => {
    const decision = await engine("bypass").classify(request_of({ writes: ["src/a.txt", "new/b.txt"] }));
    expect(decision.action, decision.reason).toBe("allow");
    expect(decision.paths.map((c) => [c.relative, c.category])).toEqual([
      ["src/a.txt", "project_source"],
      ["new/b.txt", "project_source"],
    ]);
  });

  it("still refuses the workspace's own .git file and .air folder", async () => {
    for (const target of [".git", ".air/shared/x.yaml"]) {
      expect((await engine("bypass").classify(request_of({ writes: [target] }))).action).toBe("refuse");
    }
  });

  it("refuses a workspace that holds the main checkout", async () => {
    const wide: WorkspaceConfinement = { ...workspace, root: path.dirname(main) };
    const decision = await engine("bypass").classify(request_of({ writes: ["project/src/a.txt"], project_root: wide.root, workspace: wide }));
    expect(decision.action).toBe("refuse");
    expect(decision.reason).toMatch(/holds the main checkout/);
  });

  it("refuses every call when the workspace's main checkout cannot be found", async () => {
    const lost: WorkspaceConfinement = { ...workspace, project_root: path.join(main, "missing") };
    const decision = await engine("bypass").classify(request_of({ writes: ["src/a.txt"], workspace: lost }));
    expect(decision.action).toBe("refuse");
    expect(decision.reason).toMatch(/cannot be resolved/);
  });

  it("reads outside the workspace are judged as reads outside the project: asked in default mode, allowed in bypass", async () => {
    const read = request_of({ reads: [path.join(main, "README.md")], declared: { reads: true, writes: false, executes: false, network: false } });
    expect((await engine("default").classify(read)).action).toBe("ask_user");
    expect((await engine("bypass").classify(read)).action).toBe("allow");
  });
});

/** Shell attacks: each writes into the main checkout or the sibling (or lets git do it), from the workspace. */
const COMMAND_ATTACKS: readonly [string, () => string][] = [
  ["a redirection to an absolute path", () => `echo pwned > ${main}/src/a.txt`],
  ["an appending redirection into the sibling", () => `echo pwned >> ../${path.basename(sibling)}/src/a.txt`],
  ["cd .. then a write", () => `cd .. && echo pwned > ${path.basename(sibling)}/src/a.txt`],
  ["cd to the main checkout then a write", () => `cd ${main} && echo pwned > src/a.txt`],
  ["cd to the main checkout then a build", () => `cd ${main} && make`],
  ["cd through a pre-existing symlink then a write", () => "cd to_main && echo pwned > src/a.txt"],
  ["a redirection through a pre-existing symlink", () => "echo pwned > to_sibling/src/a.txt"],
  ["tee", () => `echo pwned | tee ${main}/src/a.txt`],
  ["cp onto a main file", () => `cp src/a.txt ${main}/README.md`],
  ["mv into the sibling", () => `mv src/a.txt ../${path.basename(sibling)}/src/moved.txt`],
  ["sed -i on a main file", () => `sed -i s/alpha/pwned/ ${main}/src/a.txt`],
  ["a nested bash -c", () => `bash -c 'echo pwned > ${main}/src/a.txt'`],
  ["git commit in the workspace", () => "git commit -q -am worker"],
  ["git add in the workspace", () => "git add -A"],
  ["git -C the main checkout, committing", () => `git -C ${main} commit -q --allow-empty -m pwned`],
  ["git -C the main checkout, only looking", () => `git -C ${main} status`],
  ["git -C a relative climb", () => "git -C ../../../.. status"],
  ["git --git-dir of the main repository", () => `git --git-dir=${main}/.git log -1`],
  ["git --work-tree of the main checkout", () => `git --work-tree=${main} status`],
  ["GIT_DIR before git", () => `GIT_DIR=${main}/.git git status`],
  ["GIT_WORK_TREE before git", () => `GIT_WORK_TREE=${main} git diff`],
  ["GIT_DIR through env", () => `env GIT_DIR=${main}/.git git log -1`],
  ["an exported GIT_DIR", () => `export GIT_DIR=${main}/.git; git status`],
  ["GIT_DIR exported after a plain assignment", () => `GIT_WORK_TREE=${main}; export GIT_WORK_TREE; git status`],
  ["a write outside the project altogether", () => `echo pwned > ${path.dirname(main)}/outside.txt`],
];

describe("the engine, for a shell command of a confined task", () => {
  for (const mode of MODES) {
    it.each(COMMAND_ATTACKS)(`${mode} mode refuses %s`, async (_what, command) => {
      const decision = await engine(mode).classify(request_of({ command: { command: command(), cwd: "." } }));
      expect(decision.action, decision.reason).toBe("refuse");
      expect(decision.reason).toContain(workspace.workspace_id);
    });
  }

  it("refuses a command whose working folder is outside the workspace", async () => {
    for (const cwd of [main, "..", "to_main", sibling]) {
      const decision = await engine("bypass").classify(request_of({ command: { command: "ls", cwd } }));
      expect(decision.action, cwd).toBe("refuse");
    }
  });

  it.each(["git status", "git diff", "git log -1", "echo ok > src/b.txt", "cd src && echo ok > b.txt", "make", `cat ${main}/README.md`])(
    "bypass mode still runs %s in the workspace",
    async (command) => {
      const decision = await engine("bypass").classify(request_of({ command: { command, cwd: "." } }));
      expect(decision.action, decision.reason).not.toBe("refuse");
      expect(["allow", "announce_then_run"]).toContain(decision.action);
    },
  );
});

/** A call through the real registry as the Scheduler makes it: the caller carries the workspace. */
function call(tool_name: string, input: Record<string, unknown>) {
  return h.registry.call({ tool_name, input }, { session: h.temp.session, workspace });
}

function expect_refused(outcome: Awaited<ReturnType<typeof call>>): void {
  const error = error_of(outcome);
  expect(error.kind, error.message).toBe("policy_error");
  expect(error.message).toContain(workspace.workspace_id);
  expect(outcome.tool_run_id).toBeUndefined();
}

describe("real tool calls of a confined task (bypass mode)", () => {
  it.each(WRITE_TARGETS)("fs.write to %s is refused and changes nothing", async (_what, target) => {
    expect_refused(await call("fs.write", { path: target(), content: "pwned\n" }));
    expect_untouched();
  });

  it("fs.edit of a main file it may read is refused", async () => {
    const file = path.join(main, "src", "a.txt");
    output_of(await call("fs.read", { path: file }));
    expect_refused(await call("fs.edit", { path: file, old_string: "alpha", new_string: "pwned" }));
    expect_refused(await call("fs.edit", { path: "to_main/src/a.txt", old_string: "alpha", new_string: "pwned" }));
    expect_untouched();
  });

  it("fs.patch into the sibling and into the main checkout is refused", async () => {
    const sibling_name = path.basename(sibling);
    const creates = (target: string) => [`--- /dev/null`, `+++ b/${target}`, "@@ -0,0 +1 @@", "+pwned", ""].join("\n");
    expect_refused(await call("fs.patch", { patch: creates(`../${sibling_name}/planted.txt`) }));
    expect_refused(await call("fs.patch", { patch: creates("to_main/planted.txt") }));
    expect_untouched();
  });

  it("fs.write inside the workspace lands in the workspace, not in the main checkout", async () => {
    output_of(await call("fs.write", { path: "src/new.txt", content: "worker\n" }));
    expect(fs.readFileSync(path.join(ws, "src", "new.txt"), "utf8")).toBe("worker\n");
    expect(fs.existsSync(path.join(main, "src", "new.txt"))).toBe(false);
    expect_untouched();
  });

  it.each(COMMAND_ATTACKS)("shell.run with %s is refused and changes nothing", async (_what, command) => {
    expect_refused(await call("shell.run", { command: command() }));
    expect_untouched();
  });

  it("git.commit is refused: air commits the workspace for its task", async () => {
    fs.writeFileSync(path.join(ws, "src", "a.txt"), "changed by the worker\n");
    expect_refused(await call("git.commit", { message: "worker", all: true }));
    expect(git(ws, "rev-list", "--count", "HEAD").trim()).toBe("1");
    expect_untouched();
  });

  it("git.status and git.diff look at the workspace", async () => {
    fs.writeFileSync(path.join(ws, "src", "a.txt"), "changed by the worker\n");
    const diff = output_of<{ files: { path: string }[] }>(await call("git.diff", {}));
    expect(diff.files.map((file) => file.path)).toEqual(["src/a.txt"]);
    output_of(await call("git.status", {}));
    expect_untouched();
  });
});

/** bash inside bwrap with the plan shell.run builds for the confined task, and nothing in front of it. */
function in_sandbox(command: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const plan = plan_sandbox({ project_root: ws, workspace, cwd: ws, network: false });
  const file = probe.ok ? probe.path : "bwrap";
  const child = spawn(file, [...bwrap_args(plan), "--", "bash", "--noprofile", "--norc", "-c", command], {
    cwd: ws,
    env: { ...shell_env(process.env), TMPDIR: "/tmp" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

/** Writes the sandbox alone must stop: the analyzer is not in front of it here. */
const SANDBOX_ESCAPES: readonly [string, () => string][] = [
  ["a main file", () => `echo pwned > ${main}/src/a.txt`],
  ["a new main file", () => `echo pwned > ${main}/planted.txt`],
  ["a sibling file", () => `echo pwned > ${sibling}/src/a.txt`],
  ["the main .git", () => `echo pwned > ${main}/.git/HEAD`],
  ["the workspace's index in the main .git", () => `echo pwned > ${main}/.git/worktrees/${path.basename(ws)}/index`],
  ["the workspace's own .git file", () => "echo gitdir: /tmp > .git"],
  ["a pre-existing symlink", () => "echo pwned > to_main/src/a.txt"],
  ["a symlink the command makes", () => `ln -s ${main} fresh && echo pwned > fresh/src/a.txt`],
  ["git commit through GIT_DIR", () => `GIT_DIR=${main}/.git GIT_WORK_TREE=${main} git commit -q --allow-empty -m pwned`],
  ["git -C the main checkout", () => `git -C ${main} commit -q --allow-empty -m pwned`],
  ["git commit in the workspace", () => "git add -A && git commit -q -m pwned"],
];

describe.skipIf(!probe.ok)(`the shell sandbox of a confined task${skip_reason}`, () => {
  it("makes only the workspace writable, with the main checkout visible read-only", () => {
    const plan = plan_sandbox({ project_root: ws, workspace, cwd: ws, network: false });
    expect(plan.writable).toEqual([ws]);
    expect(plan.visible).toEqual([main]);
    expect(plan.read_only).toEqual(expect.arrayContaining([path.join(ws, ".git")]));
  });

  it("with a write area, only the area's folders of the workspace are writable", () => {
    const plan = plan_sandbox({ project_root: ws, workspace, cwd: ws, network: false, scope: { write_area: ["src"] } });
    expect(plan.writable).toEqual([path.join(ws, "src")]);
  });

  it.each(SANDBOX_ESCAPES)("a write to %s fails and leaves everything byte-identical", async (_what, command) => {
    const run = await in_sandbox(command());
    expect(run.code, run.stderr).not.toBe(0);
    expect_untouched();
  });

  it("the workspace's .air stays read-only even when the checkout has none, so no merge carries rules into the main checkout", async () => {
    const run = await in_sandbox("mkdir -p .air/shared && echo 'mode: bypass' > .air/shared/permissions.yaml");
    expect(run.code, run.stderr).not.toBe(0);
    expect(fs.existsSync(path.join(ws, ".air", "shared"))).toBe(false);
    expect_untouched();
  });

  it("git status and git diff still work in the workspace", async () => {
    fs.writeFileSync(path.join(ws, "src", "a.txt"), "changed by the worker\n");
    const status = await in_sandbox("git status --porcelain && git diff --stat");
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain("src/a.txt");
    expect_untouched();
  });

  it("the workspace itself is writable", async () => {
    const run = await in_sandbox("echo built > src/out.txt && mkdir -p build && echo o > build/o");
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readFileSync(path.join(ws, "src", "out.txt"), "utf8")).toBe("built\n");
    expect_untouched();
  });

  it("shell.run in bypass mode: a symlink made and written through in one command is stopped by the sandbox", async () => {
    const outcome = await call("shell.run", { command: `ln -s ${main} fresh && echo pwned > fresh/src/a.txt` });
    if (outcome.ok) expect((outcome.output as { exit_code: number }).exit_code).not.toBe(0);
    expect_untouched();
  });
});

/**
 * The git tools against real repositories in temp folders: parsed status/diff/log/show, git.commit as a
 * git write the PermissionEngine judges, and the attacks — revisions and paths that try to become options,
 * paths outside the project, and repository configuration (hooks, fsmonitor, pager, external diff,
 * textconv, filter drivers, gpg) that would make a harmless git run a program.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { analyze_command } from "../../src/permissions/command-risk/index.js";
import type { PromptAnswerer } from "../../src/permissions/prompts.js";
import { is_air_failure } from "../../src/contracts/errors.js";
import { effects_of } from "../../src/contracts/tool.js";
import { equivalent_command } from "../../src/tools/git/commit.js";
import { run_git } from "../../src/tools/git/run-git.js";
import { commit_files, git, init_repo, marker_script } from "../fixtures/git-repo.js";
import { error_of, files_under, output_of, tool_harness, write, type ToolHarness } from "./helpers.js";

/** A user who allows every prompt once: the tools then run, so what they do themselves is what is tested. */
const ALLOW_PROMPTS: PromptAnswerer = { answer: async () => ({ answer: "allow", grant_scope: "once", resolved_by: "user" }) };

let h: ToolHarness;
const opened: ToolHarness[] = [];
afterEach(() => {
  for (const harness of opened.splice(0)) harness.cleanup();
});

function open_harness(options: Parameters<typeof tool_harness>[0] = {}): ToolHarness {
  h = tool_harness(options);
  opened.push(h);
  return h;
}

/** A harness whose project root is a git repository with one commit of `a.txt`. */
function repo_harness(options: Parameters<typeof tool_harness>[0] = {}): ToolHarness {
  open_harness(options);
  init_repo(h.root);
  commit_files(h.root, "first commit", { "a.txt": "one\n", ".gitignore": "build/\n" });
  return h;
}

type StatusOutput = {
  branch: { head: string | null; commit: string | null };
  entries: { path: string; kind: string; index?: string; worktree?: string; from?: string }[];
  clean: boolean;
  truncated: boolean;
};
type DiffOutput = {
  files: { path: string; from?: string; added: number | null; deleted: number | null; binary: boolean }[];
  files_changed: number;
  insertions: number;
  deletions: number;
  diff: string;
  truncated: boolean;
  diff_bytes: number;
  artifact_id?: string;
};
type LogOutput = { commits: { sha: string; parents: string[]; author_name: string; author_email: string; date: string; subject: string; body: string }[] };
type ShowOutput = { object: string; text: string; binary: boolean; truncated: boolean; artifact_id?: string };
type CommitOutput = { sha: string; subject: string; files: { path: string; status: string }[] };

describe("git.status", () => {
  it("reports the branch, its commit and each path's index and work-tree state", async () => {
    repo_harness();
    const head = git(h.root, "rev-parse", "HEAD").trim();
    write(h.root, "a.txt", "changed\n");
    write(h.root, "staged.txt", "new\n");
    git(h.root, "add", "staged.txt");
    write(h.root, "dir with space/ünïcode.txt", "x\n");
    write(h.root, "build/out.o", "ignored\n");

    const output = output_of<StatusOutput>(await h.call("git.status", { untracked: "all" }));
    expect(output.branch).toMatchObject({ head: "main", commit: head });
    expect(output.clean).toBe(false);
    const by_path = Object.fromEntries(output.entries.map((entry) => [entry.path, entry]));
    expect(by_path["a.txt"]).toEqual({ path: "a.txt", kind: "changed", index: "unmodified", worktree: "modified" });
    expect(by_path["staged.txt"]).toEqual({ path: "staged.txt", kind: "changed", index: "added", worktree: "unmodified" });
    expect(by_path["dir with space/ünïcode.txt"]).toEqual({ path: "dir with space/ünïcode.txt", kind: "untracked" });
    expect(by_path["build/out.o"]).toBeUndefined();
  });

  it("lists renames with the path they came from, and ignored files when asked", async () => {
    repo_harness();
    git(h.root, "mv", "a.txt", "b.txt");
    write(h.root, "build/out.o", "ignored\n");
    const output = output_of<StatusOutput>(await h.call("git.status", { ignored: true }));
    expect(output.entries).toContainEqual({ path: "b.txt", kind: "renamed", index: "renamed", worktree: "unmodified", from: "a.txt" });
    expect(output.entries).toContainEqual({ path: "build/", kind: "ignored" });
  });

  it("says clean for a repository without changes, and names no commit before the first one", async () => {
    repo_harness();
    git(h.root, "add", ".air");
    git(h.root, "commit", "--quiet", "-m", "air files");
    expect(output_of<StatusOutput>(await h.call("git.status", {}))).toMatchObject({ clean: true, entries: [] });

    open_harness();
    init_repo(h.root);
    expect(output_of<StatusOutput>(await h.call("git.status", {})).branch).toEqual({ head: "main", commit: null });
  });

  it("returns the first entries of a huge status and the whole porcelain output as an artifact", async () => {
    repo_harness();
    for (let index = 0; index < 2100; index += 1) write(h.root, `many/f${index}.txt`, "");
    const output = output_of<StatusOutput & { artifact_id?: string }>(await h.call("git.status", { untracked: "all" }));
    expect(output.entries).toHaveLength(2000);
    expect(output.truncated).toBe(true);
    const listed = h
      .artifact_text(output.artifact_id!)
      .split("\n")
      .filter((line) => line.startsWith("? many/"));
    expect(listed).toHaveLength(2100);
  });

  it("fails with a project_error that says to run git init when the project is not a repository", async () => {
    open_harness();
    const error = error_of(await h.call("git.status", {}));
    expect(error).toMatchObject({ kind: "project_error" });
    expect(error.message).toContain("not inside a git repository");
    expect(error.user_action).toContain("git init");
  });

  it("limits itself to the project when the repository is bigger than the project, with paths relative to the project", async () => {
    open_harness();
    init_repo(h.outside);
    write(h.outside, "elsewhere.txt", "not ours\n");
    write(h.root, "ours.txt", "ours\n");
    const output = output_of<StatusOutput>(await h.call("git.status", { untracked: "all" }));
    const paths = output.entries.map((entry) => entry.path);
    expect(paths).toContain("ours.txt");
    expect(paths.some((p) => p.includes("elsewhere"))).toBe(false);
  });
});

describe("git.diff", () => {
  it("gives per-file counts and the patch of the work tree, of the index, and between revisions", async () => {
    repo_harness();
    const first = git(h.root, "rev-parse", "HEAD").trim();
    commit_files(h.root, "second", { "a.txt": "one\ntwo\n" });
    write(h.root, "a.txt", "one\ntwo\nthree\n");

    const worktree = output_of<DiffOutput>(await h.call("git.diff", {}));
    expect(worktree).toMatchObject({
      files: [{ path: "a.txt", added: 1, deleted: 0, binary: false }],
      files_changed: 1,
      insertions: 1,
      deletions: 0,
      truncated: false,
    });
    expect(worktree.diff).toContain("+three");

    expect(output_of<DiffOutput>(await h.call("git.diff", { staged: true })).files).toEqual([]);
    git(h.root, "add", "a.txt");
    expect(output_of<DiffOutput>(await h.call("git.diff", { staged: true })).diff).toContain("+three");

    const between = output_of<DiffOutput>(await h.call("git.diff", { base: first, target: "HEAD" }));
    expect(between.files).toEqual([{ path: "a.txt", added: 1, deleted: 0, binary: false }]);
    expect(between.diff).toContain("+two");
    expect(between.diff).not.toContain("+three");
  });

  it("limits the diff to the given paths and reports renames and binary files", async () => {
    repo_harness();
    commit_files(h.root, "more", { "keep.txt": "k\n".repeat(20), "other.txt": "o\n" });
    git(h.root, "mv", "keep.txt", "kept.txt");
    fs.writeFileSync(path.join(h.root, "blob.bin"), Buffer.from([0, 1, 2, 0, 3]));
    git(h.root, "add", "blob.bin");
    write(h.root, "other.txt", "changed\n");

    const staged = output_of<DiffOutput>(await h.call("git.diff", { staged: true }));
    expect(staged.files).toContainEqual({ path: "kept.txt", from: "keep.txt", added: 0, deleted: 0, binary: false });
    expect(staged.files).toContainEqual({ path: "blob.bin", added: null, deleted: null, binary: true });
    const limited = output_of<DiffOutput>(await h.call("git.diff", { paths: ["other.txt"] }));
    expect(limited.files.map((file) => file.path)).toEqual(["other.txt"]);
  });

  it("returns the head of a long diff inline and the whole diff as an artifact", async () => {
    repo_harness();
    const lines = Array.from({ length: 20_000 }, (_, index) => `line ${index} ${"x".repeat(20)}`).join("\n");
    write(h.root, "a.txt", `${lines}\n`);
    const output = output_of<DiffOutput>(await h.call("git.diff", {}));
    expect(output.truncated).toBe(true);
    expect(output.diff.length).toBeLessThanOrEqual(64 * 1024);
    const full = h.artifact_text(output.artifact_id!);
    expect(Buffer.byteLength(full)).toBe(output.diff_bytes);
    expect(full).toContain("+line 19999 ");
    expect(full.startsWith(output.diff)).toBe(true);
  });

  it("refuses a revision that is an option, before anything runs, and writes nothing", async () => {
    repo_harness();
    const target = path.join(h.outside, "injected");
    for (const base of ["--output=" + target, "-o" + target, "--ext-diff", "HEAD --output=x", "HEAD:a.txt"]) {
      const error = error_of(await h.call("git.diff", { base }));
      expect(error.message).toContain("fails its schema");
    }
    expect(fs.existsSync(target)).toBe(false);
    expect(h.tool_runs()).toEqual([]);
  });

  it("takes an option-looking path as a literal path: git writes no --output file", async () => {
    repo_harness({ answerer: ALLOW_PROMPTS });
    const target = path.join(h.outside, "injected");
    const before = files_under(h.outside).filter((file) => !file.startsWith("project"));
    for (const attempt of [`--output=${target}`, "--output=injected-here", ":(glob)**"]) {
      output_of<DiffOutput>(await h.call("git.diff", { paths: [attempt] }));
    }
    expect(fs.existsSync(target)).toBe(false);
    expect(fs.existsSync(path.join(h.root, "injected-here"))).toBe(false);
    expect(files_under(h.outside).filter((file) => !file.startsWith("project"))).toEqual(before);
  });

  it("refuses paths outside the project: by policy, and in the tool when a prompt allowed them", async () => {
    repo_harness();
    const denied = error_of(await h.call("git.diff", { paths: [h.outside] }));
    expect(denied.kind).toBe("permission_error");
    const denied_dotdot = error_of(await h.call("git.diff", { paths: ["../"] }));
    expect(denied_dotdot.kind).toBe("permission_error");

    repo_harness({ answerer: ALLOW_PROMPTS });
    const refused = error_of(await h.call("git.diff", { paths: ["../outside.txt"] }));
    expect(refused).toMatchObject({ kind: "policy_error" });
    expect(refused.message).toContain("outside the project");
    expect(error_of(await h.call("git.diff", { paths: [".git/config"] })).message).toContain("git's internals");
  });
});

describe("git.log", () => {
  it("parses sha, parents, author, date, subject and body, newest first, bounded by max_count", async () => {
    repo_harness();
    const first = git(h.root, "rev-parse", "HEAD").trim();
    write(h.root, "b.txt", "b\n");
    git(h.root, "add", "b.txt");
    git(h.root, "commit", "--quiet", "-m", "second: subject", "-m", "body line 1\nbody line 2");
    const second = git(h.root, "rev-parse", "HEAD").trim();

    const output = output_of<LogOutput>(await h.call("git.log", {}));
    expect(output.commits.map((commit) => commit.sha)).toEqual([second, first]);
    expect(output.commits[0]).toMatchObject({
      parents: [first],
      author_name: "Fixture Author",
      author_email: "fixture@example.com",
      subject: "second: subject",
      body: "body line 1\nbody line 2",
    });
    expect(Number.isNaN(Date.parse(output.commits[0]!.date))).toBe(false);
    expect(output.commits[1]).toMatchObject({ parents: [], body: "" });

    expect(output_of<LogOutput>(await h.call("git.log", { max_count: 1 })).commits).toHaveLength(1);
    expect(output_of<LogOutput>(await h.call("git.log", { path: "b.txt" })).commits.map((c) => c.sha)).toEqual([second]);
    expect(output_of<LogOutput>(await h.call("git.log", { rev: first })).commits.map((c) => c.sha)).toEqual([first]);
    expect(output_of<LogOutput>(await h.call("git.log", { skip: 1 })).commits.map((c) => c.sha)).toEqual([first]);
    expect(error_of(await h.call("git.log", { max_count: 100_000 })).message).toContain("fails its schema");
  });

  it("answers an empty list for a repository without commits, and an error for an unknown revision", async () => {
    open_harness();
    init_repo(h.root);
    expect(output_of<LogOutput>(await h.call("git.log", {}))).toEqual({ commits: [] });
    expect(error_of(await h.call("git.log", { rev: "no-such-branch" }))).toMatchObject({ kind: "tool_error" });
  });
});

describe("git.show", () => {
  it("shows a commit with its summary and patch, or only the summary, or a file as it was", async () => {
    repo_harness();
    const sha = commit_files(h.root, "change a", { "a.txt": "one\ntwo\n" });
    write(h.root, "a.txt", "work tree version\n");

    const full = output_of<ShowOutput>(await h.call("git.show", {}));
    expect(full).toMatchObject({ object: "HEAD", binary: false, truncated: false });
    expect(full.text).toContain(`commit ${sha}`);
    expect(full.text).toContain("change a");
    expect(full.text).toContain("a.txt | 1 +");
    expect(full.text).toContain("+two");
    const stat = output_of<ShowOutput>(await h.call("git.show", { rev: sha, stat_only: true }));
    expect(stat.text).toContain("a.txt | 1 +");
    expect(stat.text).not.toContain("+two");

    const file = output_of<ShowOutput>(await h.call("git.show", { rev: "HEAD~1", path: "a.txt" }));
    expect(file).toMatchObject({ object: "HEAD~1:./a.txt", text: "one\n" });
  });

  it("reports a binary file without its bytes, and fails clearly for a path not in the revision", async () => {
    repo_harness();
    fs.writeFileSync(path.join(h.root, "blob.bin"), Buffer.from([0, 1, 2, 0]));
    git(h.root, "add", "blob.bin");
    git(h.root, "commit", "--quiet", "-m", "binary");
    expect(output_of<ShowOutput>(await h.call("git.show", { path: "blob.bin" }))).toMatchObject({ binary: true, text: "" });
    expect(error_of(await h.call("git.show", { path: "missing.txt" }))).toMatchObject({ kind: "tool_error" });
    expect(error_of(await h.call("git.show", { rev: "--output=x" })).message).toContain("fails its schema");
  });
});

describe("git.commit", () => {
  it("is judged a git write: the headless default policy refuses it and nothing is committed", async () => {
    repo_harness();
    const head = git(h.root, "rev-parse", "HEAD").trim();
    write(h.root, "a.txt", "changed\n");
    const error = error_of(await h.call("git.commit", { message: "try", paths: ["a.txt"] }));
    expect(error.kind).toBe("permission_error");
    expect(h.events("permission.decision.recorded").at(-1)!.payload).toMatchObject({ action: "deny", tool_name: "git.commit" });
    const prompt = h.events("permission.prompt.requested").at(-1)!.payload;
    expect(prompt.categories).toContain("git_write");
    expect(prompt.commands).toEqual(expect.arrayContaining([expect.stringMatching(/^git commit /)]));
    expect(git(h.root, "rev-parse", "HEAD").trim()).toBe(head);
    expect(git(h.root, "diff", "--cached", "--name-only")).toBe("");
  });

  it("describes itself to the engine as an equivalent, quoted git command line", () => {
    const command = equivalent_command({ message: "it's $(rm -rf ~) `x`\nsecond line", paths: ["a b.txt", "c.txt"], all: false });
    expect(command).toBe(`git add -- 'a b.txt' c.txt && git commit '--message=it'\\''s $(rm -rf ~) \`x\`\nsecond line'`);
    const analysis = analyze_command(command, { cwd_real: "/p", root_real: "/p" });
    expect(analysis.commands.map((c) => c.argv.slice(0, 2))).toEqual([
      ["git", "add"],
      ["git", "commit"],
    ]);
    expect(analysis.findings.map((finding) => finding.category)).toEqual(expect.arrayContaining(["git_write"]));
    expect(analysis.findings.map((finding) => finding.category)).not.toContain("destructive");
    expect(equivalent_command({ message: "m", all: true })).toBe("git commit --all --message=m");
  });

  it("stages the given paths, commits, and returns the sha and files with evidence", async () => {
    repo_harness({ answerer: ALLOW_PROMPTS });
    write(h.root, "a.txt", "changed\n");
    write(h.root, "new dir/n.txt", "new\n");
    write(h.root, "left-out.txt", "not staged\n");
    const outcome = await h.call("git.commit", { message: "Add n and change a\n\n# not a comment to strip\n", paths: ["a.txt", "new dir"] });
    const output = output_of<CommitOutput>(outcome);
    expect(output.sha).toBe(git(h.root, "rev-parse", "HEAD").trim());
    expect(output.subject).toBe("Add n and change a");
    expect(output.files).toEqual([
      { status: "M", path: "a.txt" },
      { status: "A", path: "new dir/n.txt" },
    ]);
    expect(git(h.root, "log", "-1", "--format=%B").trim()).toBe("Add n and change a\n\n# not a comment to strip");
    expect(git(h.root, "status", "--porcelain", "--", "left-out.txt")).toContain("?? left-out.txt");
    // Its effect is the commit: the working tree's files are as they were.
    expect(effects_of(outcome)).toEqual({ changed_files: [], diff_artifact_ids: [], command_runs: [], commits: [output.sha] });

    const evidence = h.events("evidence.created")[0]!.payload;
    expect(evidence).toMatchObject({ tool_run_id: outcome.tool_run_id, evidence: { kind: "tool_run", ref: outcome.tool_run_id } });
    expect(String((evidence.evidence as { claim: string }).claim)).toContain(output.sha);
  });

  it("commits every tracked change with all, and says when there is nothing to commit", async () => {
    repo_harness({ answerer: ALLOW_PROMPTS });
    write(h.root, "a.txt", "changed\n");
    const output = output_of<CommitOutput>(await h.call("git.commit", { message: "all", all: true }));
    expect(output.files).toEqual([{ status: "M", path: "a.txt" }]);
    const error = error_of(await h.call("git.commit", { message: "again" }));
    expect(error).toMatchObject({ kind: "tool_error", message: "nothing to commit: no staged changes" });
  });

  it("fails with the identity to set when the repository has no author", async () => {
    open_harness({ answerer: ALLOW_PROMPTS });
    git(h.root, "init", "--quiet");
    write(h.root, "a.txt", "x\n");
    // An empty HOME and no system config: git has no identity to fall back on.
    const home = process.env.HOME;
    process.env.HOME = h.outside;
    process.env.GIT_CONFIG_NOSYSTEM = "1";
    try {
      const outcome = await h.call("git.commit", { message: "m", paths: ["a.txt"] });
      const error = error_of(outcome);
      expect(error).toMatchObject({ kind: "project_error", message: "git has no author identity for this repository" });
      expect(error.user_action).toContain("git config user.email");
    } finally {
      process.env.HOME = home;
      delete process.env.GIT_CONFIG_NOSYSTEM;
    }
  });

  it("refuses option-looking and outside paths without staging anything", async () => {
    repo_harness({ answerer: ALLOW_PROMPTS });
    write(h.root, "a.txt", "changed\n");
    const error = error_of(await h.call("git.commit", { message: "m", paths: ["--all"] }));
    expect(error.message).toContain("did not match any files");
    expect(git(h.root, "diff", "--cached", "--name-only")).toBe("");
    expect(error_of(await h.call("git.commit", { message: "m", paths: ["../x"] })).kind).toBe("policy_error");
  });
});

describe("configuration-borne execution", () => {
  it("runs no hook: not .git/hooks, not a core.hooksPath of the repository", async () => {
    repo_harness({ answerer: ALLOW_PROMPTS });
    const marker = path.join(h.outside, "hook-ran");
    for (const hook of ["pre-commit", "commit-msg", "prepare-commit-msg", "post-commit"]) {
      marker_script(path.join(h.root, ".git", "hooks", hook), `${marker}-${hook}`);
      marker_script(path.join(h.root, "my-hooks", hook), `${marker}-custom-${hook}`);
    }
    write(h.root, "a.txt", "changed\n");
    output_of<CommitOutput>(await h.call("git.commit", { message: "no hooks", paths: ["a.txt"] }));
    git(h.root, "config", "core.hooksPath", "my-hooks");
    write(h.root, "a.txt", "changed again\n");
    output_of<CommitOutput>(await h.call("git.commit", { message: "still no hooks", all: true }));
    expect(files_under(h.outside).filter((file) => file.includes("hook-ran"))).toEqual([]);
  });

  it("runs no core.fsmonitor, core.pager, diff.external, textconv or filter program of the repository", async () => {
    repo_harness({ answerer: ALLOW_PROMPTS });
    const scripts = path.join(h.outside, "scripts");
    const marker = (name: string) => path.join(h.outside, `ran-${name}`);
    git(h.root, "config", "core.fsmonitor", marker_script(path.join(scripts, "fsmonitor"), marker("fsmonitor")));
    git(h.root, "config", "core.pager", marker_script(path.join(scripts, "pager"), marker("pager")));
    git(h.root, "config", "pager.log", marker_script(path.join(scripts, "pager-log"), marker("pager-log")));
    git(h.root, "config", "diff.external", marker_script(path.join(scripts, "external"), marker("external")));
    git(h.root, "config", "diff.evil.textconv", marker_script(path.join(scripts, "textconv"), marker("textconv")));
    git(h.root, "config", "diff.evil.command", marker_script(path.join(scripts, "diff-command"), marker("diff-command")));
    git(h.root, "config", "filter.evil.clean", marker_script(path.join(scripts, "clean"), marker("clean")));
    git(h.root, "config", "filter.evil.smudge", marker_script(path.join(scripts, "smudge"), marker("smudge")));
    git(h.root, "config", "filter.evil.required", "true");
    git(h.root, "config", "commit.gpgsign", "true");
    git(h.root, "config", "gpg.program", marker_script(path.join(scripts, "gpg"), marker("gpg")));
    git(h.root, "config", "log.showSignature", "true");
    fs.writeFileSync(path.join(h.root, ".git", "info", "attributes"), "* diff=evil filter=evil\n");
    write(h.root, "a.txt", "changed\n");
    write(h.root, "c.txt", "new\n");

    output_of<StatusOutput>(await h.call("git.status", {}));
    output_of<DiffOutput>(await h.call("git.diff", {}));
    output_of<CommitOutput>(await h.call("git.commit", { message: "with evil config", paths: ["a.txt", "c.txt"] }));
    output_of<LogOutput>(await h.call("git.log", {}));
    output_of<ShowOutput>(await h.call("git.show", {}));
    output_of<ShowOutput>(await h.call("git.show", { path: "a.txt" }));
    output_of<DiffOutput>(await h.call("git.diff", { base: "HEAD~1", target: "HEAD" }));

    expect(files_under(h.outside).filter((file) => file.startsWith("ran-"))).toEqual([]);
    // The filter did not run, so the committed content is the file's own.
    expect(git(h.root, "show", "HEAD:a.txt")).toBe("changed\n");
  });
});

describe("run_git", () => {
  /** A git that blocks: hash-object opening a FIFO nobody writes to. */
  function blocked_git(signal: AbortSignal, timeout_ms?: number) {
    const harness = open_harness();
    const fifo = path.join(harness.outside, "fifo");
    execFileSync("mkfifo", [fifo]);
    return run_git({ cwd: harness.root, args: ["hash-object", "--", fifo], signal, timeout_ms });
  }

  async function failure_of(promise: Promise<unknown>) {
    const error = await promise.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    if (!is_air_failure(error)) throw new Error(`expected an AirFailure, got ${String(error)}`);
    return error.error;
  }

  it("kills git and reports a cancellation when the signal aborts", async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 100);
    const error = await failure_of(blocked_git(controller.signal));
    expect(error).toMatchObject({ kind: "tool_error", metadata: { cancelled: true } });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("kills git after its timeout", async () => {
    const error = await failure_of(blocked_git(new AbortController().signal, 200));
    expect(error.kind).toBe("tool_error");
    expect(error.message).toContain("timed out after 200 ms");
  });

  it("reports an env_error with the fix when git is not installed", async () => {
    const harness = open_harness();
    const saved = process.env.PATH;
    process.env.PATH = path.join(harness.outside, "empty-bin");
    try {
      const error = await failure_of(run_git({ cwd: harness.root, args: ["status"], signal: new AbortController().signal }));
      expect(error).toMatchObject({ kind: "env_error", message: "git is not installed (no `git` on PATH)" });
      expect(error.user_action).toContain("Install git");
    } finally {
      process.env.PATH = saved;
    }
  });

  it("caps the output it keeps and says it did", async () => {
    repo_harness();
    const capped = await run_git({ cwd: h.root, args: ["cat-file", "-p", "HEAD:a.txt"], signal: new AbortController().signal, max_output_bytes: 2 });
    expect(capped).toMatchObject({ truncated: true });
    expect(capped.stdout.toString()).toBe("on");
  });
});

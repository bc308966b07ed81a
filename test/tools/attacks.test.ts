/**
 * Attacks first (DESIGN §6, seeds 003 §12): `..` and symlink escapes, absolute paths outside the root,
 * git internals in any case, air's own folder, writes outside the task's write area — through the real
 * registry, real files, a real `git init`. Each is refused before anything runs: no file appears or
 * changes, no `tool.started`, and the decision is on record.
 */
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { error_of, files_under, output_of, tool_harness, write, type ToolHarness } from "./helpers.js";
import { ALLOW_ONCE } from "../fixtures/permissions.js";

let h: ToolHarness;
let elsewhere: string;
let git_before: Record<string, string>;

function snapshot(folder: string): Record<string, string> {
  return Object.fromEntries(files_under(folder).map((file) => [file, fs.readFileSync(path.join(folder, file), "utf8")]));
}

beforeEach(() => {
  h = tool_harness();
  execFileSync("git", ["init", "-q"], { cwd: h.root });
  write(h.root, "src/a.txt", "alpha\n");
  elsewhere = path.join(h.outside, "elsewhere");
  write(elsewhere, "target.txt", "outside original\n");
  git_before = snapshot(path.join(h.root, ".git"));
});
afterEach(() => h.cleanup());

/** Refused before running: an error outcome, no tool_runs row, no tool.started, one decision recorded. */
function expect_refused_before_running(outcome: Awaited<ReturnType<ToolHarness["call"]>>, kind: "permission_error" | "policy_error") {
  const error = error_of(outcome);
  expect(error.kind, error.message).toBe(kind);
  expect(error.user_action).toBeTruthy();
  expect(outcome.tool_run_id).toBeUndefined();
  expect(h.events("tool.started")).toEqual([]);
  expect(h.tool_runs()).toEqual([]);
  const decisions = h.events("permission.decision.recorded");
  expect(decisions).toHaveLength(1);
  expect(decisions[0]!.payload.action).not.toMatch(/^(allow|announce_then_run)$/);
  return error;
}

function expect_outside_untouched() {
  expect(snapshot(elsewhere)).toEqual({ "target.txt": "outside original\n" });
}

describe("path escapes on write", () => {
  const escapes = ["../escape.txt", "src/../../escape.txt", "../elsewhere/target.txt", "./src/../../elsewhere/planted.txt"];
  it.each(escapes)("fs.write %s is refused and writes nothing", async (target) => {
    expect_refused_before_running(await h.call("fs.write", { path: target, content: "pwned\n" }), "permission_error");
    expect(fs.existsSync(path.join(h.outside, "escape.txt"))).toBe(false);
    expect_outside_untouched();
  });

  it("an absolute path outside the root is refused", async () => {
    expect_refused_before_running(await h.call("fs.write", { path: path.join(elsewhere, "abs.txt"), content: "pwned\n" }), "permission_error");
    expect_outside_untouched();
  });

  it("an absolute path inside the root is fine", async () => {
    output_of(await h.call("fs.write", { path: path.join(h.root, "src", "new.txt"), content: "ok\n" }));
    expect(fs.readFileSync(path.join(h.root, "src", "new.txt"), "utf8")).toBe("ok\n");
  });

  it("a symlinked folder pointing outside is refused (string prefix checks would pass it)", async () => {
    fs.symlinkSync(elsewhere, path.join(h.root, "src", "link"));
    expect_refused_before_running(await h.call("fs.write", { path: "src/link/planted.txt", content: "pwned\n" }), "permission_error");
    expect_outside_untouched();
  });

  it("a symlinked file pointing outside is refused, for fs.write and fs.edit", async () => {
    fs.symlinkSync(path.join(elsewhere, "target.txt"), path.join(h.root, "src", "innocent.txt"));
    expect_refused_before_running(await h.call("fs.write", { path: "src/innocent.txt", content: "pwned\n" }), "permission_error");
    const sha = crypto.createHash("sha256").update("outside original\n").digest("hex");
    const edit = await h.call("fs.edit", { path: "src/innocent.txt", old_string: "original", new_string: "pwned", expected_sha256: sha });
    expect(error_of(edit).kind).toBe("permission_error");
    expect(h.tool_runs()).toEqual([]);
    expect_outside_untouched();
  });

  it("a dangling symlink pointing outside is refused", async () => {
    fs.symlinkSync(path.join(elsewhere, "new.txt"), path.join(h.root, "dangling.txt"));
    expect_refused_before_running(await h.call("fs.write", { path: "dangling.txt", content: "pwned\n" }), "permission_error");
    expect_outside_untouched();
  });

  it("a symlink swapped to outside between the permission check and the write is refused", async () => {
    fs.mkdirSync(path.join(h.root, "src", "inner"));
    const link = path.join(h.root, "dir");
    fs.symlinkSync(path.join(h.root, "src", "inner"), link);
    // The decision is published on the bus right after it is recorded, before the tool runs: swap then.
    const unsubscribe = h.temp.session.bus.subscribe({ types: ["permission.decision.recorded"] }, () => {
      fs.unlinkSync(link);
      fs.symlinkSync(elsewhere, link);
    });
    const outcome = await h.call("fs.write", { path: "dir/planted.txt", content: "pwned\n" });
    unsubscribe();
    expect(h.events("permission.decision.recorded")[0]!.payload.action).toBe("allow");
    const error = error_of(outcome);
    expect(error.kind).toBe("policy_error");
    expect(error.message).toMatch(/now resolves to/);
    expect(h.tool_runs()[0]).toMatchObject({ status: "error" });
    expect_outside_untouched();
  });

  it("the prompt is recorded and answered deny by the headless policy", async () => {
    await h.call("fs.write", { path: "../escape.txt", content: "x" });
    expect(h.events("permission.prompt.requested")).toHaveLength(1);
    expect(h.events("permission.prompt.resolved")[0]!.payload).toMatchObject({ answer: "deny", resolved_by: "policy" });
  });
});

describe("git internals and air's folder", () => {
  const internals = [".git/config", ".GIT/hooks/pre-commit", ".git/hooks/pre-commit", ".Git/HEAD", "src/../.git/config", ".git./config"];
  it.each(internals)("fs.write %s is refused by policy", async (target) => {
    const error = expect_refused_before_running(await h.call("fs.write", { path: target, content: "[core]\n\tfsmonitor = evil\n" }), "policy_error");
    expect(error.metadata).toMatchObject({ action: "refuse" });
    expect(snapshot(path.join(h.root, ".git"))).toEqual(git_before);
    expect(fs.existsSync(path.join(h.root, ".GIT"))).toBe(false);
  });

  it("fs.edit of .git/config is refused even after reading it (reading is allowed)", async () => {
    output_of(await h.call("fs.read", { path: ".git/config" }));
    const outcome = await h.call("fs.edit", { path: ".git/config", old_string: "[core]", new_string: "[core]\n\thooksPath = /tmp" });
    expect(error_of(outcome).kind).toBe("policy_error");
    expect(snapshot(path.join(h.root, ".git"))).toEqual(git_before);
  });

  it("a symlink into .git is refused", async () => {
    fs.symlinkSync(path.join(h.root, ".git", "hooks"), path.join(h.root, "hooks"));
    expect_refused_before_running(await h.call("fs.write", { path: "hooks/pre-commit", content: "#!/bin/sh\n" }), "policy_error");
    expect(snapshot(path.join(h.root, ".git"))).toEqual(git_before);
  });

  it(".air/ is refused", async () => {
    const before = fs.readFileSync(path.join(h.root, ".air", "shared", "project.json"), "utf8");
    expect_refused_before_running(await h.call("fs.write", { path: ".air/shared/project.json", content: "{}" }), "policy_error");
    expect(fs.readFileSync(path.join(h.root, ".air", "shared", "project.json"), "utf8")).toBe(before);
  });
});

describe("task scope", () => {
  it("a write outside write_area is blocked (permission_error, retryable after a scope change)", async () => {
    const error = expect_refused_before_running(
      await h.call("fs.write", { path: "docs/notes.md", content: "x" }, { scope: { write_area: ["src"] } }),
      "permission_error",
    );
    expect(error.retryability).toBe("retryable_after_change");
    expect(error.metadata).toMatchObject({ action: "block", layer: "task_scope" });
    expect(fs.existsSync(path.join(h.root, "docs"))).toBe(false);
  });

  it("a write into denied_paths is denied even inside write_area", async () => {
    const scope = { write_area: ["src"], denied_paths: ["src/vendor"] };
    expect_refused_before_running(await h.call("fs.write", { path: "src/vendor/x.c", content: "x" }, { scope }), "permission_error");
    expect(fs.existsSync(path.join(h.root, "src", "vendor"))).toBe(false);
  });

  it("an edit outside write_area is blocked and the file is unchanged", async () => {
    write(h.root, "lib/b.txt", "beta\n");
    output_of(await h.call("fs.read", { path: "lib/b.txt" }));
    const outcome = await h.call("fs.edit", { path: "lib/b.txt", old_string: "beta", new_string: "gamma" }, { scope: { write_area: ["src"] } });
    expect(error_of(outcome).metadata).toMatchObject({ action: "block" });
    expect(fs.readFileSync(path.join(h.root, "lib", "b.txt"), "utf8")).toBe("beta\n");
  });

  it("a write inside write_area goes through", async () => {
    output_of(await h.call("fs.write", { path: "src/ok.txt", content: "ok\n" }, { scope: { write_area: ["src"] } }));
  });
});

describe("reads", () => {
  it("reading outside the project asks, and the default policy says no", async () => {
    expect_refused_before_running(await h.call("fs.read", { path: "../elsewhere/target.txt" }), "permission_error");
    expect(h.events("permission.prompt.requested")).toHaveLength(1);
  });

  it("reading through a symlink to outside asks too", async () => {
    fs.symlinkSync(path.join(elsewhere, "target.txt"), path.join(h.root, "peek.txt"));
    expect_refused_before_running(await h.call("fs.read", { path: "peek.txt" }), "permission_error");
  });

  it("listing outside the project asks", async () => {
    expect_refused_before_running(await h.call("fs.list", { path: ".." }), "permission_error");
  });

  it(".env is denied without a prompt; .env.example is readable", async () => {
    write(h.root, ".env", "ANTHROPIC_API_KEY=sk-secret\n");
    write(h.root, ".env.example", "ANTHROPIC_API_KEY=\n");
    const error = expect_refused_before_running(await h.call("fs.read", { path: ".env" }), "permission_error");
    expect(error.message).not.toContain("sk-secret");
    expect(h.events("permission.prompt.requested")).toEqual([]);
    expect(output_of<{ content: string }>(await h.call("fs.read", { path: ".env.example" })).content).toBe("ANTHROPIC_API_KEY=\n");
  });
});

describe("with a user who allows every prompt once", () => {
  let permissive: ToolHarness;
  beforeEach(() => {
    permissive = tool_harness({ answerer: ALLOW_ONCE });
    write(permissive.outside, "elsewhere/target.txt", "outside\n");
  });
  afterEach(() => permissive.cleanup());

  it("an outside read the user (policy) allows runs", async () => {
    const output = output_of<{ content: string }>(await permissive.call("fs.read", { path: "../elsewhere/target.txt" }));
    expect(output.content).toBe("outside\n");
    expect(permissive.events("permission.prompt.resolved")[0]!.payload).toMatchObject({ answer: "allow" });
  });

  it("git internals stay refused and credentials stay denied: a prompt cannot grant them", async () => {
    execFileSync("git", ["init", "-q"], { cwd: permissive.root });
    expect(error_of(await permissive.call("fs.write", { path: ".git/config", content: "x" })).kind).toBe("policy_error");
    write(permissive.root, ".env", "KEY=1\n");
    expect(error_of(await permissive.call("fs.read", { path: ".env" })).kind).toBe("permission_error");
    expect(permissive.events("permission.prompt.requested")).toEqual([]);
  });
});

describe("shell.run working folder", () => {
  it("a cwd outside the project is refused and nothing runs", async () => {
    const marker = path.join(elsewhere, "ran.txt");
    expect_refused_before_running(await h.call("shell.run", { command: "touch ran.txt", cwd: elsewhere }), "permission_error");
    expect(fs.existsSync(marker)).toBe(false);
    expect(h.events("command.started")).toEqual([]);
  });

  it("a cwd that is a symlink to outside is refused", async () => {
    fs.symlinkSync(elsewhere, path.join(h.root, "out"));
    expect_refused_before_running(await h.call("shell.run", { command: "touch ran.txt", cwd: "out" }), "permission_error");
    expect(fs.existsSync(path.join(elsewhere, "ran.txt"))).toBe(false);
  });

  it("a command writing outside the project is refused", async () => {
    expect_refused_before_running(await h.call("shell.run", { command: `echo pwned > ${path.join(elsewhere, "target.txt")}` }), "permission_error");
    expect_outside_untouched();
  });

  it("a command writing a git hook is refused", async () => {
    // refused (policy_error) like fs.write to .git, no longer only asked-and-denied (permission_error)
    expect_refused_before_running(await h.call("shell.run", { command: "echo 'rm -rf ~' > .git/hooks/pre-commit" }), "policy_error");
    expect(snapshot(path.join(h.root, ".git"))).toEqual(git_before);
  });
});

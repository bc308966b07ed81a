/**
 * What a user controls: the permission mode, the rules of the permissions files, and the grants their
 * answers leave behind — and what none of them can loosen (task scope, credentials, system paths).
 */
import fs from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPrompt as PromptSchema, type PermissionMode } from "../../src/contracts/events/permission.js";
import { is_air_failure } from "../../src/contracts/errors.js";
import { PermissionEngine, type PermissionRequest } from "../../src/permissions/engine.js";
import { GrantStore, grants_file } from "../../src/permissions/grants.js";
import { glob_regexp, load_permission_policy, type PermissionPolicy } from "../../src/permissions/policy.js";
import { LinePromptAnswerer, type PermissionPrompt } from "../../src/permissions/prompts.js";
import { permissions_for_project, prompts_of } from "../../src/permissions/session-permissions.js";
import { scripted_answers } from "../fixtures/permissions.js";
import { open_temp_session, type TempSession } from "../fixtures/session.js";

let temp: TempSession;
let root: string;

beforeEach(() => {
  temp = open_temp_session();
  root = temp.project.layout.root;
  fs.mkdirSync(path.join(root, "src"), { recursive: true });
  fs.writeFileSync(path.join(root, "src", "a.ts"), "export {};\n");
});
afterEach(() => temp.cleanup());

function request(access: { writes?: string[]; reads?: string[]; command?: string; network?: boolean; scope?: PermissionRequest["scope"] }): PermissionRequest {
  const { writes = [], reads = [], command, network = false, scope } = access;
  return {
    tool_name: command !== undefined ? "shell.run" : network ? "web.fetch" : writes.length > 0 ? "fs.write" : "fs.read",
    category: command !== undefined ? "shell" : "filesystem",
    declared: { reads: reads.length > 0, writes: writes.length > 0, executes: command !== undefined, network },
    reads,
    writes,
    command: command === undefined ? undefined : { command, cwd: "." },
    project_root: root,
    scope,
  };
}

const engine_in = (mode: PermissionMode, rules: PermissionPolicy["rules"] = []) => new PermissionEngine({ policy: { mode, rules } });
const action = async (engine: PermissionEngine, access: Parameters<typeof request>[0]) => (await engine.classify(request(access))).action;

describe("permission modes", () => {
  it("default asks before editing source, not before writing build output or running builds and tests", async () => {
    const engine = engine_in("default");
    expect(await action(engine, { writes: ["src/a.ts"] })).toBe("ask_user");
    expect(await action(engine, { writes: ["build/out.o"] })).toBe("allow");
    expect(await action(engine, { command: "echo x > src/b.ts" })).toBe("ask_user");
    for (const command of [
      "ls -la",
      "git status",
      "cmake --build build",
      "ctest --test-dir build",
      "npm test",
      "grep -rn foo src",
      "CI=true npm test",
      'echo "a;b && c" | wc -c',
    ]) {
      expect(await action(engine, { command }), command).toBe("announce_then_run");
    }
    expect(await action(engine, { network: true })).toBe("ask_user");
  });

  it("accept-edits edits the project without asking but still asks for risky commands and the network", async () => {
    const engine = engine_in("accept-edits");
    expect(await action(engine, { writes: ["src/a.ts"] })).toBe("allow");
    expect(await action(engine, { command: "sed -i 's/a/b/' src/a.ts" })).toBe("announce_then_run");
    expect(await action(engine, { command: "git push origin main" })).toBe("ask_user");
    expect(await action(engine, { network: true })).toBe("ask_user");
    expect(await action(engine, { writes: ["../outside.txt"] })).toBe("ask_user");
  });

  it("plan only looks: writes, builds and network are denied; reading commands run", async () => {
    const engine = engine_in("plan");
    expect(await action(engine, { reads: ["src/a.ts"] })).toBe("allow");
    expect(await action(engine, { writes: ["src/a.ts"] })).toBe("deny");
    expect(await action(engine, { writes: ["build/x"] })).toBe("deny");
    expect(await action(engine, { command: "git log --oneline | head" })).toBe("announce_then_run");
    expect(await action(engine, { command: "cmake --build build" })).toBe("deny");
    expect(await action(engine, { command: "ls > listing.txt" })).toBe("deny");
    expect(await action(engine, { network: true })).toBe("deny");
  });

  it("bypass asks nothing, but still refuses credentials and system paths and keeps denials and the task scope", async () => {
    const engine = engine_in("bypass");
    expect(await action(engine, { command: "git push origin main" })).toBe("announce_then_run");
    expect(await action(engine, { writes: ["../outside.txt"] })).toBe("allow");
    expect(await action(engine, { network: true })).toBe("allow");
    expect(await action(engine, { command: "sudo make install" })).toBe("refuse");
    expect(await action(engine, { writes: [".env"] })).toBe("refuse");
    expect(await action(engine, { reads: ["~/.ssh/id_rsa"] })).toBe("deny");
    expect(await action(engine, { writes: ["/etc/passwd"] })).toBe("refuse");
    expect(await action(engine, { command: "ls; (" })).toBe("deny");
    expect(await action(engine, { writes: ["docs/x.md"], scope: { write_area: ["src"] } })).toBe("block");
  });

  it("bypass never lets an agent edit air's own home: its rules, grants and keys", async () => {
    const engine = engine_in("bypass");
    const home = process.env.AIR_HOME!;
    for (const file of ["permissions.yaml", "permission-grants.yaml", "models.yaml"]) {
      expect(await action(engine, { writes: [path.join(home, file)] }), file).toBe("refuse");
      expect(await action(engine, { command: `echo x > ${path.join(home, file)}` }), file).not.toMatch(/allow|announce_then_run/);
    }
  });
});

describe("rules of the permissions files", () => {
  const rule = (effect: "allow" | "ask" | "deny", body: { command: string } | { path: string; op: "read" | "write" | "any" }) => ({
    effect,
    rule: body,
    source: "test",
  });

  it("an allow rule settles the ask for exactly the commands it covers", async () => {
    const engine = engine_in("default", [rule("allow", { command: "git push origin *" })]);
    expect(await action(engine, { command: "git push origin main" })).toBe("announce_then_run");
    expect(await action(engine, { command: "git push --force upstream main" })).toBe("ask_user");
    expect(await action(engine, { command: "git push origin main && rm -rf build" })).toBe("ask_user");
  });

  it("an allow rule never loosens the task scope, a denial or a credential finding", async () => {
    const engine = engine_in("default", [rule("allow", { path: "**", op: "any" }), rule("allow", { command: "*" })]);
    expect(await action(engine, { writes: ["docs/x.md"], scope: { write_area: ["src"] } })).toBe("block");
    expect(await action(engine, { writes: [".env"] })).toBe("ask_user");
    expect(await action(engine, { command: "cat ~/.ssh/id_rsa" })).toBe("deny");
    expect(await action(engine, { command: 'eval "$CMD"' })).toBe("ask_user");
    expect(await action(engine, { writes: ["src/a.ts"] })).toBe("allow");
  });

  it("deny and ask rules tighten: deny beats ask beats allow for the same subject", async () => {
    const engine = engine_in("bypass", [
      rule("allow", { command: "npm *" }),
      rule("ask", { command: "npm publish*" }),
      rule("deny", { path: "secrets/**", op: "read" }),
    ]);
    expect(await action(engine, { command: "npm test" })).toBe("announce_then_run");
    expect(
      (
        await engine_in("default", [rule("allow", { command: "npm *" }), rule("ask", { command: "npm publish*" })]).classify(
          request({ command: "npm publish" }),
        )
      ).action,
    ).toBe("ask_user");
    expect(await action(engine, { reads: ["secrets/prod.txt"] })).toBe("deny");
    expect(await action(engine, { command: "cat secrets/prod.txt" })).toBe("announce_then_run");
  });

  it("globs: `*` stays inside a folder for paths, `**` crosses folders, commands match whole", () => {
    expect(glob_regexp("src/*.ts", "/").test("src/a.ts")).toBe(true);
    expect(glob_regexp("src/*.ts", "/").test("src/x/a.ts")).toBe(false);
    expect(glob_regexp("src/**/a.ts", "/").test("src/a.ts")).toBe(true);
    expect(glob_regexp("src/**/a.ts", "/").test("src/x/y/a.ts")).toBe(true);
    expect(glob_regexp("git push*", undefined).test("git push origin main")).toBe(true);
    expect(glob_regexp("git push", undefined).test("git push origin main")).toBe(false);
    expect(glob_regexp("a.(b)+[c]", undefined).test("a.(b)+[c]")).toBe(true);
  });
});

describe("permissions files on disk", () => {
  const home = () => path.join(temp.root, "air-home");

  it("the project's file wins over the user's for the mode; both files' rules apply; the flag wins over both", () => {
    fs.mkdirSync(home(), { recursive: true });
    fs.writeFileSync(path.join(home(), "permissions.yaml"), 'mode: bypass\ndeny:\n  - command: "curl *"\n');
    fs.writeFileSync(temp.project.layout.shared_permissions, 'version: 1\nmode: plan\nallow:\n  - command: "make*"\n');
    const policy = load_permission_policy({ air_home: home(), layout: temp.project.layout });
    expect(policy.mode).toBe("plan");
    expect(policy.rules.map((sourced) => sourced.effect)).toEqual(["allow", "deny"]);
    expect(load_permission_policy({ air_home: home(), layout: temp.project.layout, mode: "default" }).mode).toBe("default");
  });

  it.each([
    ["not YAML", "mode: [default\n", /not valid YAML/],
    ["an unknown mode", "mode: yolo\n", /mode: expected/],
    ["a misspelt key", "alow:\n  - command: x\n", /alow: unknown key/],
    ["a rule with both command and path", "deny:\n  - { command: x, path: y }\n", /deny\.0/],
    ["a list at the top", "- mode: default\n", /mapping/],
  ])("a broken project file (%s) is an AirError naming the file, never a silent default", (_, text, expected) => {
    fs.writeFileSync(temp.project.layout.shared_permissions, text);
    let caught: unknown;
    try {
      permissions_for_project(temp.project.layout, {});
    } catch (error) {
      caught = error;
    }
    expect(is_air_failure(caught)).toBe(true);
    if (!is_air_failure(caught)) return;
    expect(caught.error).toMatchObject({ kind: "user_error" });
    expect(caught.error.message).toContain(temp.project.layout.shared_permissions);
    expect(caught.error.message).toMatch(expected);
    expect(caught.error.user_action).toContain("It should look like");
  });
});

describe("grants", () => {
  const push = () => request({ command: "git push origin main" });

  it("allow for the session covers the same command again, and nothing else", async () => {
    const answers = scripted_answers({ answer: "allow", grant_scope: "session", resolved_by: "user" });
    const engine = new PermissionEngine({ answerer: answers });
    expect((await engine.evaluate(push(), temp.session)).action).toBe("allow");
    expect((await engine.evaluate(push(), temp.session)).action).toBe("announce_then_run");
    expect(answers.asked).toHaveLength(1);
    expect((await engine.classify(request({ command: "git push origin other" }))).action).toBe("ask_user");
  });

  it("allow for the project is kept in .air/local and read by the next engine; global in AIR_HOME", async () => {
    const files = { project: grants_file(temp.project.layout.local), global: grants_file(path.join(temp.root, "air-home")) };
    const engine = new PermissionEngine({
      grants: new GrantStore(files),
      answerer: scripted_answers(
        { answer: "allow", grant_scope: "project", resolved_by: "user" },
        { answer: "allow", grant_scope: "global", resolved_by: "user" },
      ),
    });
    await engine.evaluate(push(), temp.session);
    await engine.evaluate(request({ command: "rm -rf build" }), temp.session);
    expect(fs.readFileSync(files.project, "utf8")).toContain("git push origin main");
    expect(fs.readFileSync(files.global, "utf8")).toContain("rm -rf build");
    const next = new PermissionEngine({ grants: new GrantStore(files) });
    expect((await next.classify(push())).action).toBe("announce_then_run");
    expect((await next.classify(request({ command: "rm -rf build" }))).action).toBe("announce_then_run");
  });

  it("a grant file that is broken is an AirError", () => {
    const file = grants_file(temp.project.layout.local);
    fs.writeFileSync(file, "grants: 3\n");
    expect(() => new GrantStore({ project: file })).toThrow(/permission-grants.yaml is invalid/);
  });

  it("credential prompts offer only `once`, and no grant of a wider scope settles them", async () => {
    const answers = scripted_answers({ answer: "allow", grant_scope: "once", resolved_by: "user" });
    const engine = new PermissionEngine({ answerer: answers, policy: { mode: "accept-edits", rules: [] } });
    expect((await engine.evaluate(request({ writes: [".env"] }), temp.session)).action).toBe("allow");
    expect(answers.asked[0]!.offered_scopes).toEqual(["once"]);
    engine.grants.add("allow", "session", [{ kind: "path", op: "write", path: ".env" }]);
    expect((await engine.classify(request({ writes: [".env"] }))).action).toBe("ask_user");
  });
});

describe("prompts that outlive their runtime", () => {
  it("a prompt left pending is read back, asked again, and its answer covers the call made again — once", async () => {
    const first = new PermissionEngine({ answerer: { answer: () => new Promise(() => undefined) } });
    void first.evaluate(request({ command: "git push origin main" }), temp.session);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const { pending, answered } = prompts_of(temp.session);
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({
      tool_name: "shell.run",
      commands: ["git push origin main"],
      subjects: [{ kind: "command", command: "git push origin main" }],
    });
    expect(answered).toEqual([]);

    const answers = scripted_answers({ answer: "allow", grant_scope: "once", resolved_by: "user" });
    const resumed = new PermissionEngine({ answerer: answers });
    expect(await resumed.resume_prompts(pending, answered, temp.session)).toBe(1);
    expect(prompts_of(temp.session).pending).toEqual([]);
    expect((await resumed.evaluate(request({ command: "git push origin main" }), temp.session)).action).toBe("announce_then_run");
    expect((await resumed.classify(request({ command: "git push origin main" }))).action).toBe("ask_user");
  });

  it("a prompt is read back as the engine asked it (its schema's shape), the question standing in for the reason", async () => {
    const asked: PermissionPrompt[] = [];
    const engine = new PermissionEngine({
      answerer: {
        answer: (prompt) => {
          asked.push(prompt);
          return new Promise(() => undefined);
        },
      },
    });
    void engine.evaluate(request({ command: "git push origin main && curl -sS https://example.com" }), temp.session);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(asked).toHaveLength(1);
    const prompt = asked[0]!;
    expect(v.parse(PromptSchema, prompt)).toEqual(prompt);
    expect(prompts_of(temp.session).pending).toEqual([{ ...prompt, reason: prompt.question }]);
  });

  it("session grants answered before a restart are restored", async () => {
    const engine = new PermissionEngine({ answerer: scripted_answers({ answer: "allow", grant_scope: "session", resolved_by: "user" }) });
    await engine.evaluate(request({ command: "git push origin main" }), temp.session);
    const { pending, answered } = prompts_of(temp.session);
    const restarted = new PermissionEngine();
    await restarted.resume_prompts(pending, answered, temp.session);
    expect((await restarted.classify(request({ command: "git push origin main" }))).action).toBe("announce_then_run");
  });
});

describe("LinePromptAnswerer", () => {
  const prompt: PermissionPrompt = {
    prompt_id: "prm_01JAAAAAAAAAAAAAAAAAAAAAAA" as PermissionPrompt["prompt_id"],
    tool_name: "shell.run",
    question: "Allow shell.run?",
    reason: "git push is a network command",
    risk_level: "medium",
    offered_scopes: ["once", "session"],
    subjects: [{ kind: "command", command: "git push origin main" }],
    categories: ["git_write", "network"],
    commands: ["git push origin main"],
  };

  it("shows the commands and categories, re-asks on an answer not offered, and takes a key", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = "";
    output.on("data", (chunk: Buffer) => (shown += chunk.toString()));
    const answerer = new LinePromptAnswerer(input, output);
    const answer = answerer.answer(prompt);
    input.write("g\n");
    input.write("s\n");
    expect(await answer).toEqual({ answer: "allow", grant_scope: "session", resolved_by: "user" });
    expect(shown).toContain("$ git push origin main");
    expect(shown).toContain("categories: git_write, network");
    expect(shown).toContain("answer one of");
    answerer.close();
  });

  it("denies when input ends or the call is cancelled", async () => {
    const input = new PassThrough();
    const answerer = new LinePromptAnswerer(input, new PassThrough());
    const controller = new AbortController();
    const cancelled = answerer.answer(prompt, controller.signal);
    controller.abort();
    expect(await cancelled).toMatchObject({ answer: "deny", resolved_by: "policy" });
    input.end();
    expect(await answerer.answer(prompt)).toMatchObject({ answer: "deny", resolved_by: "policy" });
  });
});

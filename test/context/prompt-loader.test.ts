import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PROMPTS_DIR, PromptLayerLoader } from "../../src/context/prompt-loader.js";
import { PromptLayer } from "../../src/contracts/prompt-layer.js";
import { AirFailure } from "../../src/contracts/errors.js";
import { TaskSpec } from "../../src/contracts/task.js";
import { minimal_task_spec } from "../fixtures/events.js";
import { REPO_ROOT } from "../fixtures/cli.js";

let work: string;
let root: string;

beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "air-prompts-"));
  root = path.join(work, "project");
  fs.mkdirSync(path.join(root, ".air", "shared", "rules"), { recursive: true });
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

function write(relative: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
  fs.writeFileSync(path.join(root, relative), text);
}

function rules(): { id: string; text: string; source?: string }[] {
  return new PromptLayerLoader().load_project_rules(root).map(({ id, text, source }) => ({ id, text, ...(source === undefined ? {} : { source }) }));
}

describe("PromptLayerLoader: shipped prompts", () => {
  it("loads L0 and the role prompts from prompts/ as immutable, stable layers", () => {
    const loader = new PromptLayerLoader();
    const invariant = loader.load_runtime_invariant();
    expect(invariant).toMatchObject({ level: "runtime_invariant", id: "runtime-invariant", immutable: true, stable: true });
    expect(invariant.text).toBe(fs.readFileSync(path.join(REPO_ROOT, "prompts", "runtime-invariant.md"), "utf8").trimEnd());
    for (const role of ["executor", "main", "compactor"] as const) {
      const layer = loader.load_role(role);
      expect(v.parse(PromptLayer, layer)).toMatchObject({ level: "role", id: `role/${role}`, immutable: true, stable: true });
      expect(layer.token_estimate).toBe(Math.ceil(layer.text.length / 4));
    }
    expect(loader.load_role("main").text).toContain("Main Agent");
    expect(loader.load_role("main").text).toContain("classify_request");
    expect(loader.load_role("executor").text).toContain("Read a file before you edit it");
  });

  it("finds prompts/ at the package root from src/ and from dist/, and the package ships it", () => {
    expect(PROMPTS_DIR).toBe(path.join(REPO_ROOT, "prompts") + path.sep);
    const from_dist = fileURLToPath(new URL("../../prompts/", pathToFileURL(path.join(REPO_ROOT, "dist", "context", "prompt-loader.js"))));
    expect(from_dist).toBe(PROMPTS_DIR);
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { files: string[] };
    expect(manifest.files).toContain("prompts");
  });

  it("a missing prompt resource is a system_error that says to reinstall", () => {
    const loader = new PromptLayerLoader({ prompts_dir: path.join(work, "no-prompts") });
    let failure: unknown;
    try {
      loader.load_role("reviewer");
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(AirFailure);
    expect((failure as AirFailure).error).toMatchObject({ kind: "system_error", user_action: expect.stringMatching(/reinstall/) });
    expect((failure as AirFailure).error.message).toContain(path.join(work, "no-prompts", "roles", "reviewer.md"));
  });
});

describe("PromptLayerLoader: project rules (L3)", () => {
  it("reads .air/shared/rules/*.md by name, then AGENTS.md and CLAUDE.md, each labelled with its path", () => {
    write(".air/shared/rules/b-tests.md", "Every change comes with a test.\n");
    write(".air/shared/rules/a-style.md", "Two spaces, no tabs.\n\n");
    write(".air/shared/rules/notes.txt", "not a rule file");
    write(".air/shared/rules/empty.md", "  \n");
    write("AGENTS.md", "Run npm test before you finish.");
    write("CLAUDE.md", "Never touch vendor/.");
    expect(rules()).toEqual([
      { id: "rules/a-style.md", source: ".air/shared/rules/a-style.md", text: "# Project rules: .air/shared/rules/a-style.md\n\nTwo spaces, no tabs." },
      {
        id: "rules/b-tests.md",
        source: ".air/shared/rules/b-tests.md",
        text: "# Project rules: .air/shared/rules/b-tests.md\n\nEvery change comes with a test.",
      },
      { id: "AGENTS.md", source: "AGENTS.md", text: "# Project rules: AGENTS.md\n\nRun npm test before you finish." },
      { id: "CLAUDE.md", source: "CLAUDE.md", text: "# Project rules: CLAUDE.md\n\nNever touch vendor/." },
    ]);
    const layer = new PromptLayerLoader().load_project_rules(root)[0]!;
    expect(layer).toMatchObject({ level: "project_rules", immutable: false, stable: true });
  });

  it("has no layers in a project without rules", () => {
    fs.rmSync(path.join(root, ".air"), { recursive: true });
    expect(rules()).toEqual([]);
  });

  it("does not read an AGENTS.md that is a symlink out of the project, and says so", () => {
    const outside = path.join(work, "secret.txt");
    fs.writeFileSync(outside, "the contents of a file outside the project");
    fs.symlinkSync(outside, path.join(root, "AGENTS.md"));
    const [layer] = rules();
    expect(layer!.text).toBe("# Project rules: AGENTS.md\n\n(not read: AGENTS.md resolves to outside project)");
    expect(JSON.stringify(rules())).not.toContain("the contents of a file outside");
  });

  it("does not read a rule file that links into .git or .air/local", () => {
    write(".git/config", "[core]\n\tfsmonitor = evil");
    write(".air/local/permission-grants.yaml", "grants: everything");
    fs.symlinkSync(path.join(root, ".git", "config"), path.join(root, ".air", "shared", "rules", "git.md"));
    fs.symlinkSync(path.join(root, ".air", "local", "permission-grants.yaml"), path.join(root, "CLAUDE.md"));
    const read = rules();
    expect(read.map((layer) => layer.text)).toEqual([
      "# Project rules: .air/shared/rules/git.md\n\n(not read: .air/shared/rules/git.md resolves to project git internal)",
      "# Project rules: CLAUDE.md\n\n(not read: CLAUDE.md resolves to project air local)",
    ]);
  });

  it("does not read a hard-linked rule file, whose other name may be anywhere", () => {
    const outside = path.join(work, "id_rsa");
    fs.writeFileSync(outside, "private key material");
    fs.linkSync(outside, path.join(root, "AGENTS.md"));
    expect(JSON.stringify(rules())).not.toContain("private key material");
    expect(rules()[0]!.text).toMatch(/^# Project rules: AGENTS\.md\n\n\(not read: /);
  });

  it("reads a CLAUDE.md that links to AGENTS.md once, and points the second name to the first", () => {
    write("AGENTS.md", "Keep functions short.");
    fs.symlinkSync("AGENTS.md", path.join(root, "CLAUDE.md"));
    expect(rules().map((layer) => layer.text)).toEqual([
      "# Project rules: AGENTS.md\n\nKeep functions short.",
      "# Project rules: CLAUDE.md\n\n(the same file as AGENTS.md)",
    ]);
  });

  it("redacts a secret written into a rule file", () => {
    write("AGENTS.md", "Deploy with ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 set.");
    const [layer] = rules();
    expect(layer!.text).not.toContain("sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789");
    expect(layer!.text).toContain("Deploy with");
  });
});

describe("PromptLayerLoader: task context (L5)", () => {
  it("renders title, description, acceptance criteria, scope and verification commands", () => {
    const task = v.parse(
      TaskSpec,
      minimal_task_spec({
        title: "Fix sum_to",
        description: "sum_to(n) skips n.",
        acceptance_criteria: ["ctest passes"],
        scope: { write_area: "src", denied_paths: ["vendor"] },
        verification: { commands: ["cmake --build build && ctest"], required: true, fallback_allowed: false },
      }),
    );
    const [layer] = new PromptLayerLoader().load_task_context(task, root);
    expect(layer).toMatchObject({ level: "task_spec", id: `task/${task.id}`, immutable: false, stable: true });
    expect(layer!.text).toBe(
      [
        "# Task specification: Fix sum_to",
        "",
        "sum_to(n) skips n.",
        "",
        "## Acceptance criteria",
        "- ctest passes",
        "",
        "## Scope",
        "- write area: src",
        "- denied paths: vendor",
        "",
        "## Verification (run by air after you finish)",
        "- `cmake --build build && ctest`",
        "",
        `Project root: ${root}`,
      ].join("\n"),
    );
  });
});

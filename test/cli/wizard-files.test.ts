/**
 * What the first-run wizard writes for each choice, and how: all files at once or none, the key only in
 * credentials.yaml (mode 0600), models.yaml naming it by auth_ref.
 */
import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import YAML from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { AirConfigFile, read_air_config } from "../../src/cli/wizard/air-config.js";
import { commit_files } from "../../src/cli/wizard/commit.js";
import { plan_home_files, plan_project_files, type PlannedFile, type WizardChoices } from "../../src/cli/wizard/plan.js";
import { PermissionsFile } from "../../src/permissions/policy.js";
import { CredentialsFile } from "../../src/providers/credentials-file.js";
import { ModelsFile } from "../../src/providers/models-file.js";
import { TempDirs } from "../fixtures/processes.js";

const dirs = new TempDirs();
afterAll(() => dirs.cleanup());

const KEY = "sk-ant-typed-in-the-wizard-4242424242";

const typed_anthropic: WizardChoices = {
  provider: "anthropic",
  key: { source: "typed", value: KEY },
  model: "claude-sonnet-4-5",
  permission_mode: "accept-edits",
};

function file_named(files: readonly PlannedFile[], name: string): PlannedFile | undefined {
  return files.find((file) => path.basename(file.path) === name);
}

function parsed<S extends v.GenericSchema>(schema: S, file: PlannedFile | undefined): v.InferOutput<S> {
  expect(file).toBeDefined();
  return v.parse(schema, YAML.parse(file!.content));
}

describe("plan_home_files", () => {
  it("stores a typed key in credentials.yaml (0600) and names it by auth_ref in models.yaml", () => {
    const home = dirs.make("air-home-");
    const files = plan_home_files(home, typed_anthropic, {});

    expect(files.map((file) => path.basename(file.path)).sort()).toEqual(["config.yaml", "credentials.yaml", "models.yaml", "permissions.yaml"]);
    expect(file_named(files, "credentials.yaml")!.mode).toBe(0o600);
    expect(parsed(CredentialsFile, file_named(files, "credentials.yaml")).keys).toEqual({ anthropic: KEY });
    const models = parsed(ModelsFile, file_named(files, "models.yaml"));
    expect(models.default_provider).toBe("anthropic");
    expect(models.providers?.anthropic).toEqual({ auth_ref: "anthropic", default_model: "claude-sonnet-4-5" });
    expect(parsed(AirConfigFile, file_named(files, "config.yaml"))).toEqual({
      version: 1,
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      permission_mode: "accept-edits",
    });
    expect(parsed(PermissionsFile, file_named(files, "permissions.yaml")).mode).toBe("accept-edits");
  });

  it("never puts the key in any file but credentials.yaml", () => {
    const files = plan_home_files(dirs.make("air-home-"), typed_anthropic, {});
    for (const file of files.filter((entry) => path.basename(entry.path) !== "credentials.yaml")) expect(file.content).not.toContain(KEY);
  });

  it("stores nothing for a key kept in the environment, and names no auth_ref", () => {
    const choices: WizardChoices = {
      provider: "openrouter",
      key: { source: "env", variable: "OPENROUTER_API_KEY" },
      model: "anthropic/claude-sonnet-4.5",
      permission_mode: "default",
    };
    const files = plan_home_files(dirs.make("air-home-"), choices, {});

    expect(file_named(files, "credentials.yaml")).toBeUndefined();
    expect(parsed(ModelsFile, file_named(files, "models.yaml")).providers?.openrouter).toEqual({ default_model: "anthropic/claude-sonnet-4.5" });
  });

  it("writes the server of an OpenAI-compatible provider, with no key when it takes none", () => {
    const choices: WizardChoices = {
      provider: "openai_compatible",
      base_url: "http://127.0.0.1:11434/v1",
      key: { source: "none" },
      model: "qwen2.5-coder:7b",
      permission_mode: "plan",
    };
    const files = plan_home_files(dirs.make("air-home-"), choices, {});

    expect(file_named(files, "credentials.yaml")).toBeUndefined();
    const models = parsed(ModelsFile, file_named(files, "models.yaml"));
    expect(models.default_provider).toBe("openai_compatible");
    expect(models.providers?.openai_compatible).toEqual({ base_url: "http://127.0.0.1:11434/v1", default_model: "qwen2.5-coder:7b" });
  });

  it("records the offline demo in config.yaml only: no provider, no key", () => {
    const choices: WizardChoices = { provider: "scripted_demo", key: { source: "none" }, model: "scripted-model", permission_mode: "default" };
    const files = plan_home_files(dirs.make("air-home-"), choices, {});

    expect(files.map((file) => path.basename(file.path)).sort()).toEqual(["config.yaml", "permissions.yaml"]);
    expect(parsed(AirConfigFile, file_named(files, "config.yaml")).provider).toBe("scripted_demo");
  });

  it("keeps what the existing files hold, and drops a key models.yaml held in favour of the stored one", () => {
    const existing = {
      models: {
        default_provider: "openai" as const,
        providers: { anthropic: { api_key: "sk-ant-old-key-000000000000", headers: { "x-team": "a" } } },
        models: { "my-model": { context_window: 32768 } },
      },
      credentials: { version: 1 as const, keys: { other: "sk-other-111111111111" } },
      permissions: { version: 1 as const, allow: [{ command: "npm test" }], ask: [], deny: [] },
    };
    const files = plan_home_files(dirs.make("air-home-"), typed_anthropic, existing);

    const models = parsed(ModelsFile, file_named(files, "models.yaml"));
    expect(models.providers?.anthropic).toEqual({ headers: { "x-team": "a" }, auth_ref: "anthropic", default_model: "claude-sonnet-4-5" });
    expect(models.models).toEqual({ "my-model": { context_window: 32768 } });
    expect(file_named(files, "models.yaml")!.content).not.toContain("sk-ant-old-key");
    expect(parsed(CredentialsFile, file_named(files, "credentials.yaml")).keys).toEqual({ other: "sk-other-111111111111", anthropic: KEY });
    const permissions = parsed(PermissionsFile, file_named(files, "permissions.yaml"));
    expect(permissions.allow).toEqual([{ command: "npm test" }]);
    expect(permissions.mode).toBe("accept-edits");
  });
});

describe("plan_project_files", () => {
  it("gives a project a starter rules file and a valid permissions.yaml, never over its own", () => {
    const root = dirs.make("project-");
    const files = plan_project_files(root);

    expect(files.map((file) => path.relative(root, file.path)).sort()).toEqual([".air/shared/permissions.yaml", ".air/shared/rules/project.md"]);
    expect(files.every((file) => file.only_if_absent === true)).toBe(true);
    const permissions = parsed(
      PermissionsFile,
      files.find((file) => file.path.endsWith("permissions.yaml")),
    );
    expect(permissions.mode).toBeUndefined();
    expect(permissions.ask).toEqual([{ command: "git push*" }]);
  });
});

describe("commit_files", () => {
  it("creates credentials.yaml with mode 0600 whatever the umask", () => {
    const home = path.join(dirs.make("air-"), "home");
    const previous = process.umask(0);
    try {
      commit_files(plan_home_files(home, typed_anthropic, {}));
    } finally {
      process.umask(previous);
    }

    expect(fs.statSync(path.join(home, "credentials.yaml")).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(home, "models.yaml")).mode & 0o777).toBe(0o644);
    expect(read_air_config(home)?.provider).toBe("anthropic");
    expect(fs.readdirSync(home).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("writes none when one fails: earlier files restored, new ones and new folders removed, no temp files left", () => {
    const base = dirs.make("air-");
    const home = path.join(base, "home");
    fs.mkdirSync(home);
    fs.writeFileSync(path.join(home, "permissions.yaml"), "version: 1\n");
    const files = plan_home_files(home, typed_anthropic, {});
    // A folder where a file should go: its rename fails after the others were renamed.
    const blocked = path.join(base, "project", ".air", "shared", "rules", "project.md");
    fs.mkdirSync(path.join(blocked, "inside"), { recursive: true });
    const before = fs.readdirSync(home).sort();

    expect(() => commit_files([...files, { path: blocked, content: "x", mode: 0o644 }])).toThrow();

    expect(fs.readdirSync(home).sort()).toEqual(before);
    expect(fs.readFileSync(path.join(home, "permissions.yaml"), "utf8")).toBe("version: 1\n");
    expect(fs.readdirSync(path.dirname(blocked))).toEqual(["project.md"]);
  });

  it("removes the folders it created when a write fails", () => {
    const base = dirs.make("air-");
    const home = path.join(base, "new", "home");
    const blocked = path.join(base, "file-not-folder");
    fs.writeFileSync(blocked, "");

    expect(() => commit_files([...plan_home_files(home, typed_anthropic, {}), { path: path.join(blocked, "x.yaml"), content: "x", mode: 0o644 }])).toThrow();

    expect(fs.readdirSync(base)).toEqual(["file-not-folder"]);
  });

  it("leaves a project's own rules and permissions alone", () => {
    const root = dirs.make("project-");
    fs.mkdirSync(path.join(root, ".air", "shared"), { recursive: true });
    fs.writeFileSync(path.join(root, ".air", "shared", "permissions.yaml"), "mode: plan\n");

    const written = commit_files(plan_project_files(root));

    expect(written.map((file) => path.relative(root, file))).toEqual([".air/shared/rules/project.md"]);
    expect(fs.readFileSync(path.join(root, ".air", "shared", "permissions.yaml"), "utf8")).toBe("mode: plan\n");
  });
});

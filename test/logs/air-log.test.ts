/**
 * `air.log` (seeds 003 §15): one line per operational error, redacted. No secret a user has — in the
 * environment, in a configuration file, in what a server or a tool sent back — reaches it, even when the
 * failure quotes it.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { log_paths } from "../../src/logs/log.js";
import { require_build } from "../e2e/helpers.js";
import { run_air, temp_workspace } from "../fixtures/cli.js";
import { adapter_for, ask, scripted_server } from "../providers/scripted.js";

const ANTHROPIC_KEY = "sk-ant-api03-airlogtest-0123456789abcdefghijklmnop";
/** A secret of no known shape: only its value, in a credential variable, marks it. */
const ENV_TOKEN = "plain93847value-of-a-service-token";
const CONFIG_KEY = "cfg48213key-from-models-yaml";
const SERVER_TOKEN = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";

let workspace: ReturnType<typeof temp_workspace>;
let project: string;
let env: NodeJS.ProcessEnv;

function air_log(): string {
  return fs.readFileSync(log_paths(env.AIR_HOME!).air_log, "utf8");
}

beforeAll(() => {
  require_build();
  workspace = temp_workspace("air-log-");
  project = path.join(workspace.root, "project");
  fs.mkdirSync(project);
  env = { ...workspace.env, ANTHROPIC_API_KEY: ANTHROPIC_KEY, MY_SERVICE_TOKEN: ENV_TOKEN };
  expect(run_air(["init", "--yes"], { cwd: project, env }).status).toBe(0);
});
afterAll(() => workspace.cleanup());

describe("air.log", () => {
  it("records a failed command with the environment's secrets redacted, though the failure quoted them", () => {
    for (const secret of [ENV_TOKEN, ANTHROPIC_KEY]) {
      const run = run_air(["tasks", "--session", secret], { cwd: project, env });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`no session ${secret}`);
    }
    const lines = air_log().trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\S+Z ERROR \[cli\] air tasks failed: user_error: no session \[REDACTED:MY_SERVICE_TOKEN\] in this project/);
    expect(lines[1]).toMatch(/no session \[REDACTED:(ANTHROPIC_API_KEY|anthropic_key)\]/);
    expect(air_log()).not.toContain(ENV_TOKEN);
    expect(air_log()).not.toContain(ANTHROPIC_KEY);
  });

  it("redacts a key kept in the air home's models.yaml, read when the first record is written", () => {
    fs.writeFileSync(path.join(env.AIR_HOME!, "models.yaml"), `providers:\n  anthropic:\n    api_key: ${CONFIG_KEY}\n`);
    const run = run_air(["history", "--session", CONFIG_KEY], { cwd: project, env });
    expect(run.status).toBe(1);
    expect(air_log()).toContain("air history failed: user_error: no session [REDACTED:config_secret]");
    expect(air_log()).not.toContain(CONFIG_KEY);
  });

  it("records a model request that failed for good once, with what the server sent back redacted", async () => {
    const saved = process.env.AIR_HOME;
    process.env.AIR_HOME = env.AIR_HOME;
    try {
      const echo = `denied: request carried ${SERVER_TOKEN} and authorization: Bearer ${ANTHROPIC_KEY}`;
      const server = await scripted_server({
        script: { turns: { main: [{ error: { status: 529 } }, { error: { status: 400, message: echo } }] } },
      });
      const before = air_log().split("\n").length;
      await expect(adapter_for(server).complete(ask("hello"), { requester: "main" })).rejects.toThrow(/denied/);
      const added = air_log()
        .trim()
        .split("\n")
        .slice(before - 1);
      expect(added).toHaveLength(1);
      expect(added[0]).toMatch(/ERROR \[provider\] a model request failed: provider_error: .*denied: request carried \[REDACTED:github_token\]/);
      expect(air_log()).not.toContain(SERVER_TOKEN);
      expect(air_log()).not.toContain(ANTHROPIC_KEY);
    } finally {
      if (saved === undefined) delete process.env.AIR_HOME;
      else process.env.AIR_HOME = saved;
    }
  });
});

/**
 * Where a lone code task works (config `lone_task`): in the main checkout by default, as a single agent does;
 * with `worktree`, in a worktree of its own whose work lands through the merge queue. The real runtime,
 * worker process and AnthropicAdapter against the scripted model server, in a real git checkout.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { start_runtime } from "../../src/actors/runtime/runtime.js";
import type { LoneTask } from "../../src/actors/runtime/task-workspaces.js";
import { DEFAULT_TASK_DEFAULTS } from "../../src/cli/run-requirement.js";
import { workspaces } from "../../src/db/schema.js";
import { permissions_for_project } from "../../src/permissions/session-permissions.js";
import { ProviderManager } from "../../src/providers/manager.js";
import { start_scripted_server } from "../../src/providers/scripted/server.js";
import type { ScriptInput } from "../../src/providers/scripted/script.js";
import { commit_files, git, init_repo } from "../fixtures/git-repo.js";
import { open_temp_session, set_air_home, type TempSession } from "../fixtures/session.js";

const KEY = "sk-lone-task-test";

const SCRIPT: ScriptInput = {
  turns: {
    main: [
      {
        reply: {
          content: [
            {
              type: "tool_use",
              name: "classify_request",
              input: {
                intent: "task",
                title: "Write the note",
                description: "Write today's note in notes/today.md.",
                acceptance_criteria: [],
                verification_commands: [],
                write_area: ["notes/**"],
              },
            },
          ],
        },
      },
    ],
    executor: [
      { reply: { content: [{ type: "tool_use", name: "fs.write", input: { path: "notes/today.md", content: "written\n" } }] } },
      { reply: { content: [{ type: "text", text: "Wrote notes/today.md." }] } },
    ],
  },
};

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function run_lone_task(lone_task: LoneTask | undefined): Promise<TempSession> {
  const temp = open_temp_session();
  cleanups.push(() => temp.cleanup());
  cleanups.push(set_air_home(path.join(temp.root, "air-home")));
  const root = temp.project.layout.root;
  init_repo(root);
  commit_files(root, "start", { "README.md": "notes live in notes/\n", ".gitignore": ".air/\n" });
  const server = await start_scripted_server({ script: SCRIPT, api_key: KEY });
  cleanups.push(() => server.close());
  const providers = ProviderManager.load({
    home: temp.root,
    env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
    retry: { sleep: async () => undefined },
  });
  const runtime = await start_runtime(temp.session, {
    provider: providers.for_session(),
    permissions: permissions_for_project(temp.project.layout, { mode: "accept-edits" }),
    task_defaults: DEFAULT_TASK_DEFAULTS,
    ...(lone_task === undefined ? {} : { lone_task }),
  });
  cleanups.push(() => runtime.stop());
  const outcome = await runtime.submit("write today's note");
  expect(outcome).toMatchObject({ kind: "executed", run: { status: "completed" } });
  expect(fs.readFileSync(path.join(root, "notes/today.md"), "utf8")).toBe("written\n");
  expect(git(root, "log", "--format=%s").trim()).toBe("start");
  return temp;
}

describe("a lone code task", () => {
  it("works in the main checkout by default: no workspace, no merge", async () => {
    const temp = await run_lone_task(undefined);
    expect(temp.session.connection.db.select().from(workspaces).all()).toEqual([]);
    expect(temp.session.store.query({ types: ["workspace.merge.started"] })).toEqual([]);
  });

  it("works in a worktree of its own with lone_task worktree, and lands through the merge queue uncommitted", async () => {
    const temp = await run_lone_task("worktree");
    expect(temp.session.connection.db.select({ strategy: workspaces.strategy, status: workspaces.status }).from(workspaces).all()).toEqual([
      { strategy: "worktree", status: "cleaned" },
    ]);
    expect(temp.session.store.query({ types: ["workspace.merge.completed"] })).toHaveLength(1);
    const root = temp.project.layout.root;
    expect(git(root, "status", "--porcelain").trim()).toBe("?? notes/");
    expect(git(root, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
  });
});

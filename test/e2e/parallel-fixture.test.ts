/**
 * The parallel fixture on its own, without the runtime: its scripted plan is a valid team plan (disjoint
 * write areas, the app task on two of the libraries), each worker's conversation is keyed by its task and
 * edits only its write area, and in a copy of the project each task's verification fails before that
 * conversation's edits and passes after them — the app's only once the libraries it uses are fixed.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { afterAll, describe, expect, it } from "vitest";
import { in_write_area } from "../../src/permissions/write-area.js";
import { load_script, type Conversation } from "../../src/providers/scripted/script.js";
import { TempDirs } from "../fixtures/processes.js";
import { SHIPPED_FIXTURES } from "./helpers.js";

const FIXTURE = path.join(SHIPPED_FIXTURES, "parallel");
const script = load_script(path.join(FIXTURE, "script.yaml"));

const Plan = v.object({
  intent: v.literal("plan"),
  tasks: v.array(
    v.object({
      key: v.string(),
      title: v.string(),
      verification_commands: v.array(v.string()),
      write_area: v.array(v.string()),
      depends_on: v.object({ hard: v.array(v.string()), soft: v.array(v.string()) }),
    }),
  ),
});
type PlannedTask = v.InferOutput<typeof Plan>["tasks"][number];

function the_plan(): PlannedTask[] {
  const [turn] = script.turns.main ?? [];
  const call = turn?.kind === "reply" ? turn.reply.content.find((block) => block.type === "tool_use" && block.name === "classify_request") : undefined;
  return v.parse(Plan, call?.type === "tool_use" ? call.input : undefined).tasks;
}

const Edit = v.object({ path: v.string(), old_string: v.string(), new_string: v.string() });

/** The fs.edit calls a conversation makes, in order. */
function edits_of(conversation: Conversation): v.InferOutput<typeof Edit>[] {
  return conversation.turns.flatMap((turn) =>
    turn.kind === "reply"
      ? turn.reply.content.flatMap((block) => (block.type === "tool_use" && block.name === "fs.edit" ? [v.parse(Edit, block.input)] : []))
      : [],
  );
}

function conversation_of(task: PlannedTask): Conversation {
  const found = script.conversations.find((conversation) => conversation.match.task_title === task.title);
  if (found === undefined) throw new Error(`no conversation is keyed by the title of task ${task.key}`);
  return found;
}

/** The top folder of each glob (`libs/alpha/**` → `libs/alpha`): the fixture's areas are folders, so this decides overlap. */
function folders(area: readonly string[]): string[] {
  return area.map((glob) => glob.replace(/\/\*\*$/, ""));
}

describe("the parallel fixture's plan", () => {
  const tasks = the_plan();

  it("has three independent tasks and an app task whose hard dependencies are two of them", () => {
    expect(tasks.map((task) => [task.key, task.depends_on.hard])).toEqual([
      ["alpha", []],
      ["beta", []],
      ["gamma", []],
      ["app", ["alpha", "beta"]],
    ]);
  });

  it("gives the tasks pairwise disjoint write areas, each with a build folder of its own", () => {
    const all = tasks.flatMap((task) => folders(task.write_area));
    for (const a of all) for (const b of all) if (a !== b) expect(a.startsWith(`${b}/`), `${a} inside ${b}`).toBe(false);
    expect(new Set(all).size).toBe(all.length);
    for (const task of tasks) expect(task.write_area).toContain(`build/${task.key}/**`);
  });

  it("keys one conversation by each task's title, and its edits stay in the task's write area", () => {
    expect(script.conversations.map((conversation) => conversation.match)).toEqual(tasks.map((task) => ({ requester: "executor", task_title: task.title })));
    for (const task of tasks) {
      const edits = edits_of(conversation_of(task));
      expect(edits.length, task.key).toBeGreaterThan(0);
      for (const edit of edits) expect(in_write_area(edit.path, task.write_area), `${task.key}: ${edit.path}`).toBe(true);
    }
  });
});

const missing_tools = ["cmake", "ctest", "c++"].filter((tool) => spawnSync("bash", ["-c", `command -v ${tool}`]).status !== 0);
if (missing_tools.length > 0) console.warn(`[e2e] skipping the parallel fixture's builds: ${missing_tools.join(", ")} not found on PATH`);

describe.skipIf(missing_tools.length > 0)("the parallel fixture's project, edited as its conversations edit it", () => {
  const dirs = new TempDirs();
  afterAll(() => dirs.cleanup());
  const tasks = the_plan();
  const root = path.join(dirs.make("air-parallel-fixture-"), "project");
  fs.cpSync(path.join(FIXTURE, "project"), root, { recursive: true });

  const verify = (task: PlannedTask) => {
    const run = spawnSync("bash", ["--noprofile", "--norc", "-c", task.verification_commands.join(" && ")], { cwd: root, encoding: "utf8" });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  };
  const apply = (task: PlannedTask) => {
    for (const edit of edits_of(conversation_of(task))) {
      const file = path.join(root, edit.path);
      const text = fs.readFileSync(file, "utf8");
      expect(text.split(edit.old_string).length - 1, `${task.key}: ${edit.old_string} occurs once in ${edit.path}`).toBe(1);
      fs.writeFileSync(file, text.replace(edit.old_string, edit.new_string));
    }
  };

  const [alpha, beta, gamma, app] = tasks;
  if (alpha === undefined || beta === undefined || gamma === undefined || app === undefined) throw new Error("the plan has four tasks");
  // Each step configures and builds with cmake on a machine shared by other tests: minutes, not the default 30 s.
  const BUILD_TIMEOUT_MS = 180_000;

  it("fails every task's verification before its edits", { timeout: BUILD_TIMEOUT_MS }, () => {
    for (const task of tasks) expect(verify(task).status, `${task.key} before its edits`).not.toBe(0);
  });

  it("fails the app's verification after its own edits while alpha and beta are not fixed", { timeout: BUILD_TIMEOUT_MS }, () => {
    apply(app);
    expect(verify(app).output).toContain("FAIL clamp_day(2000, 2, 31)");
  });

  it("passes each library's verification after its conversation's edits", { timeout: BUILD_TIMEOUT_MS }, () => {
    for (const task of [alpha, beta, gamma]) {
      apply(task);
      const after = verify(task);
      expect(after.status, `${task.key}:\n${after.output}`).toBe(0);
      expect(after.output).toContain("100% tests passed");
    }
  });

  it("passes the app's verification, and the fixture's whole ctest, once all four are done", { timeout: BUILD_TIMEOUT_MS }, () => {
    expect(verify(app).status).toBe(0);
    const fixture = v.parse(v.object({ verify: v.string() }), JSON.parse(fs.readFileSync(path.join(FIXTURE, "fixture.json"), "utf8")));
    expect(spawnSync("bash", ["--noprofile", "--norc", "-c", fixture.verify], { cwd: root }).status).toBe(0);
  });
});

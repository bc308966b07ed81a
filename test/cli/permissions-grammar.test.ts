/**
 * `air permissions check` against the second adversarial suite (issue 11), in `default` mode, in a project
 * with a secret `.env`, a symlink into `~/.ssh`, a hard link to the private key and `~/.aws` credentials:
 * no dangerous command allowed, at least 95 % of the benign look-alikes allowed without a prompt, and
 * every allowed command reporting the grammar each command it runs matched.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { GRAMMAR_CASES } from "../fixtures/permission-attacks/index.js";
import { type TrapProject, trap_project } from "../fixtures/permission-traps.js";
import { set_air_home } from "../fixtures/session.js";

type Report = { decision: string; reason: string; commands: { argv: string[]; rule?: string; manual?: string }[] };

let project: TrapProject;
let restore_air_home: () => void;
let home_before: string | undefined;
beforeAll(() => {
  project = trap_project();
  restore_air_home = set_air_home(path.join(project.root, "..", "air-home"));
  home_before = process.env.HOME;
  process.env.HOME = project.home;
});
afterAll(() => {
  if (home_before === undefined) delete process.env.HOME;
  else process.env.HOME = home_before;
  restore_air_home();
  project.cleanup();
});

async function check(command: string): Promise<Report> {
  let out = "";
  await main(["permissions", "check", "--json", "--cwd", project.root, "--command", command], {
    out: (text) => (out += text),
    err: () => undefined,
    cwd: project.root,
  });
  return JSON.parse(out) as Report;
}

const ALLOWED = ["allow", "announce_then_run"];
const of = (expected: string) => GRAMMAR_CASES.filter((c) => c.expect === expected).map((c) => [c.why, c.command] as const);

describe("air permissions check: the second adversarial suite", () => {
  it("has at least 200 dangerous cases and a benign look-alike for every class", () => {
    expect(of("dangerous").length).toBeGreaterThanOrEqual(200);
    expect(of("benign").length + of("benign_asking").length).toBeGreaterThanOrEqual(100);
  });

  it.each(of("dangerous"))("never allows (%s): %j", async (_, command) => {
    const report = await check(command);
    expect(ALLOWED, `${command} → ${report.decision}: ${report.reason}`).not.toContain(report.decision);
  });

  it.each(of("benign"))("allows without a prompt (%s): %j, naming the rule of every command", async (_, command) => {
    const report = await check(command);
    expect(ALLOWED, `${command} → ${report.decision}: ${report.reason}`).toContain(report.decision);
    for (const run of report.commands) expect(run.rule, `${run.argv.join(" ")} has no rule`).toEqual(expect.any(String));
  });

  it.each(of("benign_asking"))("asks, for a stated reason (%s): %j", async (_, command) => {
    expect((await check(command)).decision).toBe("ask_user");
  });

  it("allows at least 95 % of the benign look-alikes without a prompt", () => {
    const benign = of("benign").length;
    expect(benign / (benign + of("benign_asking").length)).toBeGreaterThanOrEqual(0.95);
  });
});

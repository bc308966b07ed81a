/**
 * The cppcheck grammar (issue 13): what cppcheck 2.10's options read, write and run, from the arguments alone;
 * the verdicts of the static-analysis cases of the second adversarial suite in its trap project; and the command
 * cpp.static.cppcheck runs, judged routine by the PermissionEngine in `default` and `accept-edits` modes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PermissionMode } from "../../../../src/contracts/events/permission.js";
import type { ToolCategory } from "../../../../src/contracts/tool.js";
import type { Matched } from "../../../../src/permissions/command-risk/grammar/matched.js";
import { rule_of } from "../../../../src/permissions/command-risk/grammar/registry.js";
import { analyze_command } from "../../../../src/permissions/command-risk/index.js";
import { literal_word } from "../../../../src/permissions/command-risk/words.js";
import { PermissionEngine } from "../../../../src/permissions/engine.js";
import { CASES } from "../../../fixtures/permission-attacks/static-analysis.js";
import { type TrapProject, trap_project } from "../../../fixtures/permission-traps.js";

const TOOL_COMMAND = "cppcheck --xml --enable=warning,style,performance --project=build/air/compile_commands.json";
const ALLOWED = ["allow", "announce_then_run"];

let project: TrapProject;
let home_before: string | undefined;
beforeAll(() => {
  project = trap_project();
  home_before = process.env.HOME;
  process.env.HOME = project.home;
});
afterAll(() => {
  if (home_before === undefined) delete process.env.HOME;
  else process.env.HOME = home_before;
  project.cleanup();
});

function match(...args: string[]): Matched {
  const rule = rule_of("cppcheck");
  if (rule === undefined) throw new Error("cppcheck has no rule");
  return rule.match(args.map(literal_word));
}
const reads = (matched: Matched) => matched.reads.map(({ word }) => word.value);
const writes = (matched: Matched) => matched.writes.map(({ word }) => word.value);
const asks = (matched: Matched) => matched.findings.filter((finding) => finding.action === "ask_user").map((finding) => finding.reason);

const analysis = (command: string) => analyze_command(command, { cwd_real: project.root, root_real: project.root, home: project.home });

/** What the PermissionEngine decides in `mode` for `command`, run by shell.run or as cpp.static.cppcheck declares it. */
async function action_in(mode: PermissionMode, command: string, as: "shell.run" | "cpp.static.cppcheck" = "shell.run") {
  const engine = new PermissionEngine({ policy: { mode, rules: [] } });
  const tool: { category: ToolCategory; reads: string[] } =
    as === "shell.run" ? { category: "shell", reads: [] } : { category: "static_analysis", reads: ["build/air/compile_commands.json"] };
  return (
    await engine.classify({
      tool_name: as,
      category: tool.category,
      declared: { reads: tool.reads.length > 0, writes: false, executes: true, network: false },
      reads: tool.reads,
      writes: [],
      command: { command, cwd: "." },
      project_root: project.root,
    })
  ).action;
}

describe("cppcheck grammar", () => {
  it("names cppcheck 2.10's manual and reads the compilation database, the sources and the include folders", () => {
    const matched = match("--xml", "--project=build/air/compile_commands.json", "-I", "src", "-Iinclude", "src/main.cpp");
    expect(matched).toMatchObject({ rule: "cppcheck", manual: expect.stringContaining("cppcheck 2.10") });
    expect(reads(matched)).toEqual(["build/air/compile_commands.json", "src", "include", "src/main.cpp"]);
    expect([...matched.categories]).toEqual(["static_analysis"]);
    expect(asks(matched)).toEqual([]);
  });

  it("writes the report, the build folder, the plist folder, and the .dump files next to the sources it is given", () => {
    expect(writes(match("--output-file=build/r.xml", "--cppcheck-build-dir=build/cc", "--plist-output=build/plist", "src"))).toEqual([
      "build/r.xml",
      "build/cc",
      "build/plist",
    ]);
    expect(writes(match("--dump", "src", "build/x.cpp"))).toEqual(["src", "build/x.cpp"]);
  });

  it("asks for --dump over a project or a file list, whose sources it cannot see", () => {
    expect(asks(match("--dump", "--project=build/compile_commands.json"))).toEqual([expect.stringMatching(/\.dump files next to/)]);
    expect(asks(match("--dump", "--file-list=list.txt"))).toEqual([expect.stringMatching(/\.dump files next to/)]);
  });

  it("asks for options that run code: addons, their python, clang, a GUI project", () => {
    for (const args of [["--addon=misra"], ["--addon-python=python3"], ["--clang"], ["--clang=clang-17"], ["--project=x.cppcheck"]])
      expect(asks(match(...args, "src")).length, args.join(" ")).toBeGreaterThan(0);
  });

  it("takes a platform or library by name, and reads it as a file otherwise", () => {
    expect(reads(match("--platform=unix64", "--library=posix", "src"))).toEqual(["src"]);
    expect(reads(match("--platform=build/p.xml", "--library=cfg/mine.cfg", "src"))).toEqual(["build/p.xml", "cfg/mine.cfg", "src"]);
  });

  it("reads every option as a whole word, as cppcheck does: no clusters, no long option without its =", () => {
    expect(asks(match("-qv", "src"))).toEqual([expect.stringMatching(/-qv is not an option/)]);
    expect(asks(match("--enable", "src"))).toEqual([expect.stringMatching(/--enable is not an option/)]);
    expect(asks(match("-q", "-v", "-j2", "-j", "2", "-DX=1", "-D", "Y", "-UZ", "-x", "c++", "src"))).toEqual([]);
  });

  it("asks for a word only known at run time anywhere in its arguments, and for --, which ends nothing", () => {
    const dynamic = rule_of("cppcheck")?.match([literal_word("src"), { ...literal_word("$SRC"), literal: false }]);
    expect(dynamic === undefined ? [] : asks(dynamic)).toContainEqual(expect.stringMatching(/\$SRC is only known at run time/));
    expect(asks(match("--", "--addon=misra.py"))).toContainEqual(expect.stringMatching(/does not end its options at --/));
  });
});

describe("cppcheck in the second adversarial suite", () => {
  const of = (expected: string) => CASES.filter((c) => c.expect === expected).map((c) => [c.why, c.command] as const);

  it.each(of("dangerous"))("never allows (%s): %j", async (_, command) => {
    const result = analysis(command);
    expect(ALLOWED, `${command} → ${result.verdict}: ${result.findings.map((f) => f.reason).join("; ")}`).not.toContain(result.verdict);
    expect(ALLOWED, command).not.toContain(await action_in("default", command));
  });

  it.each(of("benign"))("allows without a prompt (%s): %j", async (_, command) => {
    const result = analysis(command);
    expect(ALLOWED, `${command} → ${result.verdict}: ${result.findings.map((f) => f.reason).join("; ")}`).toContain(result.verdict);
    expect(ALLOWED, command).toContain(await action_in("default", command));
  });
});

describe("the command cpp.static.cppcheck runs", () => {
  it("is a routine static_analysis command the analyzer allows", () => {
    for (const command of [TOOL_COMMAND, `${TOOL_COMMAND} --suppress=passedByValue --suppress=unusedFunction:src/main.cpp:3`]) {
      const result = analysis(command);
      expect(result.verdict, command).toBe("allow");
      expect(result.commands, command).toEqual([expect.objectContaining({ rule: "cppcheck", categories: ["static_analysis"] })]);
    }
  });

  it("runs without a prompt, announced, in default and accept-edits modes", async () => {
    expect(await action_in("default", TOOL_COMMAND, "cpp.static.cppcheck")).toBe("announce_then_run");
    expect(await action_in("accept-edits", TOOL_COMMAND, "cpp.static.cppcheck")).toBe("announce_then_run");
  });
});

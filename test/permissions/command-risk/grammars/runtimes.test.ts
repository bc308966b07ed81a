/**
 * The runtimes' grammars (issue 11): what each rule makes of a command's words — the scripts it runs, the
 * argument vectors it hands to another grammar, the servers it opens — before the analyzer judges paths.
 */
import { describe, expect, it } from "vitest";
import type { Matched } from "../../../../src/permissions/command-risk/grammar/matched.js";
import { rule_of } from "../../../../src/permissions/command-risk/grammar/registry.js";
import type { ShellWord } from "../../../../src/permissions/command-risk/types.js";

const word = (value: string): ShellWord => ({ value, literal: true, glob: false });

function match(command: string): Matched {
  const [name, ...args] = command.split(" ");
  const rule = rule_of(name ?? "");
  if (rule === undefined) throw new Error(`no rule for ${name}`);
  return rule.match(args.map(word));
}

const actions = (matched: Matched, action: string) => matched.findings.filter((finding) => finding.action === action).map((finding) => finding.reason);
const scripts = (matched: Matched) => matched.scripts.map((script) => script.value);
const argv = (matched: Matched) => matched.argv.map((run) => run.words.map((each) => each.value).join(" "));

describe("node grammar", () => {
  it("runs the script operand and passes every later word to it as text", () => {
    const matched = match("node scripts/check.js --import /tmp/x.mjs -e code");
    expect(scripts(matched)).toEqual(["scripts/check.js"]);
    expect(actions(matched, "ask_user")).toEqual([]);
  });

  it("never reads a preloaded module as the project script: a path is a script, a URL or an unknown package asks", () => {
    expect(scripts(match("node --import ./scripts/setup.mjs scripts/check.js"))).toEqual(["./scripts/setup.mjs", "scripts/check.js"]);
    expect(actions(match("node --import data:text/javascript,1 scripts/check.js"), "ask_user")).toEqual([expect.stringMatching(/is a URL/)]);
    expect(actions(match("node -r evil scripts/check.js"), "ask_user")).toEqual([expect.stringMatching(/loads the package evil/)]);
    expect(actions(match("node --import tsx scripts/check.js"), "ask_user")).toEqual([]);
    expect(match("node --require dotenv/config scripts/check.js").findings).toContainEqual(expect.objectContaining({ category: "credential_sensitive" }));
  });

  it("asks for a debugger on loopback and denies one on another interface", () => {
    expect(actions(match("node --inspect scripts/check.js"), "deny")).toEqual([]);
    expect(actions(match("node --inspect=[::1]:9229 scripts/check.js"), "deny")).toEqual([]);
    expect(actions(match("node --inspect=0.0.0.0:9229 scripts/check.js"), "deny")).toEqual([expect.stringMatching(/0\.0\.0\.0/)]);
    expect(actions(match("node --inspect-brk=[::]:9229 scripts/check.js"), "deny")).toHaveLength(1);
  });

  it("reads its program from standard input with no script, and only reports itself with --version", () => {
    expect(match("node").stdin_code).toBe(true);
    expect(match("node -").stdin_code).toBe(true);
    expect(match("node --version").categories).toEqual(new Set(["read_only"]));
    expect(match("node --test tests").categories).toEqual(new Set(["test"]));
    expect(match("node --check scripts/setup.mjs").scripts).toEqual([]);
  });
});

describe("package managers' grammars", () => {
  it("hand a known dev tool to its own grammar, and ask before running any other package", () => {
    expect(argv(match("npx vitest run --reporter=dot"))).toEqual(["vitest run --reporter=dot"]);
    expect(argv(match("npm exec -- tsc --noEmit"))).toEqual(["tsc --noEmit"]);
    expect(argv(match("npx @biomejs/biome check src"))).toEqual(["biome check src"]);
    const download = match("npx vitest@1.0.0 run");
    expect(download.argv).toEqual([]);
    expect(download.categories).toContain("network");
    expect(match("pnpm dlx vitest run").categories).toContain("network");
  });

  it("read a script's category from its conventional name", () => {
    expect(match("npm run lint -- --fix").categories).toEqual(new Set(["static_analysis"]));
    expect(match("npm run test").categories).toEqual(new Set(["test"]));
    expect(match("pnpm build").categories).toEqual(new Set(["build"]));
    expect(actions(match("yarn evil-bin"), "ask_user")).toEqual([expect.stringMatching(/package script or the installed program/)]);
  });

  it("run what pnpm exec, yarn exec and yarn node are given as a command of its own", () => {
    expect(argv(match("pnpm exec rm -rf build"))).toEqual(["rm -rf build"]);
    expect(match("yarn exec echo hi").code.map((run) => run.word.value)).toEqual(["echo hi"]);
    expect(argv(match("yarn node -e code"))).toEqual(["node -e code"]);
  });

  it("ask for options that change the shell or the Node options of every script", () => {
    expect(actions(match("npm test --node-options=--require=/tmp/x"), "ask_user")).toHaveLength(1);
    expect(match("npm --script-shell /tmp/sh test").code.map((run) => run.word.value)).toEqual(["/tmp/sh"]);
  });
});

describe("python grammar", () => {
  it("never reads python -m MODULE as a project script", () => {
    const pytest = match("python3 -m pytest -q tests");
    expect(pytest.scripts).toEqual([]);
    expect(argv(pytest)).toEqual(["pytest -q tests"]);
    expect(actions(match("python3 -m evilmod app/main.py"), "ask_user")).toEqual([expect.stringMatching(/runs the module evilmod/)]);
    expect(match("python3 -Im http.server").rule).toBe("python -m http.server");
  });

  it("denies http.server on its default, every interface, and asks on loopback", () => {
    expect(actions(match("python3 -m http.server 8000"), "deny")).toEqual([expect.stringMatching(/every network interface/)]);
    expect(actions(match("python3 -m http.server --bind 127.0.0.1"), "deny")).toEqual([]);
    expect(actions(match("python3 -m http.server --bind 127.0.0.1 --directory ~"), "deny")).toHaveLength(1);
  });

  it("reads clustered flags, inline code and warning filters that import", () => {
    expect(scripts(match("python3 -BuW ignore app/main.py"))).toEqual(["app/main.py"]);
    expect(actions(match("python3 -IBc code"), "ask_user")).toEqual([expect.stringMatching(/python -c runs code/)]);
    expect(actions(match("python3 -W error::evil.Warning app/main.py"), "ask_user")).toHaveLength(1);
    expect(match("python3 -V").categories).toEqual(new Set(["read_only"]));
  });

  it("asks for pytest plugins but not for disabling one", () => {
    expect(actions(match("pytest -p evil tests"), "ask_user")).toHaveLength(1);
    expect(actions(match("pytest -p=evil tests"), "ask_user")).not.toEqual([]);
    expect(actions(match("pytest -p no:cacheprovider tests"), "ask_user")).toEqual([]);
  });
});

describe("dev tools' grammars", () => {
  it("type-checks with tsc --noEmit and builds without it", () => {
    expect(match("tsc --noEmit").categories).toEqual(new Set(["static_analysis"]));
    expect(match("tsc -p tsconfig.json").categories).toEqual(new Set(["build"]));
  });

  it("judges a short option's attached '=value' the way cac reads it too", () => {
    expect(scripts(match("vitest run -c=/tmp/v.mjs"))).toContain("/tmp/v.mjs");
  });

  it("denies dev servers on every interface, a bare --host included", () => {
    expect(actions(match("vite --host"), "deny")).toHaveLength(1);
    expect(actions(match("vite dev --host 0.0.0.0"), "deny")).toHaveLength(1);
    expect(actions(match("vite"), "ask_user")).toHaveLength(1);
    expect(actions(match("esbuild src/a.ts --serve=8000"), "deny")).toHaveLength(1);
    expect(actions(match("vite build"), "ask_user")).toEqual([]);
  });

  it("writes the operands of formatters and fixers only when told to", () => {
    expect(match("prettier --check src").writes).toEqual([]);
    expect(match("prettier --write src").writes.map((write) => write.word.value)).toEqual(["src"]);
    expect(match("eslint --fix src").writes.map((write) => write.word.value)).toEqual(["src"]);
    expect(match("black app").writes.map((write) => write.word.value)).toEqual(["app"]);
  });
});

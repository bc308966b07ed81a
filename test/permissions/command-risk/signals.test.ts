/**
 * The risk signals of resource exhaustion (issue 11): functions calling themselves, loops with no end in
 * sight that write or start jobs, endless streams into files or memory; and the environment dumps. A
 * loop counts as ending only when its condition shows why; a circle of calls asks whether or not it runs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyze_command, type CommandAnalysis } from "../../../src/permissions/command-risk/index.js";
import { call_cycles } from "../../../src/permissions/command-risk/signals.js";
import { type TrapProject, trap_project } from "../../fixtures/permission-traps.js";

let project: TrapProject;
beforeAll(() => {
  project = trap_project();
});
afterAll(() => project.cleanup());

const analyze = (command: string): CommandAnalysis => analyze_command(command, { cwd_real: project.root, root_real: project.root, home: project.home });
const asks = (command: string): string[] =>
  analyze(command)
    .findings.filter((finding) => finding.action === "ask_user")
    .map((finding) => finding.reason);

describe("call_cycles", () => {
  it("finds a function calling itself, and a circle through others, once per circle", () => {
    const calls = new Map([
      ["a", new Set(["b", "echo"])],
      ["b", new Set(["a"])],
      ["f", new Set(["f"])],
      ["g", new Set(["echo"])],
    ]);
    expect(call_cycles(calls)).toEqual([
      ["a", "b", "a"],
      ["f", "f"],
    ]);
  });
});

describe("recursion", () => {
  it.each(["f(){ f|f& }; f", ":(){ :|:& };:", "function boom { boom | boom & }; boom", "a(){ b; }; b(){ a; }; a", "f(){ g(){ f; }; g; }"])(
    "asks for %j, naming the circle",
    (command) => {
      expect(analyze(command).verdict).toBe("ask_user");
      expect(asks(command)).toContainEqual(expect.stringMatching(/calls itself \(.* → .*\)/));
    },
  );

  it("lets a function that calls others run", () => {
    expect(analyze("f(){ echo a; }; g(){ f; f; }; g").verdict).toBe("allow");
  });
});

describe("loops", () => {
  it.each([
    ["while true; do echo x >> build/f; done", "while true"],
    ["until false; do echo x >> build/f; done", "until false"],
    ["for ((;;)); do echo x >> build/f; done", "for ((;;))"],
    ["x=1; while [ $x = 1 ]; do echo x >> build/f; done", "while [ $x = 1 ]"],
    ["while true; do echo x; done > build/f", "while true"],
  ])("asks for %j, a loop with no end in sight that writes", (command, loop) => {
    expect(asks(command)).toContainEqual(expect.stringContaining(`loop with no end in sight (${loop}): it can fill the disk`));
  });

  it("follows a function called in the loop into its body", () => {
    expect(asks("f(){ echo x >> build/f; }; while :; do f; done")).toContainEqual(expect.stringMatching(/fill the disk/));
  });

  it("asks for background jobs started on every turn, unless the loop is a few literal words", () => {
    expect(asks("while true; do sleep 1 & done")).toContainEqual(expect.stringMatching(/starts a background job .*processes pile up/));
    expect(asks("for i in {1..100000}; do sleep 1 & done")).toContainEqual(expect.stringMatching(/may turn many times \(for i in …\)/));
    expect(asks("while read -r l; do sleep 1 & done < src/a.ts")).toContainEqual(expect.stringMatching(/\(while read -r l\)/));
    expect(analyze("for i in 1 2 {a,b}; do sleep 1 & done; wait").verdict).toBe("allow");
  });

  it.each([
    "i=0; while [ $i -lt 3 ]; do echo $i >> build/log; i=$((i+1)); done",
    "for ((i=0; i<3; i++)); do echo $i >> build/log; done",
    "while read -r l; do echo $l >> build/log; done < src/a.ts",
    "set -- a b; while [ $# -gt 0 ]; do echo $1 >> build/log; shift; done",
    "while true; do echo x >> build/log; break; done",
    "while true; do sleep 1; done",
  ])("lets a loop that ends, or one that only waits or prints, run: %j", (command) => {
    expect(analyze(command).verdict).toBe("allow");
  });
});

describe("endless streams", () => {
  it.each(["yes > build/f", "yes | tee -a build/f", "cat /dev/zero > build/f", "yes | while read -r l; do echo $l >> build/f; done"])(
    "asks when %j writes one into a file",
    (command) => {
      expect(asks(command)).toContainEqual(expect.stringMatching(/writes an endless stream \(.*\) into a file/));
    },
  );

  it("asks for one kept in memory, or running commands side by side", () => {
    expect(asks("x=$(yes)")).toContainEqual("$(yes) keeps an endless stream (yes) in memory");
    expect(asks("x=$(yes | cat)")).toContainEqual("$(cat) keeps an endless stream (yes) in memory");
    expect(analyze("key=$(head -c 16 /dev/urandom | od -An -tx1); echo $key").findings.filter((finding) => /endless/.test(finding.reason))).toEqual([]);
    expect(asks("yes | xargs -P 0 -n 1 sleep")).toContainEqual(expect.stringMatching(/xargs -P runs commands side by side/));
  });

  it.each(["yes | head -n 3", "yes | head -c 100 > build/y", "yes > /dev/null", "head -c 16 /dev/urandom > build/key"])(
    "lets a bounded stream, or one into no file, run: %j",
    (command) => {
      expect(analyze(command).verdict).toBe("allow");
    },
  );

  it("counts a bound too large to spare the disk as no bound", () => {
    for (const command of ["head -c 100G /dev/zero > build/f", "yes | head -n 1000000000 > build/f", "seq 1 1000000000 > build/f"])
      expect(asks(command), command).toContainEqual(expect.stringMatching(/endless stream/));
    for (const command of ["head -c 1M /dev/urandom > build/f", "yes | head -n 1000 > build/f", "seq -s, -f %g 1 5 > build/f"])
      expect(analyze(command).verdict, command).toBe("allow");
  });

  it("follows exec's redirections into the commands after it", () => {
    expect(asks("exec > build/f; yes")).toContainEqual(expect.stringMatching(/endless stream \(yes\)/));
    expect(asks("exec 3> build/f; yes >&3")).toContainEqual(expect.stringMatching(/endless stream \(yes\)/));
  });

  it("counts head printing all but the last lines as reading everything", () => {
    expect(asks("yes | head -n -1 > build/f")).toContainEqual(expect.stringMatching(/endless stream/));
  });
});

describe("environment dumps", () => {
  it.each(["env", "env -u HOME", "printenv", "set", "declare -p", "export -p", "typeset", "readonly", "ps eww", "nohup env", "bash -c env"])(
    "asks for %j, about credentials",
    (command) => {
      const analysis = analyze(command);
      expect(analysis.verdict).toBe("ask_user");
      expect(analysis.findings.some((finding) => finding.category === "credential_sensitive" && finding.action === "ask_user")).toBe(true);
    },
  );

  it("asks for one variable of the environment unless it is well known or set by the script", () => {
    expect(asks("printenv GITHUB_TOKEN")).toContainEqual(expect.stringMatching(/prints \$GITHUB_TOKEN/));
    expect(asks("x=$NPM_TOKEN; echo $x")).toContainEqual(expect.stringMatching(/echo prints \$x/));
    expect(asks("cat <<EOF\n$GITHUB_TOKEN\nEOF")).toContainEqual(expect.stringMatching(/here-document hands the command \$GITHUB_TOKEN/));
    for (const command of [
      "printenv PATH",
      "echo $HOME",
      "cat <<EOF\n$HOME $1\nEOF",
      "export X=1; printenv X",
      "for i in 1 2; do echo $i; done",
      "read -r l < src/a.ts; echo $l",
      "env -i",
    ])
      expect(analyze(command).verdict, command).toBe("allow");
  });
});

describe("file tests", () => {
  it("reads the operands of [[ ]] file tests as paths, as those of [ ]", () => {
    expect(analyze("[[ -f ~/.ssh/id_rsa ]] && echo found").verdict).toBe("deny");
    expect(analyze("[ -f ~/.ssh/id_rsa ] && echo found").verdict).toBe("deny");
    expect(analyze("[[ -d build && src/a.ts -nt src/b.ts ]] && echo newer").verdict).toBe("allow");
  });
});

describe("code fed to a shell", () => {
  it("reads what a shell or source is fed through /dev/stdin as the code it is, not as a project script", () => {
    expect(analyze("bash /dev/stdin <<< 'rm -rf ~'").verdict).toBe("deny");
    expect(analyze("source /dev/stdin <<< 'cat .env'").verdict).toBe("deny");
  });

  it("asks for a script the command writes before it runs it", () => {
    expect(asks("echo date > build/x.sh; bash build/x.sh")).toContainEqual(expect.stringMatching(/which this command writes itself/));
    expect(analyze("bash scripts/build.sh").verdict).toBe("announce_then_run");
  });
});

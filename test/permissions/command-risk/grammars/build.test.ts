/**
 * The build and archive grammars (issue 11): what each rule makes of the arguments — the rule and manual it
 * reports, the paths it reads (and how deep), writes and runs — and the verdicts that follow in a project
 * with a symlink into `~/.ssh`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rule_of } from "../../../../src/permissions/command-risk/grammar/registry.js";
import { analyze_command } from "../../../../src/permissions/command-risk/index.js";
import { literal_word } from "../../../../src/permissions/command-risk/words.js";

let base: string;
let root: string;
let home: string;

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "air-build-grammar-")));
  root = path.join(base, "project");
  home = path.join(base, "home");
  fs.mkdirSync(path.join(root, "src"), { recursive: true });
  fs.mkdirSync(path.join(root, "build"), { recursive: true });
  fs.mkdirSync(path.join(home, ".ssh"), { recursive: true });
  fs.writeFileSync(path.join(home, ".ssh", "id_rsa"), "secret\n");
  fs.writeFileSync(path.join(root, "Makefile"), "all:\n\techo all\n");
  fs.symlinkSync(path.join(home, ".ssh"), path.join(root, "src", "link"));
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const verdict = (command: string) => analyze_command(command, { cwd_real: root, root_real: root, home }).verdict;
const reasons = (command: string) =>
  analyze_command(command, { cwd_real: root, root_real: root, home })
    .findings.map((finding) => finding.reason)
    .join("\n");

/** What the rule of `program` found in `args`, without judging the paths. */
function matched(program: string, ...args: string[]) {
  const rule = rule_of(program);
  if (rule === undefined) throw new Error(`${program} has no rule`);
  const found = rule.match(args.map(literal_word));
  return {
    rule: found.rule,
    manual: found.manual,
    reads: found.reads.map((use) => `${use.word.value}:${use.depth}`),
    writes: found.writes.map((write) => write.word.value),
    scripts: found.scripts.map((word) => word.value),
    asks: found.findings.filter((finding) => finding.action === "ask_user").length,
  };
}

describe("make grammar", () => {
  it("allows targets, jobs and harmless variables, and names the manual it follows", () => {
    expect(verdict("make -j 4 V=1 all")).toBe("allow");
    expect(matched("make", "-j4", "test")).toMatchObject({ rule: "make", manual: "make(1), GNU make 4.3" });
  });

  it("asks for --eval, whose value is make code, in every spelling", () => {
    for (const command of ["make --eval='all:;id'", "make -E 'all:;id'", "make -sE'all:;id'"]) expect(verdict(command), command).toBe("ask_user");
  });

  it("analyses a variable that chooses a program as the command line it is", () => {
    expect(verdict("make CC='rm -rf ~'")).toBe("deny");
    expect(reasons("make SHELL=/bin/sh")).toContain("chooses a program or the shell");
  });

  it("passes CFLAGS only when every flag passes the compiler grammar", () => {
    expect(verdict("make CFLAGS='-O2 -g -Wall'")).toBe("allow");
    expect(reasons("make 'CFLAGS=-wrapper /tmp/x'")).toContain("-wrapper runs a program");
  });

  it("runs a makefile given with -f as a project script, relative to -C as well", () => {
    expect(matched("make", "-C", "build", "-f", "x.mk").scripts).toEqual(["x.mk", "build/x.mk"]);
    expect(verdict("make -f Makefile")).toBe("announce_then_run");
    expect(verdict("make -f -")).toBe("ask_user");
  });

  it("asks for an install target unless DESTDIR or PREFIX keeps it in the project", () => {
    expect(verdict("make install")).toBe("ask_user");
    expect(verdict("make DESTDIR=build/stage install")).toBe("allow");
  });
});

describe("cmake grammar", () => {
  it("reads its modes from the first argument, reporting the rule of each", () => {
    expect(matched("cmake", "--build", "build", "-j", "2").rule).toBe("cmake --build");
    expect(matched("cmake", "-E", "copy", "src/a", "build/a")).toMatchObject({ rule: "cmake -E copy", reads: ["src/a:path"], writes: ["build/a"] });
    expect(matched("cmake", "-S", ".", "-B", "build").writes).toEqual(["build"]);
  });

  it("hands cmake -E env's command to env, so the variables it sets are judged as env's are", () => {
    expect(reasons("cmake -E env LD_PRELOAD=/tmp/x.so make")).toContain("setting LD_PRELOAD");
    expect(verdict("cmake -E env CI=1 make")).toBe("allow");
    expect(reasons("cmake -E env")).toContain("prints the environment");
  });

  it("asks for cache variables that choose a program, and for any it does not know", () => {
    expect(reasons("cmake -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -B build")).toContain("chooses a program or a script");
    expect(reasons("cmake -DPROJECT_OPTION=ON -B build")).toContain("not a cache variable this analyzer knows");
    expect(verdict("cmake -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING:BOOL=OFF -B build")).toBe("allow");
  });

  it("checks what cmake --build passes to the native tool after --", () => {
    expect(verdict("cmake --build build -- -j2")).toBe("allow");
    expect(verdict("cmake --build build -- -f x.mk")).toBe("ask_user");
  });
});

describe("ninja grammar", () => {
  it("hands the arguments after -t to the tool, even from the end of a cluster", () => {
    expect(matched("ninja", "-C", "build", "-nt", "clean", "-g").rule).toBe("ninja -t clean");
    expect(matched("ninja", "-tbrowse").rule).toBe("ninja -t browse");
  });

  it("asks for a browse server on loopback, and denies one on every interface", () => {
    expect(verdict("ninja -t browse")).toBe("ask_user");
    expect(verdict("ninja -t browse --hostname 0.0.0.0")).toBe("deny");
  });
});

describe("compiler grammar", () => {
  it("reads sources, include folders attached or separate, and writes -o and -MF", () => {
    expect(matched("g++", "-Isrc", "-isystem", "inc", "-MMD", "-MF", "build/m.d", "-c", "src/m.cpp", "-o", "build/m.o")).toMatchObject({
      rule: "gcc",
      reads: ["src:path", "inc:path", "src/m.cpp:path"],
      writes: ["build/m.d", "build/m.o"],
    });
    expect(matched("clang++", "-fsyntax-only", "src/m.cpp")).toMatchObject({ rule: "clang", manual: "clang(1), Clang 17" });
  });

  it("judges -Wl, options with the linker grammar, split at the commas", () => {
    expect(matched("gcc", "-Wl,-rpath,$ORIGIN,--as-needed,-z,now", "x.c").asks).toBe(0);
    expect(matched("gcc", "-Wl,-Map=build/x.map", "x.c").writes).toEqual(["build/x.map"]);
    expect(matched("gcc", "-Wl,--wrap=malloc", "x.c").asks).toBeGreaterThan(0);
  });

  it("asks for --, which GCC's driver does not read as the end of its options", () => {
    expect(matched("gcc", "--", "-wrapper", "x", "x.c").asks).toBeGreaterThan(0);
  });
});

describe("archive grammars", () => {
  it("reads tar's old-style first argument as options whose values follow in order", () => {
    expect(matched("tar", "cfC", "build/a.tar", "src", "lib")).toMatchObject({ writes: ["build/a.tar"], reads: ["src:path", "lib:tree", "src/lib:tree"] });
  });

  it("marks tar's operands as trees read through symlinks with -h, and extraction as writing its folder", () => {
    expect(matched("tar", "-chf", "build/a.tar", "src").reads).toEqual(["src:linked_tree"]);
    expect(matched("tar", "-xf", "build/a.tar", "-C", "build/out")).toMatchObject({ reads: ["build/a.tar:path"], writes: ["build/out"] });
    expect(matched("tar", "-tf", "build/a.tar").writes).toEqual([]);
  });

  it("runs tar's compression program as a command", () => {
    expect(verdict("tar --use-compress-program='rm -rf ~' -cf build/a.tar src")).toBe("deny");
  });

  it("reads zip's recursive inputs through their symlinks unless -y", () => {
    expect(matched("zip", "-r", "build/s.zip", "src").reads).toEqual(["src:linked_tree"]);
    expect(matched("zip", "-ry", "build/s.zip", "src").reads).toEqual(["src:tree"]);
    expect(verdict("zip -T -TT 'rm -rf ~' build/s.zip src/a")).toBe("deny");
  });

  it("writes unzip's target folder unless it only lists, tests or prints", () => {
    expect(matched("unzip", "a.zip", "-d", "build/x").writes).toEqual(["build/x"]);
    expect(matched("unzip", "-l", "a.zip").writes).toEqual([]);
  });

  it("writes what gzip replaces, and only reads with -c", () => {
    expect(matched("gzip", "-k", "build/x").writes).toEqual(["build/x"]);
    expect(matched("gzip", "-c", "build/x")).toMatchObject({ reads: ["build/x:path"], writes: [] });
  });
});

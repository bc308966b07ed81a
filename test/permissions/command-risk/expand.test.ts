/**
 * Paths as the command will see them: brace expansion, then filename expansion against a real temporary
 * folder, with bash's rules — and a superset of them once the script may change them.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expand_braces } from "../../../src/permissions/command-risk/braces.js";
import { expand_words, notice_script, path_candidates } from "../../../src/permissions/command-risk/expand.js";
import { Globs, MAX_MATCHES } from "../../../src/permissions/command-risk/glob.js";
import { analyze_command } from "../../../src/permissions/command-risk/index.js";
import { flatten } from "../../../src/permissions/command-risk/parse.js";
import { has_glob } from "../../../src/permissions/command-risk/pattern.js";
import type { ShellWord } from "../../../src/permissions/command-risk/types.js";

let base: string;
let root: string;
let home: string;

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "air-expand-")));
  root = path.join(base, "project");
  home = path.join(base, "home");
  const files = [".env", ".env.example", "a.ts", "b.ts", "B.md", "--pre=sh", "sub/c.ts", "sub/.hidden", "many/.keep", "tools/--pre=sh"];
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), "");
  }
  for (let index = 0; index <= MAX_MATCHES; index += 1) fs.writeFileSync(path.join(root, "many", `f${index}`), "");
  fs.mkdirSync(path.join(home, ".ssh"), { recursive: true });
  fs.writeFileSync(path.join(home, ".ssh", "id_rsa"), "key");
  fs.symlinkSync(path.join(root, "sub"), path.join(root, "link"));
  fs.symlinkSync(path.join(root, "nowhere"), path.join(root, "dangling"));
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

/** The words of the first command of `source`, as the parser gives them. */
function words_of(source: string): readonly ShellWord[] {
  return flatten(source).commands[0]?.words ?? [];
}

function globs(): Globs {
  return new Globs(root, home);
}

function matched(pattern: string, through: Globs = globs()): readonly string[] | string | undefined {
  const result = through.match(pattern);
  return result === undefined ? undefined : "over" in result ? result.over : result.paths;
}

describe("brace expansion", () => {
  it("expands lists in order, nested lists, and a prefix and suffix around them", () => {
    expect(expand_braces("a{b,c}d", 64)).toEqual(["abd", "acd"]);
    expect(expand_braces("{a,b}{1,2}", 64)).toEqual(["a1", "a2", "b1", "b2"]);
    expect(expand_braces("x{a,{b,c}}y", 64)).toEqual(["xay", "xby", "xcy"]);
    expect(expand_braces("{,.}env", 64)).toEqual(["env", ".env"]);
  });

  it("expands sequences of numbers, padded numbers, letters, with a step, in either direction", () => {
    expect(expand_braces("f{1..3}", 64)).toEqual(["f1", "f2", "f3"]);
    expect(expand_braces("{3..1}", 64)).toEqual(["3", "2", "1"]);
    expect(expand_braces("{01..03}", 64)).toEqual(["01", "02", "03"]);
    expect(expand_braces("{1..9..4}", 64)).toEqual(["1", "5", "9"]);
    expect(expand_braces(".e{m..o}v", 64)).toEqual([".emv", ".env", ".eov"]);
  });

  it("leaves text that is no brace expansion: one element, an empty pair, an escaped brace, an unclosed one", () => {
    expect(expand_braces("a{b}c", 64)).toEqual(["a{b}c"]);
    expect(expand_braces("{}", 64)).toEqual(["{}"]);
    expect(expand_braces("\\{a,b}", 64)).toEqual(["\\{a,b}"]);
    expect(expand_braces("{a{b,c}", 64)).toEqual(["{ab", "{ac"]);
    expect(expand_braces("{a\\,b,c}", 64)).toEqual(["a\\,b", "c"]);
  });

  it("gives up past the bound, for lists and sequences alike", () => {
    expect(expand_braces("{1..100000}", 256)).toBeUndefined();
    expect(expand_braces("{a,b}{c,d}{e,f}", 4)).toBeUndefined();
  });
});

describe("the pattern of a word", () => {
  it("keeps quoted glob and brace characters inactive", () => {
    expect(words_of("ls '*'{a,b}")[1]?.pattern).toBe("\\*{a,b}");
    expect(words_of('ls ".e"*')[1]?.pattern).toBe(".e*");
    expect(words_of('ls "{a,b}"')[1]?.pattern).toBeUndefined();
    expect(words_of("ls \\*x")[1]?.pattern).toBeUndefined();
    expect(words_of("ls {'a b',c}")[1]?.pattern).toBe("{a b,c}");
  });

  it("has no pattern when the word is only known at run time", () => {
    expect(words_of('ls "$X"*')[1]).toMatchObject({ literal: false });
    expect(words_of('ls "$X"*')[1]?.pattern).toBeUndefined();
  });

  it("counts `*`, `?`, closed brackets and extglob groups as glob characters, escaped ones not", () => {
    expect(["*", "a?", "[ab]", "@(a|b)", "!(x)"].map(has_glob)).toEqual([true, true, true, true, true]);
    expect(["\\*", "a[b", "{a,b}", "x"].map(has_glob)).toEqual([false, false, false, false]);
  });
});

describe("filename expansion", () => {
  it("matches a leading dot only when the pattern writes it", () => {
    expect(matched("*")).not.toContain(".env");
    expect(matched(".e*")).toEqual([".env", ".env.example"]);
    expect(matched(".*")).toEqual([".", "..", ".env", ".env.example"]);
    expect(matched("?env")).toBeUndefined();
    expect(matched("[.]env")).toBeUndefined();
  });

  it("knows `?`, brackets, negated brackets and classes", () => {
    expect(matched("?.ts")).toEqual(["a.ts", "b.ts"]);
    expect(matched("[a].ts")).toEqual(["a.ts"]);
    expect(matched("[!a].ts")).toEqual(["b.ts"]);
    expect(matched("[^a].ts")).toEqual(["b.ts"]);
    expect(matched("[[:upper:]]*")).toEqual(["B.md"]);
    expect(matched(".en[v]")).toEqual([".env"]);
  });

  it("matches case-sensitively, and a name like an option as any other", () => {
    expect(matched("b.*")).toEqual(["b.ts"]);
    expect(matched("tools/*")).toEqual(["tools/--pre=sh"]);
  });

  it("goes through symlinked folders, keeps dangling symlinks, and with a trailing slash gives folders only", () => {
    expect(matched("*/c.ts")).toEqual(["link/c.ts", "sub/c.ts"]);
    expect(matched("dang*")).toEqual(["dangling"]);
    expect(matched("[ls]*/")).toEqual(["link/", "sub/"]);
  });

  it("expands absolute patterns and patterns in the home folder", () => {
    expect(matched(`${root}/.e?v`)).toEqual([`${root}/.env`]);
    expect(matched("~/.ss*/id_*")).toEqual([`${home}/.ssh/id_rsa`]);
  });

  it("matches nothing as nothing, for bash to pass the word on as written", () => {
    expect(matched("*.cpp")).toBeUndefined();
    expect(matched("nosuch/*")).toBeUndefined();
  });

  it("asks past the bound on matches", () => {
    expect(matched("many/*")).toMatch(/more than 256 files/);
  });

  it("matches a superset once the script may change glob options: dot names, any case, `**` at any depth", () => {
    const wide = globs();
    wide.widen();
    expect(matched("*", wide)).toContain(".env");
    expect(matched("?env", wide)).toEqual([".env"]);
    expect(matched("B.T?", wide)).toEqual(["b.ts"]);
    expect(matched("**/c.ts")).toEqual(["link/c.ts", "sub/c.ts"]);
    expect(matched("sub/**")).toEqual(["sub/.hidden", "sub/c.ts"]);
  });

  it("matches an extglob group as `*` and wide: whatever the group matches is among the matches", () => {
    expect(matched(".@(env|x)")).toEqual([".", "..", ".env", ".env.example"]);
    expect(matched("!(a).ts")).toEqual(["a.ts", "b.ts"]);
  });

  it("expands relative patterns in the folders a cd leads to, as absolute paths, but a name like an option as it is", () => {
    const moved = globs();
    moved.enter("tools");
    moved.enter("sub");
    expect(matched("*", moved)).toEqual(expect.arrayContaining(["--pre=sh", "a.ts", `${root}/sub/c.ts`]));
    expect(matched("*", moved)).not.toContain(`${root}/tools/--pre=sh`);
    moved.enter(undefined);
    expect(matched("*.ts", moved)).toMatch(/only known at run time/);
  });
});

describe("the words bash runs", () => {
  it("replaces a glob by its matches and braces by their words, for the rule to match them", () => {
    const { words } = expand_words(words_of("cat .e* {README.md,x}"), globs());
    expect(words.map((word) => word.value)).toEqual(["cat", ".env", ".env.example", "README.md", "x"]);
    expect(words.every((word) => word.literal && !word.glob && word.pattern === undefined)).toBe(true);
  });

  it("gives an option to a program when a file is named like one", () => {
    const moved = globs();
    moved.enter("tools");
    expect(expand_words(words_of("rg foo *"), moved).words.map((word) => word.value)).toContain("--pre=sh");
  });

  it("keeps a pattern that matched nothing as written, still a pattern", () => {
    expect(expand_words(words_of("cat x*.cpp"), globs()).words[1]).toEqual({ value: "x*.cpp", literal: true, glob: true, pattern: "x*.cpp" });
  });

  it("keeps a word that expands to too much as written, and says so", () => {
    const expanded = expand_words(words_of("cat many/*"), globs());
    expect(expanded.words[1]?.value).toBe("many/*");
    expect(expanded.over).toEqual([expect.stringMatching(/too many to check/)]);
  });
});

describe("the paths a word stands for", () => {
  const variables = (source: string) => flatten(source).variables;

  it("is a glob's matches, or its base folder when it matches nothing, or unknown when `..` follows the pattern", () => {
    const none = flatten("").variables;
    const [word] = words_of("x sub/*.ts").slice(1);
    expect(path_candidates(word as ShellWord, none, globs())).toEqual([{ path: "sub/c.ts", base: false }]);
    const [missing] = words_of("x sub/*.cpp").slice(1);
    expect(path_candidates(missing as ShellWord, none, globs())).toEqual([{ path: "sub/", base: true }]);
    const [climbing] = words_of("x no*/../../x").slice(1);
    expect(path_candidates(climbing as ShellWord, none, globs())).toBeUndefined();
  });

  it("spells a variable out with the expanded values a loop gives it", () => {
    const source = 'for f in .e* {a,b}.ts; do cat "$f"; done';
    const word = flatten(source).commands[0]?.words[1] as ShellWord;
    expect(path_candidates(word, variables(source), globs())?.map((candidate) => candidate.path)).toEqual([".env", ".env.example", "a.ts", "b.ts"]);
  });
});

describe("what a script does to its globs", () => {
  const noticed = (source: string): Globs => {
    const flat = flatten(source);
    const through = globs();
    notice_script(flat.commands, flat.variables, through, undefined);
    return through;
  };

  it("widens the match for shopt, GLOBIGNORE and BASHOPTS, even inside a string, but not for set", () => {
    for (const source of ["shopt -s dotglob", "GLOBIGNORE=x", "export BASHOPTS=dotglob", "builtin shopt -s nocaseglob", "eval 'shopt -s dotglob'"])
      expect(matched("?env", noticed(source)), source).toEqual([".env"]);
    expect(matched("?env", noticed("set -euo pipefail"))).toBeUndefined();
  });

  it("follows cd and pushd, with a literal folder, a variable's values, no folder (home) or one only known at run time", () => {
    expect(matched("c.*", noticed("cd sub"))).toEqual([`${root}/sub/c.ts`]);
    expect(matched("c.*", noticed("d=sub; pushd $d"))).toEqual([`${root}/sub/c.ts`]);
    expect(matched(".ss*", noticed("cd"))).toEqual([`${home}/.ssh`]);
    expect(matched("c.*", noticed("eval 'cd sub'"))).toEqual([`${root}/sub/c.ts`]);
    expect(matched("c.*", noticed('cd "$(mktemp -d)"'))).toMatch(/only known at run time/);
  });
});

describe("globs in analysed commands", () => {
  const verdict = (command: string) => analyze_command(command, { cwd_real: root, root_real: root, home }).verdict;

  it("denies a glob or a brace expansion that reaches a credential, and allows one that does not", () => {
    expect(verdict("cat .e*")).toBe("deny");
    expect(verdict("cat < .en?")).toBe("deny");
    expect(verdict("cat {a.ts,.env}")).toBe("deny");
    expect(verdict("cat ~/.ss?/*")).toBe("deny");
    expect(verdict("cat *.ts")).toBe("allow");
    expect(verdict("cat ?env")).toBe("allow");
  });

  it("denies what a script that turns dotglob on reaches", () => {
    expect(verdict("shopt -s dotglob; cat ?env")).toBe("deny");
  });
});

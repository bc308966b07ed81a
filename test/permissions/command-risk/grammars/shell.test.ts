/**
 * The shell's grammars (issue 11): the builtins (bash 5.2) and the small programs of scripts (coreutils
 * 9.4 and peers), the shells' own options, and the folders `cd` leads commands into.
 */
import { describe, expect, it } from "vitest";
import type { Matched } from "../../../../src/permissions/command-risk/grammar/matched.js";
import { rule_of } from "../../../../src/permissions/command-risk/grammar/registry.js";
import { flatten } from "../../../../src/permissions/command-risk/parse.js";
import { shell_invocation } from "../../../../src/permissions/command-risk/shells.js";
import type { ShellWord } from "../../../../src/permissions/command-risk/types.js";

const word = (value: string): ShellWord => ({ value, literal: true, glob: false });
const dynamic = (value: string): ShellWord => ({ value, literal: false, glob: false });

function match(name: string, ...args: (string | ShellWord)[]): Matched {
  const rule = rule_of(name);
  if (rule === undefined) throw new Error(`no rule for ${name}`);
  return rule.match(args.map((arg) => (typeof arg === "string" ? word(arg) : arg)));
}
const asks = (matched: Matched): string[] => matched.findings.filter((finding) => finding.action === "ask_user").map((finding) => finding.reason);

describe("shell builtins", () => {
  it("asks for set, declare, export and readonly with nothing to set: they dump every variable", () => {
    for (const [name, ...args] of [["set"], ["declare", "-p"], ["declare", "-px"], ["typeset"], ["export"], ["export", "-p"], ["readonly"], ["local"]])
      expect(asks(match(name ?? "", ...args)), `${name} ${args.join(" ")}`).toEqual([expect.stringMatching(/prints every variable/)]);
    expect(asks(match("declare", "-f"))).toEqual([]);
    expect(asks(match("set", "-o"))).toEqual([]);
  });

  it("reads set's option clusters, with -o taking the next word, and asks for the options that change what runs", () => {
    expect(asks(match("set", "-euo", "pipefail"))).toEqual([]);
    expect(asks(match("set", "+e", "--", "a", "-k"))).toEqual([]);
    expect(asks(match("set", "-k"))).toEqual([expect.stringMatching(/set -k: puts assignments/)]);
    expect(asks(match("set", "-o", "keyword"))).toHaveLength(1);
    expect(asks(match("set", "-Z"))).toHaveLength(1);
  });

  it("checks the names given to builtins that take variable names", () => {
    expect(asks(match("read", "-r", "a", "b"))).toEqual([]);
    expect(asks(match("read", "a[$(id)]"))).toEqual([expect.stringMatching(/not a plain variable name/)]);
    expect(asks(match("unset", "arr[1]"))).toEqual([]);
    expect(asks(match("unset", dynamic('"$x"')))).toEqual([expect.stringMatching(/only known at run time/)]);
    expect(asks(match("printf", "-v", "a[i]", "%s", "x"))).toHaveLength(1);
    expect(asks(match("declare", "-n", "r=a[$(id)]"))).toEqual([expect.stringMatching(/-n makes r a reference/)]);
  });

  it("asks for an assignment to a variable that changes what the next program runs", () => {
    expect(asks(match("export", "CI=1", "NODE_ENV=test"))).toEqual([]);
    expect(asks(match("export", dynamic("PATH=/tmp:$PATH")))).toEqual([expect.stringMatching(/export sets PATH/)]);
    expect(asks(match("declare", "-x", "LD_PRELOAD=/tmp/x.so"))).toEqual([expect.stringMatching(/sets LD_PRELOAD/)]);
  });

  it("shows the variables echo, printf and declare -p print", () => {
    expect(match("echo", dynamic("$TOKEN"), dynamic('"${A}-$B"'), dynamic("$(date)")).shown.map((shown) => shown.name)).toEqual(["TOKEN", "A", "B"]);
    expect(match("declare", "-p", "HOME").shown).toEqual([{ name: "HOME", via: "declare -p" }]);
  });

  it("reads echo's words as text, dashes and all", () => {
    expect(asks(match("echo", "-n", "-x", "--", "a"))).toEqual([]);
  });

  it("reads the operands of file tests as paths, and the rest as text", () => {
    expect(match("test", "-f", "src/a.ts", "-a", "-n", "x").reads.map((read) => read.word.value)).toEqual(["src/a.ts"]);
    expect(match("[", "src/a.ts", "-nt", "build/b", "]").reads.map((read) => read.word.value)).toEqual(["src/a.ts", "build/b"]);
    expect(match("[", "x", "=", "-f", "]").reads).toEqual([]);
    expect(asks(match("test", "-v", "a[$(id)]"))).toHaveLength(1);
  });

  it("asks for shopt options that change what later commands run, and lets plain switches through", () => {
    expect(asks(match("shopt", "-s", "nullglob", "extglob"))).toEqual([]);
    expect(asks(match("shopt", "-s", "expand_aliases"))).toEqual([expect.stringMatching(/alias definitions code/)]);
    expect(asks(match("shopt", "-u", "interactive_comments"))).toHaveLength(1);
    expect(asks(match("shopt", "-s", "frobnicate"))).toHaveLength(1);
    expect(asks(match("shopt", "-q", "dotglob"))).toEqual([]);
  });

  it("analyses an alias definition's value as the code it is", () => {
    expect(match("alias", "ll=ls -la").code).toEqual([{ word: word("ls -la"), via: "alias ll" }]);
  });

  it("reads cd's folder, home when none is given, and asks for cd -", () => {
    expect(match("cd", "-P", "src").reads.map((read) => read.word.value)).toEqual(["src"]);
    expect(match("cd").reads.map((read) => read.word.value)).toEqual(["~"]);
    expect(asks(match("cd", "-"))).toEqual([expect.stringMatching(/OLDPWD/)]);
  });

  it("asks for let arithmetic holding a substitution, and for hash -p", () => {
    expect(asks(match("let", "i=i+1"))).toEqual([]);
    expect(asks(match("let", "x=a[$(id)]"))).toHaveLength(1);
    expect(asks(match("hash", "-p", "/tmp/evil", "ls"))).toEqual([expect.stringMatching(/hash -p makes the name run/)]);
  });
});

describe("system programs", () => {
  it("marks setting the clock or the host name, and signalling processes, system_sensitive", () => {
    expect(match("date", "+%s").categories).toEqual(new Set(["read_only"]));
    expect(match("date", "-s", "2020-01-01").categories.has("system_sensitive")).toBe(true);
    expect(match("date", "010100002020").categories.has("system_sensitive")).toBe(true);
    expect(match("hostname", "-s").categories).toEqual(new Set(["read_only"]));
    expect(match("hostname", "evil").categories.has("system_sensitive")).toBe(true);
    expect(match("kill", "-9", "1").categories).toEqual(new Set(["system_sensitive"]));
    expect(match("kill", "-l").categories).toEqual(new Set(["read_only"]));
  });

  it("asks for printenv with no name, and shows the names it prints", () => {
    expect(match("printenv").findings).toEqual([expect.objectContaining({ action: "ask_user", category: "credential_sensitive" })]);
    expect(match("printenv", "PATH", "HOME").shown.map((shown) => shown.name)).toEqual(["PATH", "HOME"]);
  });

  it("asks for ps with the BSD e option, which prints every process's environment", () => {
    expect(asks(match("ps", "aux"))).toEqual([]);
    expect(asks(match("ps", "-ef", "--forest"))).toEqual([]);
    expect(asks(match("ps", "-o", "pid,comm", "-p", "1"))).toEqual([]);
    expect(asks(match("ps", "eww"))).toEqual([expect.stringMatching(/environment of every process/)]);
  });

  it("writes where mktemp makes its file: -p, --tmpdir, or a template with a folder", () => {
    expect(match("mktemp", "-p", "build").writes.map((write) => write.word.value)).toEqual(["build"]);
    expect(match("mktemp", "build/x.XXXX").writes.map((write) => write.word.value)).toEqual(["build/x.XXXX"]);
    expect(match("mktemp", "-d").writes).toEqual([]);
    expect(asks(match("mktemp", "-p", "build", "../x.XXXX"))).toHaveLength(1);
  });

  it("takes durations and numbers where sleep and seq want them", () => {
    expect(asks(match("sleep", "0.1", "1m", "infinity"))).toEqual([]);
    expect(asks(match("sleep", "soon"))).toHaveLength(1);
    expect(asks(match("seq", "-w", "1", "10"))).toEqual([]);
    expect(asks(match("seq", "inf"))).toHaveLength(1);
  });
});

describe("shell_invocation", () => {
  const invoke = (shell: string, ...args: string[]) => shell_invocation(shell, args.map(word));

  it("finds the command string after every option, clusters included", () => {
    expect(invoke("bash", "-euo", "pipefail", "-c", "ls")).toMatchObject({ mode: "code", code: word("ls"), asks: [] });
    expect(invoke("bash", "-c", "-x", "ls")).toMatchObject({ mode: "code", code: word("ls") });
    expect(invoke("bash", "--norc", "--noprofile", "scripts/build.sh", "a")).toMatchObject({ mode: "script", script: word("scripts/build.sh"), asks: [] });
    expect(invoke("bash", "-s", "a", "b")).toMatchObject({ mode: "stdin" });
    expect(invoke("bash", "-")).toMatchObject({ mode: "stdin" });
  });

  it("asks for interactive and login shells, rc files and unknown options", () => {
    expect(invoke("bash", "-lc", "ls").asks).toEqual([expect.stringMatching(/login shell/)]);
    expect(invoke("bash", "-i").asks).toEqual([expect.stringMatching(/interactive shell/)]);
    expect(invoke("bash", "--login").asks).toHaveLength(1);
    expect(invoke("bash", "--rcfile", "/tmp/x").startup).toEqual([word("/tmp/x")]);
    expect(invoke("bash", "-O", "expand_aliases", "-c", "x").asks).toHaveLength(1);
    expect(invoke("bash", "-o", "keyword", "-c", "x").asks).toHaveLength(1);
    expect(invoke("bash", "--frobnicate").asks).toHaveLength(1);
    expect(invoke("dash", "-k", "-c", "x").asks).toHaveLength(1);
    expect(invoke("fish", "-c", "ls").asks).toHaveLength(1);
  });
});

describe("working folders", () => {
  const places = (command: string) => flatten(command).commands.map((command) => (command.places ?? [[]]).map((chain) => chain.map((target) => target.value)));

  it("follows cd into the commands after it: only there after &&, either folder after ;", () => {
    expect(places("cd src && cat a")).toEqual([[[]], [["src"]]]);
    expect(places("cd src; cat a")).toEqual([[[]], [["src"], []]]);
    expect(places("cd src || cat a")).toEqual([[[]], [[]]]);
    expect(places("cd src && cd lib && cat a").at(-1)).toEqual([["src", "lib"]]);
  });

  it("keeps a subshell's or a pipeline's cd inside it, and follows a function that cds", () => {
    expect(places("(cd src); cat a").at(-1)).toEqual([[]]);
    expect(places("cd src | cat; cat a").at(-1)).toEqual([[]]);
    expect(places("f(){ cd src; }; f; cat a").at(-1)).toEqual([[], ["src"]]);
    expect(places("cd; cat a").at(-1)).toEqual([["~"], []]);
    expect(places('cd "$d" && cat a').at(-1)).toEqual([['"$d"']]);
  });
});

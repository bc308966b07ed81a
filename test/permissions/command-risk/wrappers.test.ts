/**
 * The commands that run another command (issue 11): each wrapper's options as its manual documents them
 * (an unknown one asks), what those options read, write and run, and what xargs feeds the command it runs.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flatten } from "../../../src/permissions/command-risk/parse.js";
import type { ShellWord } from "../../../src/permissions/command-risk/types.js";
import { unwrap } from "../../../src/permissions/command-risk/wrappers.js";
import { xargs_command } from "../../../src/permissions/command-risk/xargs.js";

const word = (value: string): ShellWord => ({ value, literal: true, glob: false });
const words = (...values: string[]): ShellWord[] => values.map(word);
const values = (list: readonly ShellWord[]): string[] => list.map((item) => item.value);
const asks = (input: ShellWord[]): string[] => unwrap(input).findings.map((finding) => finding.reason);

describe("unwrap", () => {
  it("strips wrappers and their documented options, and names them", () => {
    const unwrapped = unwrap(words("timeout", "-s", "KILL", "--kill-after=1", "5s", "nice", "-n", "10", "env", "-u", "X", "A=1", "date", "-u"));
    expect(values(unwrapped.words)).toEqual(["date", "-u"]);
    expect(unwrapped.wrappers).toEqual(["timeout", "nice", "env"]);
    expect(unwrapped.assignments.map((assignment) => assignment.name)).toEqual(["A"]);
    expect(unwrapped.findings).toEqual([]);
  });

  it("looks wrappers up by name only, not through the object prototype", () => {
    for (const name of ["toString", "constructor", "__proto__", "hasOwnProperty"]) expect(unwrap(words(name, "rm", "-rf", "x")).wrappers).toEqual([]);
  });

  it("does not take a program outside the standard folders for the wrapper it is named like", () => {
    expect(unwrap(words("/tmp/evil/timeout", "5", "ls")).wrappers).toEqual([]);
    expect(unwrap(words("/usr/bin/timeout", "5", "ls")).wrappers).toEqual(["timeout"]);
  });

  it("asks for an option a wrapper's manual does not document, short or long, and for a bad duration", () => {
    expect(asks(words("timeout", "--bogus", "5", "ls"))).toEqual([expect.stringMatching(/timeout --bogus is not an option/)]);
    expect(asks(words("env", "-P", "/tmp", "ls"))).toEqual([expect.stringMatching(/env -P is not an option/)]);
    expect(asks(words("timeout", "soon", "ls"))).toEqual([expect.stringMatching(/takes a duration, not soon/)]);
    expect(asks(words("nohup", "--bogus", "ls"))).toHaveLength(1);
  });

  it("asks for options that change what runs or what it acts on", () => {
    expect(asks(words("exec", "-a", "rm", "busybox", "x"))).toContainEqual(expect.stringMatching(/exec -a runs the program under another name/));
    expect(asks(words("ionice", "-p", "1"))).toEqual([expect.stringMatching(/processes this command did not start/)]);
    expect(asks(words("watch", "-n", "1", "date"))).toEqual([expect.stringMatching(/again and again/)]);
  });

  it("records what wrapper options read, write and change to", () => {
    expect(values(unwrap(words("time", "-o", "build/t", "ls")).writes)).toEqual(["build/t"]);
    expect(values(unwrap(words("xargs", "-a", "list", "echo")).reads)).toEqual(["list"]);
    expect(values(unwrap(words("env", "--chdir=src", "ls")).folders)).toEqual(["src"]);
    expect(values(unwrap(words("flock", "build/lock", "true")).writes)).toEqual(["build/lock"]);
  });

  it("runs the shell strings of flock -c and watch", () => {
    expect(unwrap(words("flock", "build/lock", "-c", "ls -la")).shell_string?.value).toBe("ls -la");
    expect(unwrap(words("watch", "date", "-u")).shell_string?.value).toBe("date -u");
    expect(values(unwrap(words("watch", "-x", "date", "-u")).words)).toEqual(["date", "-u"]);
  });

  it("splits env -S as env does, reading the split words as env's own arguments", () => {
    expect(values(unwrap(words("env", "-S", "-i A=1 date -u")).words)).toEqual(["date", "-u"]);
    expect(unwrap(words("env", "-S", "'date' x")).words[0]?.literal).toBe(false);
  });

  it("reports env alone as a dump of the environment, unless -i empties it", () => {
    expect(unwrap(words("env")).findings).toEqual([expect.objectContaining({ action: "ask_user", category: "credential_sensitive" })]);
    expect(unwrap(words("env", "-i")).findings).toEqual([]);
    expect(unwrap(words("nohup", "env")).alone?.name).toBe("env");
  });

  it("leaves command -v to the command grammar, and runs what command runs otherwise", () => {
    expect(unwrap(words("command", "-v", "git")).wrappers).toEqual([]);
    expect(values(unwrap(words("command", "-p", "ls")).words)).toEqual(["ls"]);
  });

  it("reads xargs' options into how it feeds its command", () => {
    expect(unwrap(words("xargs", "-0", "-I{}", "-P", "4", "cp", "{}", "build")).xargs).toEqual({
      null: true,
      delimited: false,
      from_file: false,
      parallel: true,
      replace: "{}",
    });
    expect(values(unwrap(words("xargs")).words)).toEqual(["echo"]);
    expect(asks(words("xargs", "-P", "0", "sleep"))).toEqual([expect.stringMatching(/as many commands at once as it can/)]);
    expect(asks(words("xargs", "-P", "4", "sleep"))).toEqual([]);
  });
});

describe("xargs_command", () => {
  let base: string;
  beforeAll(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "air-xargs-")));
    fs.mkdirSync(path.join(base, "src", "lib"), { recursive: true });
    fs.writeFileSync(path.join(base, "src", "lib", "a.ts"), "");
    fs.mkdirSync(path.join(base, "odd", "x "), { recursive: true });
  });
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

  const producer = (command: string) => flatten(command).commands[0];
  const input = { null: false, delimited: false, from_file: false, parallel: false };
  const fed = (command: string, xargs_words: string[], options = {}) => xargs_command(words(...xargs_words), { ...input, ...options }, producer(command), base);

  it("feeds words only known at run time when the producer does not show them", () => {
    const result = fed("cat list", ["cat"]);
    expect(result.words.at(-1)).toEqual({ value: "$(input of xargs)", literal: false, glob: false });
    expect(result.trees).toEqual([]);
  });

  it("feeds literal words an echo writes", () => {
    expect(values(fed("echo src/a.ts src/b.ts", ["cat"]).words)).toEqual(["cat", "src/a.ts", "src/b.ts"]);
    expect(fed("echo 'a b' c", ["cat"]).words.at(-1)?.literal).toBe(true);
    expect(fed('echo "$X"', ["cat"]).words.at(-1)?.literal).toBe(false);
  });

  it("feeds find's start points as a tree read when its output is only paths with plain names", () => {
    const result = fed("find src -name '*.ts'", ["wc", "-l"]);
    expect(values(result.words)).toEqual(["wc", "-l", "src"]);
    expect(result.trees).toEqual([{ word: word("src"), depth: "tree" }]);
    expect(fed("find src -print0", ["cat"], { null: true }).trees).toHaveLength(1);
  });

  it("does not trust find's output when it follows symlinks, prints more than paths, or names split into other words", () => {
    expect(fed("find -L src", ["cat"]).trees).toEqual([]);
    expect(fed("find src -printf '%l\\n'", ["cat"]).trees).toEqual([]);
    expect(fed("find odd", ["cat"]).trees).toEqual([]);
    expect(fed("find src -print0", ["cat"]).trees).toEqual([]);
  });

  it("replaces -I's string with the one start point, but not where the path goes on through it", () => {
    expect(values(fed("find src -type f", ["cp", "{}", "{}.bak"], { replace: "{}" }).words)).toEqual(["cp", "src", "src.bak"]);
    expect(fed("find src", ["cat", "{}/id_rsa"], { replace: "{}" }).words[1]).toEqual({ value: "$(input of xargs)/id_rsa", literal: false, glob: false });
  });
});

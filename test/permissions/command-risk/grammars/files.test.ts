/**
 * The file and text tools' grammars (issue 11), rule by rule: what each reads (and how deep), writes, runs
 * and asks about, from the arguments alone. The whole-command verdicts are in the second adversarial suite
 * (test/fixtures/permission-attacks/files.ts).
 */
import { describe, expect, it } from "vitest";
import type { Matched } from "../../../../src/permissions/command-risk/grammar/matched.js";
import { rule_of } from "../../../../src/permissions/command-risk/grammar/registry.js";
import { sed_script_effects } from "../../../../src/permissions/command-risk/grammars/sed.js";
import type { ShellWord } from "../../../../src/permissions/command-risk/types.js";
import { literal_word } from "../../../../src/permissions/command-risk/words.js";

function match(name: string, ...args: string[]): Matched {
  const rule = rule_of(name);
  if (rule === undefined) throw new Error(`no rule for ${name}`);
  return rule.match(args.map(literal_word));
}

const reads = (matched: Matched) => matched.reads.map(({ word, depth }) => `${word.value}:${depth}`);
const writes = (matched: Matched) => matched.writes.map(({ word, destructive }) => (destructive ? `-${word.value}` : word.value));
const asks = (matched: Matched) => matched.findings.filter((finding) => finding.action === "ask_user").map((finding) => finding.reason);
const argv = (matched: Matched) => matched.argv.map(({ words }) => words.map((word: ShellWord) => (word.glob ? `${word.value}/…` : word.value)).join(" "));

describe("sed grammar", () => {
  it("finds e, s///e, r and w in a script, commands after a label included", () => {
    expect(sed_script_effects("bx; s/a/id/e; :x")).toMatchObject({ runs_pattern_space: true });
    expect(sed_script_effects("1e touch x\n$r in.txt\n/re/w out.txt\ns,a,b,w log.txt")).toEqual({
      commands: ["touch x"],
      runs_pattern_space: false,
      reads: ["in.txt"],
      writes: ["out.txt", "log.txt"],
    });
  });

  it("steps over addresses, y///, text and comments without reading them as commands", () => {
    expect(sed_script_effects("/w x/,\\%e y%{y/ew/we/;p}\na text with e in it\n# w comment")).toEqual({
      commands: [],
      runs_pattern_space: false,
      reads: [],
      writes: [],
    });
  });

  it("writes its files with -i, and reads a BSD `-i ''` script as a script too", () => {
    expect(writes(match("sed", "-i", "s/a/b/", "build/x"))).toEqual(["build/x"]);
    expect(writes(match("sed", "-i", "", "s/a/b/w build/log", "build/x"))).toEqual(["s/a/b/w build/log", "build/x", "build/log"]);
    expect(asks(match("sed", "-i../*", "s/a/b/", "build/x"))).toEqual([expect.stringMatching(/another folder/)]);
  });

  it("asks for a script file and analyses a literal e command", () => {
    expect(asks(match("sed", "-f", "fix.sed", "src/a.ts"))).toEqual([expect.stringMatching(/script file fix.sed/)]);
    expect(match("sed", "-n", "1e touch x", "src/a.ts").code.map(({ word }) => word.value)).toEqual(["touch x"]);
  });
});

describe("awk grammar", () => {
  it("reads > inside print as a redirection and elsewhere as a comparison", () => {
    expect(asks(match("awk", '$3 > 100 { print $1 > "build/out" }', "src/a.ts"))).toEqual([]);
    expect(writes(match("awk", '$3 > 100 { print $1 > "build/out" }', "src/a.ts"))).toEqual(["build/out"]);
    expect(writes(match("awk", "{ print (1 > 2), $0 }", "src/a.ts"))).toEqual([]);
    expect(writes(match("awk", '{ print $1,\n $2 >> "build/log" }'))).toEqual(["build/log"]);
    expect(asks(match("awk", "{ print > $2 }"))).toEqual([expect.stringMatching(/cannot read/)]);
  });

  it("asks for pipes but not for || or | inside a regular expression", () => {
    expect(asks(match("awk", "/a|b/ || NR > 1"))).toEqual([]);
    expect(asks(match("awk", '{ print | "sort" }'))).toEqual([expect.stringMatching(/pipes/)]);
    expect(asks(match("awk", 'NR/2 { print | "sort" }'))).toEqual([expect.stringMatching(/pipes/)]);
  });

  it("asks for system, getline, ARGV, ENVIRON, @ calls and programs it cannot read", () => {
    expect(asks(match("awk", 'BEGIN { system("true") }'))).toEqual([expect.stringMatching(/system/)]);
    expect(asks(match("awk", "{ getline line }"))).toEqual([expect.stringMatching(/getline/)]);
    expect(asks(match("awk", 'BEGIN { ARGV[1] = "x" }'))).toEqual([expect.stringMatching(/ARGV/)]);
    expect(match("awk", "BEGIN { print ENVIRON[1] }").findings).toEqual([expect.objectContaining({ category: "credential_sensitive" })]);
    expect(asks(match("gawk", 'BEGIN { f = "g"; @f() }'))).toEqual([expect.stringMatching(/by name/)]);
    expect(asks(match("awk", "/[/]/"))).toEqual([expect.stringMatching(/bracket/)]);
  });

  it("takes the program from -f or -e, and var=value operands as assignments", () => {
    expect(reads(match("awk", "-f", "prog.awk", "x=1", "src/a.ts"))).toEqual(["prog.awk:path", "src/a.ts:path"]);
    expect(reads(match("gawk", "-e", "{ print }", "src/a.ts"))).toEqual(["src/a.ts:path"]);
  });
});

describe("jq and yq grammars", () => {
  it("tells the env builtin and $ENV from a field, a key or a variable named env", () => {
    for (const filter of [".env", ".a.env", "{env: .name}", "{env}", "$env", '."env"']) expect(asks(match("jq", filter, "package.json")), filter).toEqual([]);
    for (const filter of ["env", "$ENV.X", "$ ENV", '"\\(env)"', "{a: env}", ". env", "..|env", "[env]"])
      expect(asks(match("jq", "-n", filter)), filter).toEqual([expect.stringMatching(/environment/)]);
  });

  it("reads the files of --rawfile and --slurpfile and the operands after the filter", () => {
    const matched = match("jq", "--arg", "n", "v", "--rawfile", "k", "key.txt", "-n", "$k", "a.json");
    expect(reads(matched)).toEqual(["a.json:path", "key.txt:path"]);
    expect(reads(match("jq", "--args", "-n", "$ARGS", "a", "b"))).toEqual([]);
  });

  it("reads yq's first operand as a file too, since yq takes an existing file for one", () => {
    expect(reads(match("yq", ".version", "config.yaml"))).toEqual([".version:path", "config.yaml:path"]);
    expect(writes(match("yq", "e", "-i", ".a = 1", "build/c.yaml"))).toEqual(["build/c.yaml"]);
    expect(asks(match("yq", "-n", 'load("x")'))).toEqual([expect.stringMatching(/loads a file/)]);
  });
});

describe("find and fd grammars", () => {
  it("runs -exec on each starting point's entries, marked as standing for what is inside it", () => {
    const matched = match("find", "src", "lib", "-name", "*.ts", "-exec", "wc", "-l", "{}", "+");
    expect(argv(matched)).toEqual(["wc -l src/…", "wc -l lib/…"]);
    expect(reads(matched)).toEqual(["src:linked_tree", "lib:linked_tree"]);
  });

  it("reads the tree without its symlinks only when -type keeps them from the command", () => {
    expect(reads(match("find", "src", "-type", "f", "-exec", "cat", "{}", "+"))).toEqual(["src:tree"]);
    expect(reads(match("find", "src", "-type", "f", "-o", "-name", "x", "-exec", "cat", "{}", "+"))).toEqual(["src:linked_tree"]);
    expect(reads(match("find", "src", "-type", "l", "-exec", "cat", "{}", "+"))).toEqual(["src:linked_tree"]);
    expect(reads(match("fd", "-t", "f", "-x", "cat"))).toEqual([".:visible_tree"]);
    expect(reads(match("fd", "-x", "cat"))).toEqual([".:linked_tree"]);
    expect(reads(match("fd", "-e", "ts"))).toEqual([".:path"]);
  });

  it("only lists its starting points without a command, and follows symlinks with -L or -follow", () => {
    expect(reads(match("find", "src", "-type", "f"))).toEqual(["src:path"]);
    expect(reads(match("find", "-L", "src"))).toEqual(["src:linked_tree"]);
    expect(reads(match("find", "-follow"))).toEqual([".:linked_tree"]);
  });

  it("removes what -delete finds, writes -fprint files and asks for what it cannot judge", () => {
    const deleting = match("find", ".", "-name", "*.o", "-delete");
    expect([...deleting.categories]).toContain("destructive");
    expect(writes(deleting)).toEqual(["-."]);
    expect(writes(match("find", "src", "-fprintf", "build/list", "%p\\n"))).toEqual(["build/list"]);
    expect(asks(match("find", "src", "-exec", "{}", ";"))).toEqual([expect.stringMatching(/runs the files it finds/)]);
    expect(asks(match("find", "src", "-execdir", "cat", "{}", ";"))).toEqual([expect.stringMatching(/folder of each entry/)]);
    expect(asks(match("find", "src", "-frobnicate"))).toEqual([expect.stringMatching(/not a primary/)]);
  });

  it("gives fd's -x command the entries found, at its end when it names no placeholder", () => {
    expect(argv(match("fd", "-e", "ts", "-x", "wc", "-l", ";", ".", "src"))).toEqual(["wc -l src/…"]);
    expect(argv(match("fd", "-X", "cat", "{}", "extra"))).toEqual(["cat ./… extra"]);
  });
});

describe("search grammars", () => {
  it("reads grep's files, whole folders with -r (`.` when none), through symlinks with -R", () => {
    expect(reads(match("grep", "-n", "x", "a.ts", "b.ts"))).toEqual(["a.ts:path", "b.ts:path"]);
    expect(reads(match("grep", "-rn", "x"))).toEqual([".:tree"]);
    expect(reads(match("grep", "-R", "-e", "x", "src"))).toEqual(["src:linked_tree"]);
    expect(reads(match("grep", "--directories=recurse", "x", "src"))).toEqual(["src:tree"]);
  });

  it("reads rg's paths skipping hidden files, unless --hidden, -u or -L", () => {
    expect(reads(match("rg", "x"))).toEqual([".:visible_tree"]);
    expect(reads(match("rg", "--hidden", "x", "src"))).toEqual(["src:tree"]);
    expect(reads(match("rg", "-L", "x", "src"))).toEqual(["src:linked_tree"]);
    expect(reads(match("rg", "--files", "src"))).toEqual(["src:visible_tree"]);
    expect(asks(match("rg", "--pre", "pdftotext", "x"))).toEqual([expect.stringMatching(/--pre runs pdftotext/)]);
  });
});

describe("file change grammars", () => {
  it("reads cp's sources as trees with -r, through symlinks with -L, and writes the destination", () => {
    expect(reads(match("cp", "a.ts", "build/"))).toEqual(["a.ts:path"]);
    expect(reads(match("cp", "-r", "src", "build/"))).toEqual(["src:tree"]);
    expect(reads(match("cp", "-aL", "src", "build/"))).toEqual(["src:linked_tree"]);
    expect(writes(match("cp", "-t", "build", "a.ts", "b.ts"))).toEqual(["build"]);
  });

  it("removes mv's sources, and judges a relative symlink target from the link's folder", () => {
    expect(writes(match("mv", "build/x", "build/y"))).toEqual(["-build/x", "build/y"]);
    expect(reads(match("ln", "-s", "../.env", "build/e"))).toEqual(["build/e/../.env:path", "build/../.env:path"]);
    expect(reads(match("ln", "-sr", ".env", "build/e"))).toEqual([".env:path"]);
    expect(writes(match("ln", "-s", "/etc/hosts"))).toEqual(["hosts"]);
  });

  it("writes xxd's second operand, uniq's second operand, and dd's of=", () => {
    expect(writes(match("xxd", "-rp", "dump.hex", "out.bin"))).toEqual(["out.bin"]);
    expect(writes(match("xxd", "-c", "8", "in.bin", "out.hex"))).toEqual(["out.hex"]);
    expect(writes(match("uniq", "-c", "in.txt", "out.txt"))).toEqual(["out.txt"]);
    expect(writes(match("dd", "if=a", "of=b", "bs=1k", "status=none"))).toEqual(["b"]);
    expect(asks(match("dd", "if=a", "bogus=1"))).toEqual([expect.stringMatching(/bogus=1/)]);
  });

  it("denies rm --no-preserve-root and asks for a mode spelt like an option", () => {
    expect(match("rm", "-rf", "--no-preserve-root", "/").findings).toContainEqual(expect.objectContaining({ action: "deny" }));
    expect(asks(match("chmod", "-x", "build/run.sh"))).toEqual([expect.stringMatching(/-x is not an option/)]);
  });
});

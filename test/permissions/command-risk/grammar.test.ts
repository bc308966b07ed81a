/**
 * The argument-grammar engine (issue 11): how a declared ProgramSpec reads a command's words — option
 * spellings, clusters, attached and separate values, `--`, subcommands, operand shapes — and what it makes
 * of each value kind. Rules of real programs are tested with their families; these use small specs.
 */
import { describe, expect, it } from "vitest";
import { judge_value, program_rule } from "../../../src/permissions/command-risk/grammar/declarative.js";
import { Matched } from "../../../src/permissions/command-risk/grammar/matched.js";
import type { ProgramSpec } from "../../../src/permissions/command-risk/grammar/types.js";
import type { ShellWord } from "../../../src/permissions/command-risk/types.js";

const word = (value: string): ShellWord => ({ value, literal: true, glob: false });
const dynamic = (value: string): ShellWord => ({ value, literal: false, glob: false });
const words = (...values: string[]): ShellWord[] => values.map(word);

const TOOL: ProgramSpec = {
  rule: "tool",
  manual: "tool(1), a test grammar",
  category: "read_only",
  number_option: "-n",
  options: {
    "-v|--verbose": {},
    "-n|--lines": { value: "number" },
    "-o|--output": { value: "write" },
    "-p|--pager": { value: "command" },
    "-C|--color": { value: { one_of: ["always", "never", "auto"] }, optional_value: true },
    "--eval": { value: "code" },
    "--wipe": { deny: "wipes everything", category: "destructive" },
  },
  operands: { first: ["text"], rest: "read" },
};

const asks = (matched: Matched) => matched.findings.filter((finding) => finding.action === "ask_user").map((finding) => finding.reason);

describe("program_rule: options", () => {
  const tool = program_rule(TOOL);

  it("reads short clusters, long options, and values attached or separate", () => {
    const matched = tool.match(words("-vn5", "--output=build/a", "-o", "build/b", "--lines", "3", "pattern", "src/a.ts"));
    expect(asks(matched)).toEqual([]);
    expect(matched.writes.map((write) => write.word.value)).toEqual(["build/a", "build/b"]);
    expect(matched.reads.map((read) => read.word.value)).toEqual(["src/a.ts"]);
    expect(matched.rule).toBe("tool");
    expect(matched.categories).toEqual(new Set(["read_only"]));
  });

  it("asks for an option its grammar does not list, short or long", () => {
    expect(asks(tool.match(words("-x", "p")))).toEqual([expect.stringMatching(/tool -x is not an option/)]);
    expect(asks(tool.match(words("--verbosity", "p")))).toEqual([expect.stringMatching(/--verbosity is not an option/)]);
    expect(asks(tool.match(words("-vx", "p")))).toHaveLength(1);
  });

  it("asks for a value given to a flag", () => {
    expect(asks(tool.match(words("--verbose=yes", "p")))).toEqual([expect.stringMatching(/takes no value/)]);
  });

  it("reads -NUM as the number option, and asks for a number option given something else", () => {
    expect(asks(tool.match(words("-20", "p")))).toEqual([]);
    expect(asks(tool.match(words("-n", "lots", "p")))).toEqual([expect.stringMatching(/takes a number/)]);
  });

  it("takes an optional value only when attached", () => {
    expect(asks(tool.match(words("--color", "p", "src/a.ts")))).toEqual([]);
    expect(tool.match(words("--color", "p", "src/a.ts")).reads).toHaveLength(1);
    expect(asks(tool.match(words("--color=sometimes", "p")))).toEqual([expect.stringMatching(/sometimes is not a value/)]);
  });

  it("asks for a program or code, in every spelling, and analyses a literal command line", () => {
    for (const spelling of [["-p", "less"], ["-pless"], ["--pager=less"], ["--pager", "less"]]) {
      const matched = tool.match(words(...spelling, "p"));
      expect(asks(matched), spelling.join(" ")).toEqual([expect.stringMatching(/runs less/)]);
      expect(matched.code.map((code) => code.word.value)).toEqual(["less"]);
    }
    expect(asks(tool.match(words("--eval", "1+1", "p")))).toEqual([expect.stringMatching(/evaluates 1\+1/)]);
  });

  it("denies an option that is clear harm, with its category", () => {
    expect(tool.match(words("--wipe")).findings).toEqual([{ action: "deny", category: "destructive", reason: "tool --wipe wipes everything" }]);
  });

  it("ends options at --, so a later word that looks like one is an operand", () => {
    const matched = tool.match(words("--", "-p", "--eval"));
    expect(asks(matched)).toEqual([]);
    expect(matched.reads.map((read) => read.word.value)).toEqual(["--eval"]);
  });

  it("asks when a word only known at run time stands where an option that runs code could be", () => {
    expect(asks(tool.match([dynamic("$OPTS"), word("p")]))).toEqual([expect.stringMatching(/\$OPTS is only known at run time/)]);
    const quiet = program_rule({ rule: "quiet", manual: "m", category: "read_only", options: { "-v": {} }, operands: { rest: "read" } });
    expect(asks(quiet.match([dynamic("$FILE")]))).toEqual([]);
  });

  it("ends options at the first operand when the grammar says options come first", () => {
    const runner = program_rule({ rule: "runner", manual: "m", category: "build", options_first: true, options: { "-q": {} }, operands: { rest: "text" } });
    expect(asks(runner.match(words("-q", "script", "--anything", "-x")))).toEqual([]);
  });
});

describe("program_rule: single-dash options", () => {
  const compiler = program_rule({
    rule: "cc",
    manual: "a test compiler",
    category: "build",
    style: "single_dash",
    options: {
      "-c": {},
      "-o": { value: "write" },
      "-I": { value: "read", attached: true },
      "-std=": { value: "text" },
      "-wrapper": { value: "command" },
    },
    operands: { rest: "read" },
  });

  it("reads whole words, attached prefixes and key= values", () => {
    const matched = compiler.match(words("-c", "-Isrc", "-I", "include", "-std=c++17", "-o", "build/a.o", "src/main.cpp"));
    expect(asks(matched)).toEqual([]);
    expect(matched.reads.map((read) => read.word.value)).toEqual(["src", "include", "src/main.cpp"]);
    expect(matched.writes.map((write) => write.word.value)).toEqual(["build/a.o"]);
  });

  it("does not read a cluster: -co is not -c -o", () => {
    expect(asks(compiler.match(words("-co", "x")))).toEqual([expect.stringMatching(/-co is not an option/)]);
  });

  it("asks for the option that wraps every step in a program", () => {
    expect(asks(compiler.match(words("-wrapper", "sh,-c", "src/main.cpp")))).toEqual([expect.stringMatching(/-wrapper runs sh,-c/)]);
  });
});

describe("program_rule: subcommands and operand shapes", () => {
  const vcs = program_rule({
    rule: "vcs",
    manual: "a test tool with subcommands",
    category: "git_read",
    options: { "-C": { value: "folder" } },
    subcommands: {
      log: { rule: "vcs log", manual: "m", category: "git_read", options: { "--oneline": {} }, operands: { rest: "text" } },
      copy: { rule: "vcs copy", manual: "m", category: "git_write", operands: { rest: "read", last: "write" } },
    },
  });

  it("names the subcommand's rule and reads its own options after the global ones", () => {
    const matched = vcs.match(words("-C", "src", "log", "--oneline", "HEAD"));
    expect(matched.rule).toBe("vcs log");
    expect(asks(matched)).toEqual([]);
    expect(matched.reads.map((read) => read.word.value)).toEqual(["src"]);
    expect(asks(vcs.match(words("log", "-C", "x")))).toEqual([expect.stringMatching(/vcs log -C is not an option/)]);
  });

  it("asks for a subcommand it does not know", () => {
    expect(asks(vcs.match(words("frobnicate")))).toEqual([expect.stringMatching(/frobnicate is not a subcommand/)]);
  });

  it("writes the last operand of two or more, and reads the others", () => {
    const matched = vcs.match(words("copy", "a", "b", "c"));
    expect(matched.reads.map((read) => read.word.value)).toEqual(["a", "b"]);
    expect(matched.writes.map((write) => write.word.value)).toEqual(["c"]);
    expect(vcs.match(words("copy", "a")).writes).toEqual([]);
  });

  it("asks for an operand the shape has no place for", () => {
    const bare = program_rule({ rule: "bare", manual: "m", category: "read_only" });
    expect(asks(bare.match(words("extra")))).toEqual([expect.stringMatching(/takes no operand extra/)]);
  });

  it("takes an operand shape that depends on the options seen", () => {
    const search = program_rule({
      rule: "search",
      manual: "m",
      category: "read_only",
      options: { "-r": {}, "-e": { value: "text" } },
      operands: (seen) => ({ first: seen.has("-e") ? [] : ["text"], rest: seen.has("-r") ? "tree" : "read" }),
    });
    expect(search.match(words("-r", "-e", "p", "src")).reads).toEqual([{ word: word("src"), depth: "tree" }]);
    expect(search.match(words("p", "src")).reads).toEqual([{ word: word("src"), depth: "path" }]);
  });
});

describe("judge_value", () => {
  it("announces nothing for text and asks for a value outside one_of", () => {
    const matched = new Matched("t", "m");
    judge_value("text", word("$(anything)"), "t", matched);
    judge_value({ one_of: ["a"] }, word("b"), "t --mode", matched);
    expect(asks(matched)).toEqual(["t --mode b is not a value this analyzer knows"]);
  });

  it("records scripts, which the analyzer announces or asks about by where they are", () => {
    const matched = new Matched("t", "m");
    judge_value("script", word("scripts/build.sh"), "t", matched);
    expect(matched.scripts).toEqual([word("scripts/build.sh")]);
    expect(matched.findings).toEqual([]);
  });
});

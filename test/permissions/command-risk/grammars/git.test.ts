/**
 * The git grammar (git(1), Git 2.43) on its own: which rule a command matches, the categories it gets by
 * its flags, the paths it reads and writes, the code it hands on, and what makes it ask or refuse.
 */
import { describe, expect, it } from "vitest";
import type { Matched } from "../../../../src/permissions/command-risk/grammar/matched.js";
import { GIT_RULES } from "../../../../src/permissions/command-risk/grammars/git.js";
import { literal_word } from "../../../../src/permissions/command-risk/words.js";

const GIT = GIT_RULES[0]!;

/** `git ARGS`, each space-separated word literal (the cases need no quoting). */
const git = (args: string): Matched => GIT.match(args.split(" ").map(literal_word));
const categories = (matched: Matched): string[] => [...matched.categories].sort();
const actions = (matched: Matched): string[] => matched.findings.map((finding) => finding.action);
const reads = (matched: Matched): string[] => matched.reads.map((read) => read.word.value);
const writes = (matched: Matched): string[] => matched.writes.map((write) => write.word.value);
const code = (matched: Matched): string[] => matched.code.map((entry) => entry.word.value);

describe("git grammar", () => {
  it("names the subcommand's rule and its manual page", () => {
    const matched = git("-C src --no-pager log --oneline -5");
    expect(matched.rule).toBe("git log");
    expect(matched.manual).toBe("git-log(1), Git 2.43");
    expect(reads(matched)).toEqual(["src"]);
    expect(actions(matched)).toEqual([]);
  });

  it.each([
    "branch --list",
    "branch --show-current",
    "branch -vv",
    "branch -a --contains HEAD",
    "branch --list feature/*",
    "tag -l v*",
    "tag -n5",
    "remote",
    "remote -v",
    "remote get-url origin",
    "config --get user.name",
    "config user.email",
    "config --list --show-origin",
    "stash list",
    "worktree list --porcelain",
    "clean -n",
    "apply --check build/fix.patch",
  ])("reads with git %s, judged by its flags, not its name", (args) => {
    const matched = git(args);
    expect(categories(matched)).toEqual(["git_read"]);
    expect(actions(matched)).toEqual([]);
  });

  it.each([
    ["branch new-feature", ["git_write"]],
    ["branch -d feature", ["git_write"]],
    ["branch -D feature", ["destructive", "git_write"]],
    ["branch -v new-feature", ["git_write"]],
    ["tag v2", ["git_write"]],
    ["tag -d v1", ["destructive", "git_write"]],
    ["config user.name someone", ["git_write"]],
    ["config --global user.name someone", ["git_write", "system_sensitive"]],
    ["reset --hard HEAD~1", ["destructive", "git_write"]],
    ["reset HEAD~1", ["git_write"]],
    ["checkout main", ["git_write"]],
    ["checkout -- src/a.ts", ["destructive", "git_write"]],
    ["restore --staged src/a.ts", ["git_write"]],
    ["restore src/a.ts", ["destructive", "git_write"]],
    ["rm --cached src/a.ts", ["git_write"]],
    ["rm src/a.ts", ["destructive", "git_write"]],
    ["clean -fdx", ["destructive", "git_write"]],
    ["push origin main", ["git_write", "network"]],
    ["push --force-with-lease origin main", ["destructive", "git_write", "network"]],
    ["push origin +main", ["destructive", "git_write", "network"]],
    ["push origin :old", ["destructive", "git_write", "network"]],
    ["fetch origin", ["git_write", "network"]],
    ["remote show origin", ["git_read", "network"]],
    ["remote show -n origin", ["git_read"]],
    ["stash", ["git_write"]],
    ["stash drop", ["destructive", "git_write"]],
  ])("git %s is %j", (args, expected) => {
    expect(categories(git(args))).toEqual(expected);
  });

  it.each(["grep -O foo", "grep -Oless foo", "grep -nOvim foo", "grep --open-files-in-pager foo", "grep --open-files-in-pager=vim foo"])(
    "asks for git %s, which opens the files in a pager, a program it runs",
    (args) => {
      const matched = git(args);
      expect(actions(matched)).toContain("ask_user");
      expect(matched.findings.map((finding) => finding.reason).join(" ")).toMatch(/pager/);
    },
  );

  it("hands a pager given to git grep -O on as code", () => {
    expect(code(git("grep -Oless foo"))).toEqual(["less"]);
    expect(code(git("grep --open-files-in-pager=vim foo"))).toEqual(["vim"]);
  });

  it("asks for an abbreviation git would accept but the grammar does not list", () => {
    expect(git("grep --open-files=vim foo").findings[0]?.reason).toMatch(/not an option this analyzer knows/);
  });

  it("asks for any -c, and analyses the value of a key that runs a program as code, whatever the key's case", () => {
    expect(actions(git("-c color.ui=always log"))).toEqual(["ask_user"]);
    expect(code(git("-c color.ui=always log"))).toEqual([]);
    expect(code(git("-c Core.Pager=less log"))).toEqual(["less"]);
    expect(code(git("-c core.fsMonitor=./x status"))).toEqual(["./x"]);
    expect(code(git("-c alias.st=!id st"))).toEqual(["id"]);
    expect(code(git("-c alias.ls=log ls"))).toEqual(["git log"]);
  });

  it("asks for --config-env, in both spellings", () => {
    expect(actions(git("--config-env=core.pager=PAGER log"))).toContain("ask_user");
    expect(git("--config-env core.pager=PAGER log").rule).toBe("git log");
  });

  it("runs commands from the folder --exec-path names, and only prints it alone", () => {
    expect(code(git("--exec-path=/tmp/evil status"))).toEqual(["/tmp/evil"]);
    expect(actions(git("--exec-path"))).toEqual([]);
  });

  it("asks for --git-dir unless it names a .git folder", () => {
    expect(actions(git("--git-dir=vendor/evil.git log"))).toEqual(["ask_user"]);
    expect(actions(git("--git-dir=.git log"))).toEqual([]);
  });

  it("reads the path of <rev>:<path>, but not pathspec magic or a message search", () => {
    expect(reads(git("show HEAD~1:src/a.ts"))).toEqual(["HEAD~1:src/a.ts", "src/a.ts"]);
    expect(reads(git("show :0:src/a.ts"))).toEqual([":0:src/a.ts", "src/a.ts"]);
    expect(reads(git("show :/fix"))).toEqual([":/fix"]);
    expect(reads(git("log -- :(top)src"))).toEqual([":(top)src"]);
  });

  it("reads the file of log -L", () => {
    expect(reads(git("log -L 1,5:src/a.ts"))).toEqual(["src/a.ts"]);
    expect(reads(git("log -L:main:src/main.cpp"))).toEqual(["src/main.cpp"]);
  });

  it("takes the values git only takes attached, and judges the next word on its own", () => {
    expect(reads(git("log --format x"))).toEqual(["x"]);
    expect(reads(git("diff -U 5"))).toEqual(["5"]);
    expect(reads(git("diff --stat=80 HEAD"))).toEqual(["HEAD"]);
    expect(writes(git("log --color --output=/tmp/x"))).toEqual(["/tmp/x"]);
  });

  it("writes the files of --output, format-patch and archive", () => {
    expect(writes(git("diff --output build/d.diff"))).toEqual(["build/d.diff"]);
    expect(writes(git("format-patch -o build/patches HEAD~2"))).toEqual(["build/patches"]);
    expect(writes(git("format-patch HEAD~2"))).toEqual(["."]);
    expect(writes(git("format-patch --stdout HEAD~2"))).toEqual([]);
    expect(writes(git("archive --output=build/a.tar HEAD"))).toEqual(["build/a.tar"]);
  });

  it("reads the work tree for git grep --no-index or --untracked, the tracked files otherwise", () => {
    expect(git("grep --untracked foo").reads).toEqual([{ word: literal_word("."), depth: "tree" }]);
    expect(git("grep --no-index foo -- src").reads).toEqual([{ word: literal_word("src"), depth: "tree" }]);
    expect(git("grep -e foo src").reads).toEqual([{ word: literal_word("src"), depth: "path" }]);
  });

  it("hands the command of rebase --exec, bisect run and submodule foreach on", () => {
    expect(code(git("rebase --exec=make HEAD~2"))).toEqual(["make"]);
    expect(code(git("submodule foreach pwd"))).toEqual(["pwd"]);
    expect(git("bisect run make test").argv.map((run) => run.words.map((word) => word.value))).toEqual([["make", "test"]]);
    expect(git("submodule foreach --recursive git status").argv[0]?.words.map((word) => word.value)).toEqual(["git", "status"]);
  });

  it("reads the command of the ext:: transport as the shell would run it", () => {
    expect(code(git("clone ext::sh%20-c x"))).toEqual(["'sh%20-c'"]);
    const matched = GIT.match([literal_word("fetch"), literal_word("ext::sh -c touch% /tmp/pwned")]);
    expect(code(matched)).toEqual(["'sh' '-c' 'touch /tmp/pwned'"]);
  });

  it("asks for a merge strategy git does not ship, which runs git-merge-<strategy>", () => {
    expect(actions(git("merge -s evil main"))).toContain("ask_user");
    expect(actions(git("merge -s ort main"))).not.toContain("deny");
  });

  it("refuses a program set in the user's configuration, and analyses one set in the repository's", () => {
    expect(actions(git("config --global alias.x !sh"))).toContain("deny");
    expect(code(git("config core.pager less"))).toEqual(["less"]);
    expect(actions(git("config --global --unset alias.x"))).not.toContain("deny");
  });

  it("refuses a git daemon or instaweb on every interface, and asks on loopback", () => {
    expect(actions(git("daemon --export-all"))).toContain("deny");
    expect(actions(git("daemon --listen=0.0.0.0"))).toContain("deny");
    expect(actions(git("daemon --listen=127.0.0.1 --export-all"))).toEqual(["ask_user"]);
    expect(actions(git("instaweb"))).toContain("deny");
    expect(actions(git("instaweb --local"))).toEqual(["ask_user"]);
  });

  it("treats the credential helpers as credential-sensitive, under git and by their own names", () => {
    expect(categories(git("credential fill"))).toEqual(["credential_sensitive"]);
    expect(categories(git("credential-store get"))).toEqual(["credential_sensitive"]);
    const helpers = GIT_RULES[1]!;
    expect(helpers.names).toContain("git-credential-store");
    expect(categories(helpers.match([literal_word("get")]))).toEqual(["credential_sensitive"]);
  });

  it("asks for a subcommand it does not know (an alias or a git-<name> program)", () => {
    expect(git("frobnicate").findings[0]?.reason).toMatch(/not a subcommand this analyzer knows/);
  });
});

import type { AnalyzerAction, CommandCategory, CommandFinding, FindingCategory, ShellWord } from "../types.js";

/**
 * How a read path is followed: the word itself, or every entry below it — without following symlinks,
 * following them, or skipping hidden entries (as rg and fd do by default).
 */
export type ReadDepth = "path" | "tree" | "linked_tree" | "visible_tree";

export type PathUse = { readonly word: ShellWord; readonly depth: ReadDepth };

/**
 * What one command does, as its rule read its arguments: the rule it matched, categories, the paths it
 * reads and writes, the scripts, command lines and argument vectors it runs, and findings for what made
 * it less than plainly safe. Rules write into it; the analyzer judges it.
 */
export class Matched {
  readonly categories = new Set<CommandCategory>();
  readonly reads: PathUse[] = [];
  readonly writes: { readonly word: ShellWord; readonly destructive: boolean }[] = [];
  /** Files run as code: a project file is announced, any other asks. */
  readonly scripts: ShellWord[] = [];
  /** Shell command lines the program runs (`--pager='less -R'`, `SHELL=…`): analysed, and asked about. */
  readonly code: { readonly word: ShellWord; readonly via: string }[] = [];
  /** Argument vectors the program executes directly (`find -exec`, `xargs`). */
  readonly argv: { readonly words: readonly ShellWord[]; readonly via: string }[] = [];
  readonly findings: CommandFinding[] = [];
  /**
   * Variables whose values the command prints (`echo $X`, `printenv X`, `declare -p X`): one the script does
   * not set and that is not well known may hold a secret of the environment, and asks.
   */
  readonly shown: { readonly name: string; readonly via: string }[] = [];
  /** Folders the program works in (`git -C`, `make -C`): read, and where what it does happens. */
  readonly folders: ShellWord[] = [];
  /** Variables the command sets (`export X=…`, `declare -x X`). */
  readonly assigned: string[] = [];
  /** The program runs code it reads from its standard input (`python3 -`, `node` with no script). */
  stdin_code = false;

  constructor(
    /** The rule matched (`git log`), or the closest one when the arguments did not fit it. */
    public rule: string,
    public manual: string,
  ) {}

  add(action: AnalyzerAction, category: FindingCategory, reason: string): void {
    this.findings.push({ action, category, reason });
  }

  /** Something about the arguments the grammar does not know, or that runs code: the command asks. */
  ask(reason: string, category: FindingCategory = "unknown_execution"): void {
    this.add("ask_user", category, reason);
  }

  deny(reason: string, category: FindingCategory): void {
    this.add("deny", category, reason);
  }

  /**
   * What a sub-grammar matched (cmake's `-E` commands, make's CFLAGS, `python -m http.server`), taken into
   * this command's match; `named`: the command is reported under the sub-grammar's rule.
   */
  absorb(from: Matched, named = false): void {
    if (named) {
      this.rule = from.rule;
      this.manual = from.manual;
    }
    for (const category of from.categories) this.categories.add(category);
    this.reads.push(...from.reads);
    this.writes.push(...from.writes);
    this.scripts.push(...from.scripts);
    this.code.push(...from.code);
    this.argv.push(...from.argv);
    this.findings.push(...from.findings);
    this.shown.push(...from.shown);
    this.folders.push(...from.folders);
    this.assigned.push(...from.assigned);
    this.stdin_code ||= from.stdin_code;
  }

  read(word: ShellWord, depth: ReadDepth = "path"): void {
    this.reads.push({ word, depth });
  }

  folder(word: ShellWord): void {
    this.read(word);
    this.folders.push(word);
  }

  write(word: ShellWord, destructive = false): void {
    this.writes.push({ word, destructive });
  }
}

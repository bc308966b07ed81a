import os from "node:os";
import path from "node:path";
import { classify_argv } from "./classify.js";
import { hidden_characters } from "./characters.js";
import { judge_arguments, read_word, write_word, type PathSink } from "./command-paths.js";
import { package_manager_execution, PACKAGE_MANAGERS } from "./npmrc.js";
import { flatten, type ShellRedirect, type SimpleCommand } from "./parse.js";
import { EXECUTING_VARIABLES, expanded_names, from_environment } from "./environment.js";
import { expand_words, notice_script, path_candidates } from "./expand.js";
import { LOST, type Places, START } from "./folders.js";
import { Globs } from "./glob.js";
import { judge_read, judge_write } from "./paths.js";
import { piped_text } from "./piped.js";
import { rule_of } from "./grammar/registry.js";
import type { Matched, PathUse, ReadDepth } from "./grammar/matched.js";
import { shell_invocation, SHELL_MANUALS } from "./shells.js";
import { call_cycles, endless_source } from "./signals.js";
import type {
  AnalyzedCommand,
  AnalyzerAction,
  AnalyzerContext,
  CommandAnalysis,
  CommandCategory,
  CommandFinding,
  FindingCategory,
  ShellWord,
} from "./types.js";
import { judge_tree } from "./trees.js";
import { STRICTNESS } from "./types.js";
import { evaluation, type Variables } from "./variables.js";
import { standard_name, type Unwrapped, unwrap } from "./wrappers.js";
import { xargs_command } from "./xargs.js";

const MAX_DEPTH = 8;
/** Longer commands are refused rather than parsed: no agent needs 64 KiB of shell in one call. */
const MAX_COMMAND_LENGTH = 64 * 1024;
/** More substitutions than this in one command are refused: the parser's time grows with their nesting. */
const MAX_SUBSTITUTIONS = 512;
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "mksh", "fish"]);
/** `node --version`, `python3 -V`: an interpreter asked about itself runs no code. */
const VERSION_FLAGS = new Set(["--version", "-v", "-V", "--help", "-h"]);
/** Interpreters without an argument grammar (node, python, ruby, perl, php, lua, deno and bun have theirs, in grammars/). */
const INTERPRETERS = new Set(["tclsh", "Rscript"]);
const BASE_ACTION: Record<CommandCategory, AnalyzerAction> = {
  read_only: "allow",
  build: "allow",
  test: "allow",
  static_analysis: "allow",
  git_read: "allow",
  git_write: "ask_user",
  destructive: "ask_user",
  network: "ask_user",
  system_sensitive: "ask_user",
  credential_sensitive: "deny",
};

/** What the commands of one parsed script share: its functions and its variables. */
type Scope = { readonly functions: Set<string>; readonly variables: Variables };

/** One command as the handler of its program sees it. */
type Invocation = {
  readonly command: SimpleCommand;
  readonly name: string;
  readonly args: readonly ShellWord[];
  readonly values: readonly string[];
  /** The command's categories so far, which the handler adds to. */
  readonly categories: Set<CommandCategory>;
  readonly depth: number;
};

/** How a program that runs code it is given (a string, a script file, its standard input) is analysed. */
type CodeRunner = (analysis: Analysis, invocation: Invocation) => void;

function run_shell(analysis: Analysis, { command, name, args, depth }: Invocation): void {
  const shell = shell_invocation(name, args);
  for (const reason of shell.asks) analysis.add("ask_user", "unknown_execution", reason);
  for (const file of shell.startup) analysis.script(file, `${name} --rcfile`);
  if (shell.mode === "code") analysis.code(shell.code, `${name} -c`, depth);
  else if (shell.mode === "script" && shell.script !== undefined && !(shell.script.literal && STANDARD_INPUT.has(shell.script.value)))
    analysis.script(shell.script, name);
  else analysis.stdin_code(command, name, depth);
}

function run_eval(analysis: Analysis, { args, values, depth }: Invocation): void {
  const literal = args.every((word) => word.literal);
  analysis.code({ value: values.join(" "), literal, glob: false }, "eval", depth);
}

/** Runners whose standard input is bash code the analyzer reads: the shells but fish, and `source /dev/stdin`. */
const reads_bash = (runner: string): boolean => (SHELLS.has(runner) && runner !== "fish") || runner === "source" || runner === ".";

/** Paths that name the standard input: a shell or `source` given one runs what it is fed, not a project file. */
const STANDARD_INPUT = new Set(["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]);

function run_source(analysis: Analysis, { command, name, args, depth }: Invocation): void {
  const file = args[0];
  if (file?.literal === true && STANDARD_INPUT.has(file.value)) analysis.stdin_code(command, name, depth);
  else if (file !== undefined) analysis.script(file, name);
}

/** bash 5.2 `trap [-lp] [[action] sigspec …]`: the action is code run later; `-l`, `-p` only print. */
function run_trap(analysis: Analysis, { args, depth }: Invocation): void {
  const rest = args[0]?.value === "--" ? args.slice(1) : args;
  const action = rest[0];
  if (action === undefined || (action.literal && /^-[lpP]+$/.test(action.value))) return;
  if (action.value !== "-" && rest.length > 1) analysis.code(action, "trap", depth);
}

function run_su(analysis: Analysis, { args, categories, depth }: Invocation): void {
  categories.add("system_sensitive");
  const index = args.findIndex((word) => word.value === "-c" || word.value === "--command");
  if (index !== -1) analysis.code(args[index + 1], "su -c", depth);
  else analysis.add("ask_user", "unknown_execution", "su opens a shell as another user");
}

function run_interpreter(analysis: Analysis, { command, name, args, values, categories, depth }: Invocation): void {
  if (args.length > 0 && args.every((word) => word.literal && VERSION_FLAGS.has(word.value))) {
    categories.add("read_only");
    return;
  }
  const inline = args.findIndex((word) => /^(-[a-zA-Z]*[ce]|--eval|-p|--print|-E)$/.test(word.value));
  if (inline !== -1) {
    analysis.add("ask_user", "unknown_execution", `${name} ${values[inline]} runs inline code this analyzer cannot read`);
    return;
  }
  const script = args.find((word) => !word.value.startsWith("-") || !word.literal);
  if (script !== undefined && script.value !== "-") analysis.script(script, name);
  else analysis.stdin_code(command, name, depth);
}

/** The programs that run code they are given, by name; every other program goes through `other_program`. */
const CODE_RUNNERS: ReadonlyMap<string, CodeRunner> = new Map<string, CodeRunner>([
  ...[...SHELLS].map((shell): [string, CodeRunner] => [shell, run_shell]),
  ["eval", run_eval],
  ["source", run_source],
  [".", run_source],
  ["trap", run_trap],
  ["su", run_su],
  ...[...INTERPRETERS].map((interpreter): [string, CodeRunner] => [interpreter, run_interpreter]),
]);

/** The rules the shells and the code-running builtins answer to in the report. */
const RUNNER_RULES: ReadonlyMap<string, { rule: string; manual: string }> = new Map([
  ...[...SHELL_MANUALS].map(([shell, manual]): [string, { rule: string; manual: string }] => [shell, { rule: shell, manual }]),
  ...["eval", "source", ".", "trap"].map((builtin): [string, { rule: string; manual: string }] => [
    builtin,
    { rule: builtin, manual: `bash(1), GNU Bash 5.2: ${builtin}` },
  ]),
]);

class Analysis implements PathSink {
  readonly commands: AnalyzedCommand[] = [];
  readonly writes: string[] = [];
  readonly reads: string[] = [];
  readonly findings: CommandFinding[] = [];
  /** Folders the script `cd`s into: package-manager configuration is looked for there too. */
  readonly folders: string[] = [];
  /** Folders programs are pointed at (`git -C`, `make -C`): where they work, though the shell stays put. */
  readonly worked_in: string[] = [];
  /** Variables the script sets, for whoever must know that git (or anything else) will see them. */
  readonly assigned: string[] = [];
  /** The real folders the command being analysed may run in: its relative paths are judged from each. */
  bases: readonly string[];
  /** How many files the commands analysed so far write, devices aside. */
  written = 0;
  runs_unknown_code = false;
  readonly globs: Globs;

  constructor(readonly context: AnalyzerContext) {
    this.bases = [context.cwd_real];
    this.globs = new Globs(context.cwd_real, context.home ?? os.homedir());
  }

  add(action: AnalyzerAction, category: FindingCategory, reason: string): void {
    if (!this.findings.some((finding) => finding.action === action && finding.category === category && finding.reason === reason))
      this.findings.push({ action, category, reason });
  }

  run(source: string, via: string | undefined, depth: number): void {
    if (depth > MAX_DEPTH) {
      this.add("deny", "unparseable", `commands nested more than ${MAX_DEPTH} levels deep`);
      return;
    }
    const flat = flatten(source);
    notice_script(flat.commands, flat.variables, this.globs, via);
    for (const error of flat.errors) this.add("deny", "unparseable", `the command cannot be parsed: ${error}`);
    for (const text of flat.dynamic_code)
      this.add("ask_user", "unknown_execution", `${text} expands a value as a prompt string, which runs the substitutions in it`);
    for (const word of flat.file_tests) read_word(this, word, flat.variables);
    for (const cycle of call_cycles(flat.calls)) {
      this.add(
        "ask_user",
        "system_sensitive",
        `function ${cycle[0]} calls itself (${cycle.join(" → ")}): a recursive function, piped or in the background, can exhaust processes and memory`,
      );
    }
    const scope: Scope = { functions: flat.functions, variables: flat.variables };
    const evaluated = evaluation(flat.variables);
    for (const { name, value } of evaluated.code) this.run(`: ${value}`, `arithmetic on $${name}`, depth + 1);
    for (const name of evaluated.unknown) {
      this.add(
        "ask_user",
        "unknown_execution",
        `$${name} is evaluated as arithmetic or as a variable name, and its value is only known at run time (a value like a[$(cmd)] runs cmd)`,
      );
    }
    for (const command of flat.commands) this.simple(command, via, depth, scope);
  }

  /** Runs a code string: literal ⇒ parsed again; anything else ⇒ unknown code. */
  code(word: ShellWord | undefined, via: string, depth: number): void {
    if (word === undefined) return;
    if (word.literal) this.run(word.value, via, depth + 1);
    else {
      this.runs_unknown_code = true;
      this.add("ask_user", "unknown_execution", `${via} runs ${word.value}, whose value is only known at run time`);
    }
  }

  /** One simple command, judged from every folder the `cd`s before it may have left the shell in. */
  simple(command: SimpleCommand, via: string | undefined, depth: number, scope: Scope): void {
    const outer = this.bases;
    this.bases = this.places(command.places ?? START, outer, scope.variables);
    const written = this.written;
    try {
      // `IFS=, read -r a b` splits that one command's input; only an assignment standing alone changes how later words split
      this.settings(command.words.length > 0 ? command.assignments.filter((assignment) => assignment.name !== "IFS") : command.assignments);
      this.redirections(command.redirects, scope);
      // bash expands braces and globs before it runs anything, wrappers included
      const expanded = expand_words(command.words, this.globs);
      for (const reason of expanded.over) this.add("ask_user", "unknown_execution", reason);
      const unwrapped = unwrap(expanded.words);
      this.settings(unwrapped.assignments);
      this.wrapped(unwrapped, scope);
      const fed =
        unwrapped.xargs === undefined ? undefined : xargs_command(unwrapped.words, unwrapped.xargs, command.producer, this.bases[0] ?? this.context.cwd_real);
      const words = fed?.words ?? unwrapped.words;
      const through = via ?? (unwrapped.wrappers.length > 0 ? unwrapped.wrappers.join(" ") : undefined);
      if (unwrapped.shell_string !== undefined) this.code(unwrapped.shell_string, unwrapped.wrappers.at(-1) ?? "a wrapper", depth);
      if (words.length > 0) this.program_command(command, words, fed?.trees ?? [], through, depth, scope, unwrapped.privileged);
      else if (unwrapped.alone !== undefined) {
        const before = unwrapped.wrappers.slice(0, -1).join(" ");
        const alone = { rule: unwrapped.alone.name, manual: unwrapped.alone.manual };
        this.record([unwrapped.alone.name], new Set(["read_only"]), via ?? (before === "" ? undefined : before), alone);
      }
      this.signals(command, words, unwrapped, written);
    } finally {
      this.bases = outer;
    }
  }

  /** The program a command runs, after its wrappers: a function, a code runner, a grammar, or the old category analysis. */
  program_command(
    command: SimpleCommand,
    words: readonly ShellWord[],
    trees: readonly PathUse[],
    through: string | undefined,
    depth: number,
    scope: Scope,
    privileged: boolean,
  ): void {
    const [head, ...args] = words;
    if (head === undefined) return;
    const argv = words.map((word) => word.value);
    const categories = new Set<CommandCategory>();
    if (privileged) categories.add("system_sensitive");
    let matched: Matched | { rule: string; manual: string } | undefined;
    const name = this.program(head);
    if (name !== undefined) {
      argv[0] = name;
      if (scope.functions.has(name)) {
        categories.add("read_only");
        this.record(argv, categories, through, { rule: `function ${name}`, manual: "defined by this command" });
        return;
      }
      const invocation: Invocation = { command, name, args, values: args.map((word) => word.value), categories, depth };
      const runner = CODE_RUNNERS.get(name);
      const rule = runner === undefined ? rule_of(name) : undefined;
      if (runner !== undefined) {
        runner(this, invocation);
        matched = RUNNER_RULES.get(name);
      } else if (rule !== undefined) {
        this.options_in_variables(name, args, scope);
        const found = rule.match(args);
        found.reads.push(...trees);
        matched = this.matched(found, invocation, scope);
      } else {
        this.other_program(invocation, scope);
        for (const tree of trees) read_word(this, tree.word, scope.variables, tree.depth);
      }
    }
    this.record(argv, categories, through, matched);
    this.finish(categories, argv);
  }

  /** What the wrappers' own options do: files they read and write, the folder they run the command in. */
  wrapped(unwrapped: Unwrapped, scope: Scope): void {
    for (const finding of unwrapped.findings) this.add(finding.action, finding.category, finding.reason);
    for (const word of unwrapped.reads) read_word(this, word, scope.variables);
    for (const word of unwrapped.writes) write_word(this, word, scope.variables, unwrapped.wrappers.join(" "));
    for (const word of unwrapped.folders) {
      read_word(this, word, scope.variables);
      this.bases = this.places([[word]], this.bases, scope.variables);
    }
  }

  /**
   * Resource exhaustion: a command that writes files (or starts background jobs) on every turn of a loop
   * with no end in sight, or writes an endless stream (`yes > f`), or keeps one in memory (`x=$(yes)`).
   */
  signals(command: SimpleCommand, words: readonly ShellWord[], unwrapped: Unwrapped, written: number): void {
    const name = words[0]?.value ?? unwrapped.alone?.name ?? "the command";
    const inputs = command.redirects.flatMap((redirect) => (redirect.kind === "file" && redirect.operator === "<" && redirect.target ? [redirect.target] : []));
    const source = endless_source(unwrapped.words, inputs);
    const stream = command.stream ?? source;
    const ask = (reason: string) => this.add("ask_user", "system_sensitive", reason);
    if (command.loop !== undefined && this.written > written)
      ask(`${name} writes files on every turn of a loop with no end in sight (${command.loop}): it can fill the disk`);
    else if (stream !== undefined && this.written > written) ask(`${name} writes an endless stream (${stream}) into a file: it fills the disk`);
    if (command.loop !== undefined && command.background === true)
      ask(`${name} starts a background job on every turn of a loop with no end in sight (${command.loop}): processes pile up without end`);
    else if (command.repeated !== undefined && command.background === true)
      ask(`${name} starts a background job on every turn of a loop that may turn many times (${command.repeated}): processes pile up`);
    if (stream !== undefined && command.captured === true) ask(`$(${name}) keeps an endless stream (${stream}) in memory`);
    if (command.stream !== undefined && unwrapped.xargs?.parallel === true)
      ask(`xargs -P runs commands side by side for every item of an endless stream (${command.stream}): processes pile up without end`);
  }

  /**
   * The real folders a command may run in: each chain of `cd` targets followed from each folder the
   * analysis is in, a target only known at run time through every value the script gives it.
   */
  places(places: Places, from: readonly string[], variables: Variables): readonly string[] {
    if (places === START) return from;
    const reached = new Set<string>();
    for (const chain of places) {
      let folders = [...from];
      for (const target of chain) {
        const candidates = target === LOST ? undefined : path_candidates(target, variables, this.globs);
        if (candidates === undefined) {
          const spelled = target === LOST ? "…" : target.value;
          this.add("ask_user", "unknown_execution", `the command runs in a folder only known at run time (cd ${spelled}), so its paths cannot be checked`);
          break;
        }
        folders = folders.flatMap((folder) => candidates.map((candidate) => judge_read(candidate.path, { ...this.context, cwd_real: folder })?.real ?? folder));
      }
      for (const folder of folders) {
        reached.add(folder);
        if (folder !== this.context.cwd_real && !this.folders.includes(folder)) this.folders.push(folder);
      }
    }
    return reached.size > 0 ? [...reached] : [...from];
  }

  /**
   * A rule reads a word only known at run time as an operand; when the script gives it a value that is an
   * option (`F='--expression=1e id'; sed -n p "$F"`), or one that splits into words with one (`X='-t dir'`),
   * the program would read an option its rule never saw.
   */
  options_in_variables(name: string, args: readonly ShellWord[], scope: Scope): void {
    for (const word of args) {
      if (word.literal) continue;
      const spellings = path_candidates(word, scope.variables, this.globs) ?? [];
      const option = spellings.find((spelling) => /(^|\s)-/.test(spelling.path));
      if (option !== undefined)
        this.add("ask_user", "unknown_execution", `${word.value} may be the option ${option.path} of ${name}, which its grammar cannot check`);
    }
  }

  /** A command its program's rule has read: what the rule found, judged against the project. */
  matched(matched: Matched, { command, name, categories, depth }: Invocation, scope: Scope): Matched {
    for (const category of matched.categories) categories.add(category);
    for (const finding of matched.findings) this.add(finding.action, finding.category, finding.reason);
    for (const { word, via } of matched.code) this.code(word, via, depth);
    for (const { words, via } of matched.argv) this.simple({ words, assignments: [], redirects: [], piped_stdin: false }, via, depth + 1, scope);
    for (const { word, depth } of matched.reads) read_word(this, word, scope.variables, depth);
    for (const { name: shown, via } of matched.shown) this.show(shown, `${via} prints`, scope.variables);
    for (const word of matched.folders) this.worked_folder(word, scope.variables);
    for (const assigned of matched.assigned) if (!this.assigned.includes(assigned)) this.assigned.push(assigned);
    const destructive = categories.has("destructive");
    for (const write of matched.writes) write_word(this, write.word, scope.variables, matched.rule, destructive || write.destructive);
    for (const script of matched.scripts) this.script(script, name);
    if (matched.stdin_code) this.stdin_code(command, name, depth);
    if (PACKAGE_MANAGERS.has(name)) this.package_configuration(name);
    return matched;
  }

  /** Variable assignments before a command (or a wrapper's, like `env X=…`). */
  settings(assignments: readonly { readonly name: string }[]): void {
    for (const { name } of assignments) {
      if (!this.assigned.includes(name)) this.assigned.push(name);
      if (EXECUTING_VARIABLES.test(name)) this.add("ask_user", "unknown_execution", `setting ${name} changes what the next program runs`);
    }
  }

  /** A folder a program is pointed at, from every folder the command may run in; unknown words are asked about by their read. */
  worked_folder(word: ShellWord, variables: Variables): void {
    for (const candidate of path_candidates(word, variables, this.globs) ?? []) {
      for (const context of this.from_bases()) {
        const real = judge_read(candidate.path, context)?.real;
        if (real !== undefined && !this.worked_in.includes(real)) this.worked_in.push(real);
      }
    }
  }

  /** File redirections as path reads (`<`) and writes (the others); descriptor duplications (`2>&1`) touch no file. */
  redirections(redirects: readonly ShellRedirect[], scope: Scope): void {
    for (const redirect of redirects) {
      if (redirect.kind === "heredoc" && !redirect.literal)
        for (const name of expanded_names(redirect.body)) this.show(name, "a here-document hands the command", scope.variables);
      if (redirect.kind === "herestring" && redirect.target?.literal === false)
        for (const name of expanded_names(redirect.target.value)) this.show(name, "a here-string hands the command", scope.variables);
      if (redirect.kind !== "file") continue;
      const target = redirect.target;
      if (target === undefined) continue;
      if ((redirect.operator === ">&" || redirect.operator === "<&") && /^(\d+-?|-)$/.test(target.value)) continue;
      if (redirect.operator === "<") read_word(this, target, scope.variables);
      else write_word(this, target, scope.variables, "the redirection");
    }
  }

  /** A variable a command prints (`how`: "echo prints"): one of the environment that is not well known may hold a secret. */
  show(name: string, how: string, variables: Variables): void {
    if (from_environment(name, variables))
      this.add("ask_user", "credential_sensitive", `${how} $${name}, a variable of the environment that may hold a secret`);
  }

  /**
   * The program a command word names: a literal name, or a path into a standard bin folder, by its base name.
   * Anything else runs code this analyzer cannot know, so it is not named at all.
   */
  program(head: ShellWord): string | undefined {
    if (!head.literal) {
      this.add("ask_user", "unknown_execution", `the command name ${head.value} is only known at run time`);
      return undefined;
    }
    const name = standard_name(head.value);
    if (name !== undefined) return name;
    this.add("ask_user", "unknown_execution", `${head.value} runs a program whose behaviour is unknown`);
    this.read(head.value);
    return undefined;
  }

  /**
   * A program with no argument grammar: classified by name and arguments, its operands judged as paths,
   * and never run without a question, since nothing vouches for its options.
   */
  other_program({ name, args, values, categories }: Invocation, scope: Scope): void {
    const classified = classify_argv(name, values);
    for (const category of classified.categories) categories.add(category);
    if (!classified.known) this.add("ask_user", "unknown_execution", `${[name, ...values.slice(0, 1)].join(" ")} is not a command this analyzer knows`);
    else this.add("ask_user", "unknown_execution", `${name} has no argument grammar in this analyzer, so its arguments cannot be checked`);
    judge_arguments(this, name, args, categories, scope.variables);
  }

  record(argv: readonly string[], categories: ReadonlySet<CommandCategory>, through: string | undefined, rule?: { rule: string; manual: string }): void {
    this.commands.push({
      argv,
      categories: [...categories],
      ...(through === undefined ? {} : { executes_via: through }),
      ...(rule === undefined ? {} : { rule: rule.rule, manual: rule.manual }),
    });
  }

  finish(categories: Set<CommandCategory>, argv: readonly string[]): void {
    for (const category of categories) this.add(BASE_ACTION[category], category, `${argv.slice(0, 3).join(" ")} is ${category.replace("_", " ")}`);
  }

  /** The contexts a path is judged in: one per folder the command may run in. */
  from_bases(): AnalyzerContext[] {
    return this.bases.map((base) => (base === this.context.cwd_real ? this.context : { ...this.context, cwd_real: base }));
  }

  write(word: string, destructive = false, children = false): void {
    for (const context of this.from_bases()) {
      const verdict = judge_write(word, context, destructive, children);
      if (verdict.reason === "device") continue;
      this.written += 1;
      if (!this.writes.includes(verdict.real)) this.writes.push(verdict.real);
      if (verdict.action !== "allow") this.add(verdict.action, verdict.category, verdict.reason);
    }
  }

  /** A path read; a folder read as a tree (`depth`), also what the program reaches below it. */
  read(word: string, depth: ReadDepth = "path"): void {
    for (const context of this.from_bases()) {
      const verdict = judge_read(word, context);
      if (verdict === undefined) continue;
      if (verdict.exists && !this.reads.includes(verdict.real)) this.reads.push(verdict.real);
      if (verdict.action !== "allow") this.add(verdict.action, verdict.category, verdict.reason);
      else for (const finding of judge_tree(word, verdict.real, depth, context)) this.add(finding.action, finding.category, finding.reason);
    }
  }

  /** npm/pnpm/yarn run what the project's .npmrc, .yarnrc(.yml) and pnpm-workspace.yaml tell them to. */
  package_configuration(manager: string): void {
    for (const folder of [this.context.cwd_real, ...this.folders]) {
      for (const setting of package_manager_execution(folder, this.context.root_real)) {
        const file = path.relative(this.context.root_real, setting.file) || setting.file;
        this.add(
          "deny",
          "system_sensitive",
          `${file} sets ${setting.key} = ${setting.value}: ${manager} would run code the configuration chooses, not the package's scripts`,
        );
      }
    }
  }

  /** A script file run by a shell, `source` or an interpreter: project files are announced, others asked. */
  script(word: ShellWord, runner: string): void {
    if (!word.literal) {
      this.runs_unknown_code = true;
      this.add("ask_user", "unknown_execution", `${runner} runs ${word.value}, which is only known at run time`);
      return;
    }
    const verdicts = this.from_bases().map((context) => judge_read(word.value, context));
    this.read(word.value);
    if (verdicts.some((verdict) => verdict === undefined))
      this.add("ask_user", "unknown_execution", `${runner} runs ${word.value}, a device, not a project script`);
    else if (verdicts.some((verdict) => verdict !== undefined && this.writes.includes(verdict.real)))
      this.add("ask_user", "unknown_execution", `${runner} runs ${word.value}, which this command writes itself, so what it runs is only known at run time`);
    else if (verdicts.every((verdict) => verdict?.action === "allow"))
      this.add("announce_then_run", "build", `${runner} runs the project script ${word.value}`);
    else this.add("ask_user", "unknown_execution", `${runner} runs ${word.value} from outside the project`);
  }

  /** A shell or interpreter reading its program from standard input. */
  stdin_code(command: SimpleCommand, runner: string, depth: number): void {
    for (const redirect of command.redirects) {
      if (redirect.kind === "heredoc") {
        if (!redirect.literal) this.add("ask_user", "unknown_execution", `${runner} runs a here-document with expansions`);
        if (reads_bash(runner)) this.run(redirect.body, `${runner} <<`, depth + 1);
        else this.add("ask_user", "unknown_execution", `${runner} runs a here-document`);
        return;
      }
      if (redirect.kind === "herestring") {
        if (reads_bash(runner)) this.code(redirect.target, `${runner} <<<`, depth);
        else this.add("ask_user", "unknown_execution", `${runner} runs a here-string`);
        return;
      }
      if (redirect.kind === "file" && redirect.operator === "<" && redirect.target !== undefined) {
        this.script(redirect.target, runner);
        return;
      }
    }
    const piped = command.piped_stdin && command.producer !== undefined ? piped_text(command.producer) : undefined;
    if (piped !== undefined && reads_bash(runner)) {
      if (!piped.literal) {
        this.runs_unknown_code = true;
        this.add("ask_user", "unknown_execution", `${runner} runs text piped into it with expansions or escapes, only known at run time`);
      }
      this.run(piped.text, `${piped.producer} | ${runner}`, depth + 1);
      return;
    }
    this.runs_unknown_code = true;
    this.add("ask_user", "unknown_execution", `${runner} runs code from its standard input${command.piped_stdin ? " (a pipe)" : ""}`);
  }

  result(): CommandAnalysis {
    if (this.runs_unknown_code && this.commands.some((command) => command.categories.includes("network"))) {
      this.add("deny", "network", "the command downloads something and runs code this analyzer cannot read (remote code execution)");
    }
    let verdict: AnalyzerAction = "allow";
    for (const finding of this.findings) if (STRICTNESS[finding.action] > STRICTNESS[verdict]) verdict = finding.action;
    const folders = [...new Set([...this.folders, ...this.worked_in])];
    return { commands: this.commands, writes: this.writes, reads: this.reads, findings: this.findings, folders, assigned: this.assigned, verdict };
  }
}

/**
 * CommandRiskAnalyzer (issue 4, seeds 003 §12): every command bash would run, with wrappers stripped,
 * classified into the ten command categories; redirections and write arguments judged as path writes.
 * Never throws: anything it cannot parse is denied; a command holding control, bidi, invisible or
 * look-alike characters is refused before it is parsed.
 */
export function analyze_command(command: string, context: AnalyzerContext): CommandAnalysis {
  const analysis = new Analysis({ ...context, memo: context.memo ?? new Map() });
  try {
    const hidden = command.length > MAX_COMMAND_LENGTH ? undefined : hidden_characters(command);
    if (command.length > MAX_COMMAND_LENGTH)
      analysis.add("deny", "unparseable", `the command is ${command.length} characters long, over the ${MAX_COMMAND_LENGTH} this analyzer reads`);
    else if (hidden !== undefined) analysis.add(hidden.action, hidden.category, hidden.reason);
    else if ((command.match(/[$<>]\(|`/g) ?? []).length > MAX_SUBSTITUTIONS)
      analysis.add("deny", "unparseable", `the command has more than ${MAX_SUBSTITUTIONS} substitutions`);
    else analysis.run(command, undefined, 0);
  } catch (error) {
    analysis.add("deny", "unparseable", `the command could not be analysed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return analysis.result();
}

import os from "node:os";
import path from "node:path";
import { classify_argv } from "./classify.js";
import { judge_arguments, read_word, write_word, type PathSink } from "./command-paths.js";
import { expand_words, notice_script, path_candidates } from "./expand.js";
import { Globs } from "./glob.js";
import { package_manager_execution, PACKAGE_MANAGERS } from "./npmrc.js";
import { flatten, type ShellRedirect, type SimpleCommand } from "./parse.js";
import { judge_read, judge_write } from "./paths.js";
import { piped_text } from "./piped.js";
import { argument_execution } from "./argument-execution.js";
import { rule_of } from "./grammar/registry.js";
import type { Matched, ReadDepth } from "./grammar/matched.js";
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
import { unwrap } from "./wrappers.js";

const MAX_DEPTH = 8;
/** Longer commands are refused rather than parsed: no agent needs 64 KiB of shell in one call. */
const MAX_COMMAND_LENGTH = 64 * 1024;
/** More substitutions than this in one command are refused: the parser's time grows with their nesting. */
const MAX_SUBSTITUTIONS = 512;
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "busybox"]);
/** `tclsh --version`: an interpreter asked about itself runs no code. */
const VERSION_FLAGS = new Set(["--version", "-v", "-V", "--help", "-h"]);
/** Interpreters without an argument grammar (node, python, ruby, perl, php, lua, deno and bun have theirs, in grammars/). */
const INTERPRETERS = new Set(["tclsh", "Rscript"]);
const STANDARD_BIN = new Set(["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/opt/homebrew/bin"]);
/**
 * Variables that make the next program run code of their choosing — directly, or through a configuration
 * file they point it at (`HOME`/`XDG_CONFIG_HOME` move every dotfile, `OPENSSL_CONF` can load a library), or
 * options they add (`MAKEFLAGS`, `CFLAGS`, `TAR_OPTIONS`): a rule judges only its command's arguments.
 */
const EXECUTING_VARIABLES =
  /^(PATH|HOME|XDG_CONFIG_HOME|ZDOTDIR|CURL_HOME|WGETRC|RSYNC_RSH|RSYNC_CONNECT_PROG|OPENSSL_CONF|OPENSSL_ENGINES|OPENSSL_MODULES|RIPGREP_CONFIG_PATH|MAKEFLAGS|MFLAGS|GNUMAKEFLAGS|MAKEFILES|CC|CXX|CPP|LD|AR|AS|CFLAGS|CXXFLAGS|CPPFLAGS|LDFLAGS|CMAKE_.*|GCC_EXEC_PREFIX|COMPILER_PATH|CCC_OVERRIDE_OPTIONS|TAR_OPTIONS|ZIPOPT|UNZIP|UNZIPOPT|XZ_OPT|XZ_DEFAULTS|GZIP|BZIP2|LD_PRELOAD|LD_LIBRARY_PATH|LD_AUDIT|DYLD_.*|BASH_ENV|ENV|PROMPT_COMMAND|PS4|SHELLOPTS|BASHOPTS|IFS|GIT_.*|PAGER|MANPAGER|EDITOR|VISUAL|NODE_OPTIONS|NODE_PATH|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PYTHONUSERBASE|PYTHONINSPECT|PYTHONWARNINGS|PYTEST_ADDOPTS|PYTEST_PLUGINS|PERL5OPT|PERL5LIB|RUBYOPT|RUBYLIB|PHPRC|PHP_INI_SCAN_DIR|LUA_INIT.*|LUA_C?PATH.*|npm_config_.*|NPM_CONFIG_.*|YARN_.*|COREPACK_.*|LESSOPEN|LESSCLOSE|BROWSER|SSH_ASKPASS|SUDO_ASKPASS)$/;
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
  const code_index = args.findIndex((word) => word.literal && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(word.value));
  const operand = args.findIndex((word) => !word.value.startsWith("-") || !word.literal);
  const script = operand === -1 ? undefined : args[operand];
  // `-s` (or `-`) reads the program from standard input even when arguments follow
  const from_stdin = args.slice(0, operand === -1 ? undefined : operand).some((word) => word.value === "-" || /^-[a-zA-Z]*s[a-zA-Z]*$/.test(word.value));
  if (code_index !== -1) analysis.code(args[code_index + 1], `${name} -c`, depth);
  else if (script !== undefined && !from_stdin) analysis.script(script, name);
  else analysis.stdin_code(command, name, depth);
}

function run_eval(analysis: Analysis, { args, values, depth }: Invocation): void {
  const literal = args.every((word) => word.literal);
  analysis.code({ value: values.join(" "), literal, glob: false }, "eval", depth);
}

function run_source(analysis: Analysis, { name, args }: Invocation): void {
  if (args[0] !== undefined) analysis.script(args[0], name);
}

function run_trap(analysis: Analysis, { args, depth }: Invocation): void {
  if (args[0] !== undefined && args[0].value !== "-" && args.length > 1) analysis.code(args[0], "trap", depth);
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

class Analysis implements PathSink {
  readonly commands: AnalyzedCommand[] = [];
  readonly writes: string[] = [];
  readonly reads: string[] = [];
  readonly findings: CommandFinding[] = [];
  /** Folders the script `cd`s into: package-manager configuration is looked for there too. */
  readonly folders: string[] = [];
  runs_unknown_code = false;
  readonly globs: Globs;

  constructor(readonly context: AnalyzerContext) {
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
    for (const error of flat.errors) this.add("deny", "unparseable", `the command cannot be parsed: ${error}`);
    for (const text of flat.dynamic_code)
      this.add("ask_user", "unknown_execution", `${text} expands a value as a prompt string, which runs the substitutions in it`);
    const scope: Scope = { functions: flat.functions, variables: flat.variables };
    notice_script(flat.commands, flat.variables, this.globs, via);
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

  simple(command: SimpleCommand, via: string | undefined, depth: number, scope: Scope): void {
    this.settings(command.assignments);
    this.redirections(command.redirects, scope);
    // bash expands braces and globs before it runs anything, wrappers included
    const expanded = expand_words(command.words, this.globs);
    for (const reason of expanded.over) this.add("ask_user", "unknown_execution", reason);
    const unwrapped = unwrap(expanded.words);
    this.settings(unwrapped.assignments);
    const through = via ?? (unwrapped.wrappers.length > 0 ? unwrapped.wrappers.join(" ") : undefined);
    if (unwrapped.shell_string !== undefined) this.code(unwrapped.shell_string, unwrapped.wrappers.at(-1) ?? "a wrapper", depth);
    const [head, ...args] = unwrapped.words;
    if (head === undefined) return;
    const argv = unwrapped.words.map((word) => word.value);
    const categories = new Set<CommandCategory>();
    if (unwrapped.privileged) categories.add("system_sensitive");
    let matched: Matched | undefined;
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
      if (runner !== undefined) runner(this, invocation);
      else if (rule !== undefined) {
        this.options_in_variables(name, args, scope);
        matched = this.matched(rule.match(args), invocation, scope);
      }
      else this.other_program(invocation, scope);
      if ((name === "cd" || name === "pushd") && args[0]?.literal === true) this.enter(args[0].value);
    }
    this.record(argv, categories, through, matched);
    this.finish(categories, argv);
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
      if (option !== undefined) this.add("ask_user", "unknown_execution", `${word.value} may be the option ${option.path} of ${name}, which its grammar cannot check`);
    }
  }

  /** A command its program's rule has read: what the rule found, judged against the project. */
  matched(matched: Matched, { command, name, categories, depth }: Invocation, scope: Scope): Matched {
    for (const category of matched.categories) categories.add(category);
    for (const finding of matched.findings) this.add(finding.action, finding.category, finding.reason);
    for (const { word, via } of matched.code) this.code(word, via, depth);
    for (const { words, via } of matched.argv) this.simple({ words, assignments: [], redirects: [], piped_stdin: false }, via, depth + 1, scope);
    for (const { word, depth } of matched.reads) read_word(this, word, scope.variables, depth);
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
      if (EXECUTING_VARIABLES.test(name)) this.add("ask_user", "unknown_execution", `setting ${name} changes what the next program runs`);
    }
  }

  /** File redirections as path reads (`<`) and writes (the others); descriptor duplications (`2>&1`) touch no file. */
  redirections(redirects: readonly ShellRedirect[], scope: Scope): void {
    for (const redirect of redirects) {
      if (redirect.kind !== "file") continue;
      const target = redirect.target;
      if (target === undefined) continue;
      if ((redirect.operator === ">&" || redirect.operator === "<&") && /^(\d+-?|-)$/.test(target.value)) continue;
      if (redirect.operator === "<") read_word(this, target, scope.variables);
      else write_word(this, target, scope.variables, "the redirection");
    }
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
    if (!head.value.includes("/")) return head.value;
    if (STANDARD_BIN.has(path.posix.dirname(head.value))) return path.posix.basename(head.value);
    this.add("ask_user", "unknown_execution", `${head.value} runs a program whose behaviour is unknown`);
    this.read(head.value);
    return undefined;
  }

  /**
   * A program with no argument grammar: classified by name and arguments, and by what its arguments carry,
   * and never run without a question, since nothing vouches for its options.
   */
  other_program({ name, args, values, categories, depth }: Invocation, scope: Scope): void {
    const classified = classify_argv(name, values);
    for (const category of classified.categories) categories.add(category);
    if (!classified.known) this.add("ask_user", "unknown_execution", `${[name, ...values.slice(0, 1)].join(" ")} is not a command this analyzer knows`);
    else this.add("ask_user", "unknown_execution", `${name} has no argument grammar in this analyzer, so its arguments cannot be checked`);
    const borne = argument_execution(name, args);
    for (const finding of borne.findings) this.add(finding.action, finding.category, finding.reason);
    for (const category of borne.categories) categories.add(category);
    for (const code of borne.code) this.code(code.word, code.via, depth);
    for (const nested of borne.argv) this.simple({ words: nested.words, assignments: [], redirects: [], piped_stdin: false }, nested.via, depth + 1, scope);
    for (const target of borne.writes) this.write(target);
    for (const source of borne.reads) this.read(source);
    judge_arguments(this, name, args, categories, scope.variables);
    if (PACKAGE_MANAGERS.has(name)) this.package_configuration(name);
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

  write(word: string, destructive = false, children = false): void {
    const verdict = judge_write(word, this.context, destructive, children);
    if (verdict.reason !== "device" && !this.writes.includes(verdict.real)) this.writes.push(verdict.real);
    if (verdict.action !== "allow") this.add(verdict.action, verdict.category, verdict.reason);
  }

  /** A path read; a folder read as a tree (`depth`), also what the program reaches below it. */
  read(word: string, depth: ReadDepth = "path"): void {
    const verdict = judge_read(word, this.context);
    if (verdict === undefined) return;
    if (verdict.exists && !this.reads.includes(verdict.real)) this.reads.push(verdict.real);
    if (verdict.action !== "allow") this.add(verdict.action, verdict.category, verdict.reason);
    else for (const finding of judge_tree(word, verdict.real, depth, this.context)) this.add(finding.action, finding.category, finding.reason);
  }

  /** A literal `cd`: later package-manager commands read the configuration there. */
  enter(word: string): void {
    const verdict = judge_read(word, this.context);
    if (verdict !== undefined && !this.folders.includes(verdict.real)) this.folders.push(verdict.real);
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
    const verdict = judge_read(word.value, this.context);
    this.read(word.value);
    if (verdict === undefined) {
      // `node /dev/stdin`, `vitest --config /dev/stdin`: a device is a stream of code, never a project script
      this.runs_unknown_code = true;
      this.add("ask_user", "unknown_execution", `${runner} runs code read from ${word.value || "an empty name"}, only known at run time`);
    } else if (verdict.action === "allow") this.add("announce_then_run", "build", `${runner} runs the project script ${word.value}`);
    else this.add("ask_user", "unknown_execution", `${runner} runs ${word.value} from outside the project`);
  }

  /** A shell or interpreter reading its program from standard input. */
  stdin_code(command: SimpleCommand, runner: string, depth: number): void {
    for (const redirect of command.redirects) {
      if (redirect.kind === "heredoc") {
        if (!redirect.literal) this.add("ask_user", "unknown_execution", `${runner} runs a here-document with expansions`);
        if (runner !== "fish" && SHELLS.has(runner)) this.run(redirect.body, `${runner} <<`, depth + 1);
        else this.add("ask_user", "unknown_execution", `${runner} runs a here-document`);
        return;
      }
      if (redirect.kind === "herestring") {
        if (SHELLS.has(runner)) this.code(redirect.target, `${runner} <<<`, depth);
        else this.add("ask_user", "unknown_execution", `${runner} runs a here-string`);
        return;
      }
      if (redirect.kind === "file" && redirect.operator === "<" && redirect.target !== undefined) {
        this.script(redirect.target, runner);
        return;
      }
    }
    const piped = command.piped_stdin && command.producer !== undefined ? piped_text(command.producer) : undefined;
    if (piped !== undefined && runner !== "fish" && SHELLS.has(runner)) {
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
    return { commands: this.commands, writes: this.writes, reads: this.reads, findings: this.findings, verdict };
  }
}

/**
 * CommandRiskAnalyzer (issue 4, seeds 003 §12): every command bash would run, with wrappers stripped,
 * classified into the ten command categories; redirections and write arguments judged as path writes.
 * Never throws: anything it cannot parse is denied.
 */
export function analyze_command(command: string, context: AnalyzerContext): CommandAnalysis {
  const analysis = new Analysis(context);
  try {
    if (command.includes("\0")) analysis.add("deny", "unparseable", "the command contains a NUL character");
    else if (command.length > MAX_COMMAND_LENGTH)
      analysis.add("deny", "unparseable", `the command is ${command.length} characters long, over the ${MAX_COMMAND_LENGTH} this analyzer reads`);
    else if ((command.match(/[$<>]\(|`/g) ?? []).length > MAX_SUBSTITUTIONS)
      analysis.add("deny", "unparseable", `the command has more than ${MAX_SUBSTITUTIONS} substitutions`);
    else analysis.run(command, undefined, 0);
  } catch (error) {
    analysis.add("deny", "unparseable", `the command could not be analysed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return analysis.result();
}

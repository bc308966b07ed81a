import path from "node:path";
import { classify_argv } from "./classify.js";
import { flatten, type SimpleCommand } from "./parse.js";
import { glob_base, judge_read, judge_write } from "./paths.js";
import { argument_execution } from "./argument-execution.js";
import type { AnalyzedCommand, AnalyzerAction, AnalyzerContext, CommandAnalysis, CommandCategory, CommandFinding, FindingCategory, ShellWord } from "./types.js";
import { STRICTNESS } from "./types.js";
import { unwrap } from "./wrappers.js";
import { awk_arguments, git_arguments, sed_arguments, type FileArguments } from "./file-arguments.js";

const MAX_DEPTH = 8;
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "busybox"]);
const INTERPRETERS = new Set(["python", "python3", "python2", "node", "nodejs", "ruby", "perl", "php", "lua", "deno", "bun", "tclsh", "Rscript"]);
const STANDARD_BIN = new Set(["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/opt/homebrew/bin"]);
/** Variables that make the next program run code of their choosing. */
const EXECUTING_VARIABLES = /^(PATH|LD_PRELOAD|LD_LIBRARY_PATH|LD_AUDIT|DYLD_.*|BASH_ENV|ENV|PROMPT_COMMAND|PS4|SHELLOPTS|BASHOPTS|IFS|GIT_.*|PAGER|MANPAGER|EDITOR|VISUAL|NODE_OPTIONS|NODE_PATH|PYTHONPATH|PYTHONSTARTUP|PERL5OPT|PERL5LIB|RUBYOPT|npm_config_.*|NPM_CONFIG_.*|LESSOPEN|LESSCLOSE|BROWSER|SSH_ASKPASS|SUDO_ASKPASS)$/;
/** Commands whose every path argument is written (`tee`, `rm` …) or whose last one is (`cp`, `mv` …). */
const WRITES_ALL = new Set(["rm", "rmdir", "unlink", "shred", "touch", "mkdir", "truncate", "tee", "chmod", "chown", "chgrp"]);
const WRITES_LAST = new Set(["cp", "mv", "ln", "install", "rsync"]);
const NO_PATH_ARGS = new Set(["echo", "printf", "test", "[", "export", "declare", "local"]);
/** Commands with a script or program word among their arguments: their file arguments are found by `file_arguments`. */
const FILE_ARGUMENTS: Record<string, (args: readonly ShellWord[]) => FileArguments> = {
  sed: sed_arguments,
  awk: awk_arguments,
  gawk: awk_arguments,
  mawk: awk_arguments,
  nawk: awk_arguments,
  git: git_arguments,
};

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

class Analysis {
  readonly commands: AnalyzedCommand[] = [];
  readonly writes: string[] = [];
  readonly findings: CommandFinding[] = [];
  runs_unknown_code = false;

  constructor(readonly context: AnalyzerContext) {}

  add(action: AnalyzerAction, category: FindingCategory, reason: string): void {
    if (!this.findings.some((finding) => finding.action === action && finding.category === category && finding.reason === reason)) this.findings.push({ action, category, reason });
  }

  run(source: string, via: string | undefined, depth: number): void {
    if (depth > MAX_DEPTH) {
      this.add("deny", "unparseable", `commands nested more than ${MAX_DEPTH} levels deep`);
      return;
    }
    const flat = flatten(source);
    for (const error of flat.errors) this.add("deny", "unparseable", `the command cannot be parsed: ${error}`);
    for (const text of flat.dynamic_code) this.add("ask_user", "unknown_execution", `${text} expands a value as a prompt string, which runs the substitutions in it`);
    for (const command of flat.commands) this.simple(command, via, depth, flat.functions);
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

  simple(command: SimpleCommand, via: string | undefined, depth: number, functions: Set<string>): void {
    for (const { name } of command.assignments) {
      if (EXECUTING_VARIABLES.test(name)) this.add("ask_user", "unknown_execution", `setting ${name} changes what the next program runs`);
    }
    for (const redirect of command.redirects) {
      if (redirect.kind !== "file") continue;
      const target = redirect.target;
      if (target === undefined) continue;
      if ((redirect.operator === ">&" || redirect.operator === "<&") && /^(\d+-?|-)$/.test(target.value)) continue;
      const writes = redirect.operator !== "<";
      if (!target.literal) {
        if (writes) this.add("ask_user", "unknown_execution", `the redirection target ${target.value} is only known at run time`);
        continue;
      }
      const word = target.glob ? glob_base(target.value) : target.value;
      if (writes) this.write(word);
      else {
        const verdict = judge_read(word, this.context);
        if (verdict !== undefined) this.add(verdict.action, verdict.category, verdict.reason);
      }
    }
    const unwrapped = unwrap(command.words);
    for (const { name } of unwrapped.assignments) {
      if (EXECUTING_VARIABLES.test(name)) this.add("ask_user", "unknown_execution", `setting ${name} changes what the next program runs`);
    }
    const through = via ?? (unwrapped.wrappers.length > 0 ? unwrapped.wrappers.join(" ") : undefined);
    if (unwrapped.shell_string !== undefined) this.code(unwrapped.shell_string, unwrapped.wrappers.at(-1) ?? "a wrapper", depth);
    const words = unwrapped.words;
    if (words.length === 0) return;
    const head = words[0]!;
    const argv = words.map((word) => word.value);
    const categories = new Set<CommandCategory>();
    const record = () => this.commands.push({ argv, categories: [...categories], ...(through === undefined ? {} : { executes_via: through }) });
    if (unwrapped.privileged) categories.add("system_sensitive");
    if (!head.literal) {
      this.add("ask_user", "unknown_execution", `the command name ${head.value} is only known at run time`);
      record();
      this.finish(categories, argv);
      return;
    }
    let name = head.value;
    if (name.includes("/")) {
      if (STANDARD_BIN.has(path.posix.dirname(name))) name = path.posix.basename(name);
      else {
        this.add("ask_user", "unknown_execution", `${name} runs a program whose behaviour is unknown`);
        const verdict = judge_read(name, this.context);
        if (verdict !== undefined) this.add(verdict.action, verdict.category, verdict.reason);
        record();
        this.finish(categories, argv);
        return;
      }
    }
    argv[0] = name;
    const args = words.slice(1);
    const values = args.map((word) => word.value);
    if (functions.has(name)) {
      categories.add("read_only");
      record();
      return;
    }
    let handled = true;
    if (SHELLS.has(name)) {
      const code_index = args.findIndex((word) => word.literal && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(word.value));
      if (code_index !== -1) this.code(args[code_index + 1], `${name} -c`, depth);
      else {
        const script = args.find((word) => !word.value.startsWith("-") || !word.literal);
        if (script !== undefined) this.script(script, name);
        else this.stdin_code(command, name, depth);
      }
    } else if (name === "eval") {
      const literal = args.every((word) => word.literal);
      this.code({ value: values.join(" "), literal, glob: false }, "eval", depth);
    } else if (name === "source" || name === ".") {
      if (args[0] !== undefined) this.script(args[0], name);
    } else if (name === "trap") {
      if (args[0] !== undefined && args[0].value !== "-" && args.length > 1) this.code(args[0], "trap", depth);
    } else if (name === "su") {
      categories.add("system_sensitive");
      const index = args.findIndex((word) => word.value === "-c" || word.value === "--command");
      if (index !== -1) this.code(args[index + 1], "su -c", depth);
      else this.add("ask_user", "unknown_execution", "su opens a shell as another user");
    } else if (INTERPRETERS.has(name)) {
      const inline = args.findIndex((word) => /^(-[a-zA-Z]*[ce]|--eval|-p|--print|-E)$/.test(word.value));
      if (inline !== -1) this.add("ask_user", "unknown_execution", `${name} ${values[inline]} runs inline code this analyzer cannot read`);
      else {
        const script = args.find((word) => !word.value.startsWith("-") || !word.literal);
        if (script !== undefined && script.value !== "-") this.script(script, name);
        else this.stdin_code(command, name, depth);
      }
    } else handled = false;

    if (!handled) {
      const classified = classify_argv(name, values);
      for (const category of classified.categories) categories.add(category);
      if (!classified.known) this.add("ask_user", "unknown_execution", `${[name, ...values.slice(0, 1)].join(" ")} is not a command this analyzer knows`);
      const borne = argument_execution(name, args);
      for (const finding of borne.findings) this.add(finding.action, finding.category, finding.reason);
      for (const category of borne.categories) categories.add(category);
      for (const code of borne.code) this.code(code.word, code.via, depth);
      for (const nested of borne.argv) this.simple({ words: nested.words, assignments: [], redirects: [], piped_stdin: false }, nested.via, depth + 1, functions);
      for (const target of borne.writes) this.write(target);
      for (const source of borne.reads) this.read(source);
      this.paths(name, args, categories);
    }
    record();
    this.finish(categories, argv);
  }

  finish(categories: Set<CommandCategory>, argv: readonly string[]): void {
    for (const category of categories) this.add(BASE_ACTION[category], category, `${argv.slice(0, 3).join(" ")} is ${category.replace("_", " ")}`);
  }

  write(word: string): void {
    const verdict = judge_write(word, this.context);
    if (verdict.reason !== "device" && !this.writes.includes(verdict.real)) this.writes.push(verdict.real);
    if (verdict.action !== "allow") this.add(verdict.action, verdict.category, verdict.reason);
  }

  /** A script file run by a shell, `source` or an interpreter: project files are announced, others asked. */
  script(word: ShellWord, runner: string): void {
    if (!word.literal) {
      this.runs_unknown_code = true;
      this.add("ask_user", "unknown_execution", `${runner} runs ${word.value}, which is only known at run time`);
      return;
    }
    const verdict = judge_read(word.value, this.context);
    if (verdict === undefined) this.add("announce_then_run", "build", `${runner} runs the project script ${word.value}`);
    else {
      this.add(verdict.action, verdict.category, verdict.reason);
      this.add("ask_user", "unknown_execution", `${runner} runs ${word.value} from outside the project`);
    }
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
    this.runs_unknown_code = true;
    this.add("ask_user", "unknown_execution", `${runner} runs code from its standard input${command.piped_stdin ? " (a pipe)" : ""}`);
  }

  /** A dynamic word starting with `$HOME` is a path in the home folder: judged as one (or asked when the rest is dynamic too). */
  home_relative(word: ShellWord): void {
    const match = /^(?:\$HOME|\$\{HOME\}|"\$HOME"|"\$\{HOME\}")(?=\/|"|$)"?(.*)$/.exec(word.value);
    if (match === null) return;
    const rest = match[1]!.replace(/^"|"$/g, "");
    if (/[$`"'\\*?[]/.test(rest)) this.add("ask_user", "outside_project", `${word.value} is in the home folder`);
    else this.read(`~${rest}`);
  }

  read(word: string): void {
    const verdict = judge_read(word, this.context);
    if (verdict !== undefined) this.add(verdict.action, verdict.category, verdict.reason);
  }

  /** Path arguments: credentials and outside reads; writes for the commands that write their arguments. */
  paths(name: string, args: readonly ShellWord[], categories: Set<CommandCategory>): void {
    if (NO_PATH_ARGS.has(name)) return;
    const file_arguments = FILE_ARGUMENTS[name];
    if (file_arguments !== undefined) {
      const found = file_arguments(args);
      const literal = (word: ShellWord) => (word.glob ? glob_base(word.value) : word.value);
      for (const word of [...found.program_files, ...found.reads]) if (word.literal) this.read(literal(word));
      for (const word of found.writes) {
        if (word.literal) this.write(literal(word));
        else this.add("ask_user", "unknown_execution", `${name} writes ${word.value}, which is only known at run time`);
      }
      return;
    }
    for (const word of args) if (!word.literal) this.home_relative(word);
    const operands = args.filter((word) => word.literal && !(word.value.startsWith("-") && word.value.length > 1));
    const destructive = categories.has("destructive");
    operands.forEach((word, index) => {
      const value = word.glob ? glob_base(word.value) : word.value;
      const written = WRITES_ALL.has(name) || (WRITES_LAST.has(name) && index === operands.length - 1 && operands.length > 1);
      if (written && !(name === "chmod" && index === 0) && !((name === "chown" || name === "chgrp") && index === 0)) {
        const verdict = judge_write(value, this.context, destructive);
        if (verdict.reason !== "device" && !this.writes.includes(verdict.real)) this.writes.push(verdict.real);
        if (verdict.action !== "allow") this.add(verdict.action, verdict.category, verdict.reason);
      } else {
        const verdict = judge_read(value, this.context);
        if (verdict !== undefined) this.add(verdict.action, verdict.category, verdict.reason);
      }
    });
    for (const word of args) {
      const equals = word.value.indexOf("=");
      if (!word.literal || equals === -1 || name === "dd") continue;
      const value = word.value.slice(equals + 1);
      if (value.startsWith("/") || value.startsWith("~") || value.startsWith(".")) {
        const verdict = judge_read(value, this.context);
        if (verdict !== undefined) this.add(verdict.action, verdict.category, verdict.reason);
      }
    }
  }

  result(): CommandAnalysis {
    if (this.runs_unknown_code && this.commands.some((command) => command.categories.includes("network"))) {
      this.add("deny", "network", "the command downloads something and runs code this analyzer cannot read (remote code execution)");
    }
    let verdict: AnalyzerAction = "allow";
    for (const finding of this.findings) if (STRICTNESS[finding.action] > STRICTNESS[verdict]) verdict = finding.action;
    return { commands: this.commands, writes: this.writes, findings: this.findings, verdict };
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
    else analysis.run(command, undefined, 0);
  } catch (error) {
    analysis.add("deny", "unparseable", `the command could not be analysed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return analysis.result();
}

import path from "node:path";
import type { CommandFinding, ShellWord } from "./types.js";
import { literal_word } from "./words.js";

/** How xargs feeds the command it runs (findutils 4.9 xargs(1)). */
export type XargsInput = {
  /** `-I R`: each input line replaces R in the command's words; without it the items are appended. */
  readonly replace?: string;
  /** `-0`: items end at NUL, so blanks, quotes and newlines in them are kept. */
  readonly null: boolean;
  /** `-d D`: items end at D. */
  readonly delimited: boolean;
  /** `-a FILE`: the items come from FILE instead of standard input. */
  readonly from_file: boolean;
  /** `-P N`, N other than 1: commands run side by side, as many as N (0: no limit). */
  readonly parallel: boolean;
};

/**
 * The command that the commands which only run another one (`env`, `sudo`, `timeout 5`, `xargs` …) run,
 * and what their own options do: the files they read and write, the folder they change to, the shell
 * string they run. An option a wrapper's manual does not document asks.
 */
export type Unwrapped = {
  readonly words: ShellWord[];
  readonly wrappers: string[];
  readonly privileged: boolean;
  /** Environment assignments made by `env` (and `sudo VAR=…`). */
  readonly assignments: { name: string; value: ShellWord }[];
  /** Set when a wrapper runs a shell string (`watch 'cmd'`, `flock FILE -c 'cmd'`). */
  readonly shell_string?: ShellWord;
  readonly findings: CommandFinding[];
  readonly reads: ShellWord[];
  readonly writes: ShellWord[];
  /** Folders the command runs in (`env -C DIR`): its relative paths are relative to them. */
  readonly folders: ShellWord[];
  readonly xargs?: XargsInput;
  /** The last wrapper with its manual, when no command follows it (`env` alone prints the environment). */
  readonly alone?: { readonly name: string; readonly manual: string };
};

/** How a wrapper's option value or operand is judged. */
type Kind = "text" | "number" | "duration" | "read" | "write" | "folder" | "command";
type OptionSpec = { readonly value?: Kind; readonly optional_value?: true; readonly ask?: string };
type Option = { readonly canonical: string; readonly spec: OptionSpec };
type Wrapper = {
  readonly manual: string;
  readonly options: ReadonlyMap<string, Option>;
  /** Operands before the command: `timeout DURATION`, `flock FILE`, `chroot NEWROOT`. */
  readonly operands: readonly Kind[];
  readonly privileged: boolean;
  readonly assignments: boolean;
  /** What runs when no command follows (`xargs` runs echo, `sudo` a shell). */
  readonly fallback?: string;
  /** The wrapper itself makes the command ask, for this reason. */
  readonly ask?: string;
};

function wrapper(
  manual: string,
  options: Readonly<Record<string, OptionSpec>>,
  extra: { operands?: readonly Kind[]; privileged?: true; assignments?: true; fallback?: string; ask?: string } = {},
): Wrapper {
  const spellings = new Map<string, Option>();
  for (const [keys, spec] of Object.entries(options)) {
    const names = keys.split("|");
    for (const name of names) spellings.set(name, { canonical: names[0] ?? name, spec });
  }
  return {
    manual,
    options: spellings,
    operands: extra.operands ?? [],
    privileged: extra.privileged === true,
    assignments: extra.assignments === true,
    ...extra,
  };
}

const HELP = { "--help": {}, "--version": {} } as const;
const NUMBER: OptionSpec = { value: "number" };
const TEXT: OptionSpec = { value: "text" };

const WRAPPERS: ReadonlyMap<string, Wrapper> = new Map([
  // env(1), coreutils 9.4: `env [OPTION]... [-] [NAME=VALUE]... [COMMAND [ARG]...]`
  [
    "env",
    wrapper(
      "env(1), GNU coreutils 9.4",
      {
        "-i|--ignore-environment": {},
        "-0|--null": {},
        "-u|--unset": TEXT,
        "-C|--chdir": { value: "folder" },
        "-S|--split-string": TEXT,
        "-v|--debug": {},
        "--block-signal": { value: "text", optional_value: true },
        "--default-signal": { value: "text", optional_value: true },
        "--ignore-signal": { value: "text", optional_value: true },
        "--list-signal-handling": {},
        ...HELP,
      },
      { assignments: true },
    ),
  ],
  // bash(1) 5.2, "Shell Builtin Commands": `command [-pVv] command [arguments …]` (with -v/-V it only looks up)
  ["command", wrapper("bash(1), GNU Bash 5.2: command", { "-p": {} })],
  // bash(1) 5.2: `builtin [shell-builtin [args]]`
  ["builtin", wrapper("bash(1), GNU Bash 5.2: builtin", {})],
  // bash(1) 5.2: `exec [-cl] [-a name] [command [arguments]]`
  [
    "exec",
    wrapper("bash(1), GNU Bash 5.2: exec", {
      "-c": {},
      "-l": {},
      "-a": { value: "text", ask: "runs the program under another name, which a multi-call program such as busybox takes as the tool to be" },
    }),
  ],
  // time(1), GNU time 1.9: `time [options] command [arguments...]`
  [
    "time",
    wrapper("time(1), GNU time 1.9", {
      "-f|--format": TEXT,
      "-p|--portability": {},
      "-o|--output": { value: "write" },
      "-a|--append": {},
      "-v|--verbose": {},
      "-q|--quiet": {},
      "--help": {},
      "-V|--version": {},
    }),
  ],
  // nohup(1), coreutils 9.4: `nohup COMMAND [ARG]...`
  ["nohup", wrapper("nohup(1), GNU coreutils 9.4", HELP)],
  // timeout(1), coreutils 9.4: `timeout [OPTION] DURATION COMMAND [ARG]...`
  [
    "timeout",
    wrapper(
      "timeout(1), GNU coreutils 9.4",
      { "--preserve-status": {}, "--foreground": {}, "-k|--kill-after": { value: "duration" }, "-s|--signal": TEXT, "-v|--verbose": {}, ...HELP },
      { operands: ["duration"] },
    ),
  ],
  // nice(1), coreutils 9.4: `nice [OPTION] [COMMAND [ARG]...]` (`-N`, the obsolete spelling of `-n N`)
  ["nice", wrapper("nice(1), GNU coreutils 9.4", { "-n|--adjustment": NUMBER, ...HELP })],
  // ionice(1), util-linux 2.39: `ionice [-c class] [-n level] [-t] COMMAND [ARG]...`; -p/-P/-u change other processes
  [
    "ionice",
    wrapper("ionice(1), util-linux 2.39", {
      "-c|--class": TEXT,
      "-n|--classdata": NUMBER,
      "-t|--ignore": {},
      "-p|--pid": { value: "text", ask: "changes the I/O priority of processes this command did not start" },
      "-P|--pgid": { value: "text", ask: "changes the I/O priority of processes this command did not start" },
      "-u|--uid": { value: "text", ask: "changes the I/O priority of processes this command did not start" },
      "-h|--help": {},
      "-V|--version": {},
    }),
  ],
  // stdbuf(1), coreutils 9.4: `stdbuf OPTION... COMMAND`
  ["stdbuf", wrapper("stdbuf(1), GNU coreutils 9.4", { "-i|--input": TEXT, "-o|--output": TEXT, "-e|--error": TEXT, ...HELP })],
  // setsid(1), util-linux 2.39: `setsid [options] program [arguments]`
  [
    "setsid",
    wrapper(
      "setsid(1), util-linux 2.39",
      { "-c|--ctty": {}, "-f|--fork": {}, "-w|--wait": {}, "-h|--help": {}, "-V|--version": {} },
      { ask: "runs the command in a session of its own, out of the reach of the timeout and the stop of the run" },
    ),
  ],
  // flock(1), util-linux 2.39: `flock [options] file|directory command [arguments]`, `… file|directory -c command`
  [
    "flock",
    wrapper(
      "flock(1), util-linux 2.39",
      {
        "-s|--shared": {},
        "-x|-e|--exclusive": {},
        "-u|--unlock": {},
        "-n|--nb|--nonblock": {},
        "-w|--wait|--timeout": { value: "duration" },
        "-o|--close": {},
        "-E|--conflict-exit-code": NUMBER,
        "-F|--no-fork": {},
        "--verbose": {},
        "-c|--command": { value: "command" },
        "-h|--help": {},
        "-V|--version": {},
      },
      { operands: ["write"] },
    ),
  ],
  // watch(1), procps-ng 4.0: `watch [options] command`
  [
    "watch",
    wrapper(
      "watch(1), procps-ng 4.0",
      {
        "-b|--beep": {},
        "-c|--color": {},
        "-C|--no-color": {},
        "-d|--differences": { value: "text", optional_value: true },
        "-e|--errexit": {},
        "-g|--chgexit": {},
        "-n|--interval": { value: "duration" },
        "-p|--precise": {},
        "-q|--equexit": NUMBER,
        "-r|--no-rerun": {},
        "-t|--no-title": {},
        "-w|--no-wrap": {},
        "-x|--exec": {},
        "-h|--help": {},
        "-v|--version": {},
      },
      { ask: "runs its command again and again until it is stopped, and needs a terminal" },
    ),
  ],
  // xargs(1), findutils 4.9: `xargs [options] [command [initial-arguments]]`
  [
    "xargs",
    wrapper(
      "xargs(1), GNU findutils 4.9",
      {
        "-0|--null": {},
        "-a|--arg-file": { value: "read" },
        "-d|--delimiter": TEXT,
        "-E": TEXT,
        "-I": TEXT,
        "-L|--max-lines": NUMBER,
        "-n|--max-args": NUMBER,
        "-P|--max-procs": NUMBER,
        "-r|--no-run-if-empty": {},
        "-s|--max-chars": NUMBER,
        "-t|--verbose": {},
        "-p|--interactive": {},
        "-o|--open-tty": {},
        "-x|--exit": {},
        "--process-slot-var": TEXT,
        "--show-limits": {},
        ...HELP,
      },
      { fallback: "echo" },
    ),
  ],
  // sudo(8), sudo 1.9: `sudo [options] [VAR=value] [command [arg ...]]`; no command runs a shell
  [
    "sudo",
    wrapper(
      "sudo(8), sudo 1.9",
      {
        "-u|--user": TEXT,
        "-g|--group": TEXT,
        "-h|--host": { value: "text", optional_value: true },
        "-p|--prompt": TEXT,
        "-C|--close-from": NUMBER,
        "-D|--chdir": { value: "folder" },
        "-R|--chroot": { value: "folder" },
        "-r|--role": TEXT,
        "-t|--type": TEXT,
        "-T|--command-timeout": TEXT,
        "-U|--other-user": TEXT,
        "-A|--askpass": {},
        "-b|--background": {},
        "-B|--bell": {},
        "-E|--preserve-env": { value: "text", optional_value: true },
        "-e|--edit": { ask: "edits files as another user" },
        "-H|--set-home": {},
        "-i|--login": {},
        "-K|--remove-timestamp": {},
        "-k|--reset-timestamp": {},
        "-l|--list": {},
        "-N|--no-update": {},
        "-n|--non-interactive": {},
        "-P|--preserve-groups": {},
        "-S|--stdin": {},
        "-s|--shell": {},
        "-V|--version": {},
        "-v|--validate": {},
        "--help": {},
      },
      { privileged: true, assignments: true, fallback: "sh" },
    ),
  ],
  // doas(1), OpenDoas 6.8: `doas [-Lns] [-C config] [-u user] command [arg ...]`
  ["doas", wrapper("doas(1), OpenDoas 6.8", { "-L": {}, "-n": {}, "-s": {}, "-C": { value: "read" }, "-u": TEXT }, { privileged: true, fallback: "sh" })],
  // chroot(1), coreutils 9.4: `chroot [OPTION] NEWROOT [COMMAND [ARG]...]`; no command runs a shell
  [
    "chroot",
    wrapper(
      "chroot(1), GNU coreutils 9.4",
      { "--userspec": TEXT, "--groups": TEXT, "--skip-chdir": {}, ...HELP },
      {
        operands: ["read"],
        privileged: true,
        fallback: "sh",
      },
    ),
  ],
  // BusyBox 1.36: `busybox APPLET [ARGS]`, the multi-call binary running its first argument as the applet
  ["busybox", wrapper("busybox(1), BusyBox 1.36", {})],
  // unbuffer(1), Expect 5.45: `unbuffer [-p] program [args]`
  ["unbuffer", wrapper("unbuffer(1), Expect 5.45", { "-p": {} })],
]);

/** Folders holding the programs a name resolves to in an ordinary PATH. */
const STANDARD_BIN = new Set(["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/opt/homebrew/bin"]);

/** The name of the program a command word runs: a bare name, or a path into a standard bin folder by its base name. */
export function standard_name(value: string): string | undefined {
  if (!value.includes("/")) return value;
  return STANDARD_BIN.has(path.posix.dirname(value)) ? path.posix.basename(value) : undefined;
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;
/** More commands at once than this (`xargs -P`) is a flood of processes, not parallel work. */
const MAX_PROCS = 64;
const DURATION = /^\d+(\.\d+)?[smhd]?$/;

type Mutable = {
  -readonly [K in keyof Unwrapped]: Unwrapped[K];
};

/** What parsing one wrapper's arguments found beyond the common record: its own settings. */
type Taken = {
  /** Index of the first word of the command it runs. */
  index: number;
  clear_environment: boolean;
  exec: boolean;
  shell_string?: ShellWord;
  xargs?: { replace?: string; null: boolean; delimited: boolean; from_file: boolean; parallel: boolean };
};

/** Splits `env -S STRING` as env does, when it holds no quotes, escapes or `${VAR}`; else a word only known at run time. */
function split_string(value: ShellWord): ShellWord[] {
  if (!value.literal || /['"\\$]/.test(value.value)) return [{ value: value.value, literal: false, glob: false }];
  return value.value
    .split(/\s+/)
    .filter((part) => part !== "")
    .map(literal_word);
}

/** Judges a value or operand of a wrapper into `out`. */
function judge(kind: Kind, word: ShellWord, via: string, out: Mutable, taken: Taken): void {
  const only_at_run_time = !word.literal && kind !== "read" && kind !== "write" && kind !== "folder";
  if (only_at_run_time) out.findings.push(ask(`${via} ${word.value} is only known at run time`));
  else if (kind === "number" && !/^[+-]?\d+$/.test(word.value)) out.findings.push(ask(`${via} takes a number, not ${word.value}`));
  else if (kind === "duration" && !DURATION.test(word.value)) out.findings.push(ask(`${via} takes a duration, not ${word.value}`));
  else if (kind === "read") out.reads.push(word);
  else if (kind === "write") out.writes.push(word);
  else if (kind === "folder") out.folders.push(word);
  else if (kind === "command") taken.shell_string = word;
}

const ask = (reason: string): CommandFinding => ({ action: "ask_user", category: "unknown_execution", reason });

/** What one option of a wrapper does beyond its kind: env's split string and empty environment, xargs' input, watch -x. */
function take_option(name: string, option: Option, value: ShellWord | undefined, args: ShellWord[], out: Mutable, taken: Taken): void {
  const via = `${name} ${option.canonical}`;
  if (option.spec.ask !== undefined) out.findings.push(ask(`${via} ${option.spec.ask}`));
  if (value !== undefined && option.spec.value !== undefined) judge(option.spec.value, value, via, out, taken);
  const xargs = taken.xargs;
  switch (`${name} ${option.canonical}`) {
    case "env -S":
      if (value !== undefined) args.splice(taken.index, 0, ...split_string(value));
      break;
    case "env -i":
      taken.clear_environment = true;
      break;
    case "watch -x":
      taken.exec = true;
      break;
    case "xargs -0":
      if (xargs !== undefined) xargs.null = true;
      break;
    case "xargs -d":
      if (xargs !== undefined) xargs.delimited = true;
      break;
    case "xargs -a":
      if (xargs !== undefined) xargs.from_file = true;
      break;
    case "xargs -I":
      if (xargs !== undefined && value !== undefined) xargs.replace = value.value;
      break;
    case "xargs -P":
      if (xargs !== undefined) xargs.parallel = value?.value !== "1";
      if (value?.literal === true && /^\d+$/.test(value.value) && (Number(value.value) === 0 || Number(value.value) > MAX_PROCS))
        out.findings.push(ask(`xargs -P ${value.value} runs ${value.value === "0" ? "as many commands at once as it can" : "that many commands at once"}`));
      break;
    default:
      break;
  }
}

/** Reads the option at `args[taken.index]` (a `--long[=value]` or a `-abc` cluster), moving `taken.index` past it. */
function read_option(name: string, wrapper: Wrapper, args: ShellWord[], out: Mutable, taken: Taken): void {
  const text = args[taken.index]?.value ?? "";
  taken.index += 1;
  const value_of = (option: Option, attached: string | undefined): ShellWord | undefined => {
    if (option.spec.value === undefined) return undefined;
    if (attached !== undefined) return literal_word(attached);
    if (option.spec.optional_value === true) return undefined;
    taken.index += 1;
    return args[taken.index - 1];
  };
  if (text.startsWith("--")) {
    const equals = text.indexOf("=");
    const spelling = equals === -1 ? text : text.slice(0, equals);
    const option = wrapper.options.get(spelling);
    if (option === undefined) out.findings.push(ask(`${name} ${spelling} is not an option of ${name} this analyzer knows`));
    else if (option.spec.value === undefined && equals !== -1) out.findings.push(ask(`${name} ${spelling} takes no value, not ${text}`));
    else take_option(name, option, value_of(option, equals === -1 ? undefined : text.slice(equals + 1)), args, out, taken);
    return;
  }
  for (let at = 1; at < text.length; at += 1) {
    const option = wrapper.options.get(`-${text.charAt(at)}`);
    if (option === undefined) {
      out.findings.push(ask(`${name} -${text.charAt(at)} is not an option of ${name} this analyzer knows`));
      return;
    }
    const rest = text.slice(at + 1);
    const value = value_of(option, option.spec.value === undefined || rest === "" ? undefined : rest);
    take_option(name, option, value, args, out, taken);
    if (option.spec.value !== undefined) return;
  }
}

/** Reads a wrapper's own arguments, up to the command it runs. */
function take_wrapper(name: string, wrapper: Wrapper, args: ShellWord[], out: Mutable): Taken {
  const taken: Taken = {
    index: 0,
    clear_environment: false,
    exec: false,
    ...(name === "xargs" ? { xargs: { null: false, delimited: false, from_file: false, parallel: false } } : {}),
  };
  const operands = [...wrapper.operands];
  let options_done = false;
  while (taken.index < args.length) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const word = args[taken.index]!;
    const text = word.value;
    if (!word.literal) {
      // a word only known at run time may be an option of the wrapper; as the command's name it asks anyway
      if (operands.length === 0) break;
      judge(operands.shift() ?? "text", word, name, out, taken);
      taken.index += 1;
      continue;
    }
    if (!options_done && text === "--") {
      taken.index += 1;
      break;
    }
    if (name === "env" && !options_done && text === "-") {
      taken.clear_environment = true;
      taken.index += 1;
      continue;
    }
    if (name === "nice" && !options_done && /^-\d+$/.test(text)) {
      taken.index += 1;
      continue;
    }
    const command_after_file = name === "flock" && operands.length === 0 && (text === "-c" || text === "--command");
    if ((!options_done || command_after_file) && text.startsWith("-") && text.length > 1) {
      read_option(name, wrapper, args, out, taken);
      if (taken.shell_string !== undefined && operands.length === 0) return taken;
      continue;
    }
    const [, variable, assigned] = (wrapper.assignments ? ASSIGNMENT.exec(text) : null) ?? [];
    if (variable !== undefined && assigned !== undefined) {
      out.assignments.push({ name: variable, value: literal_word(assigned) });
      options_done = true;
      taken.index += 1;
      continue;
    }
    const operand = operands.shift();
    if (operand === undefined) break;
    judge(operand, word, name, out, taken);
    options_done = true;
    taken.index += 1;
    if (taken.shell_string !== undefined && operands.length === 0) return taken;
  }
  return taken;
}

/** `command -v NAME` and `command -V NAME` only look a name up: `command` is then the program, not a wrapper. */
function looks_up(args: readonly ShellWord[]): boolean {
  for (const word of args) {
    if (!word.literal || !word.value.startsWith("-") || word.value === "--") return false;
    if (/[vV]/.test(word.value)) return true;
  }
  return false;
}

/** The command after its wrappers, and what the wrappers' own arguments do. */
export function unwrap(input: readonly ShellWord[]): Unwrapped {
  const out: Mutable = { words: [...input], wrappers: [], privileged: false, assignments: [], findings: [], reads: [], writes: [], folders: [] };
  for (let guard = 0; guard < 64; guard += 1) {
    const head = out.words[0];
    const name = head?.literal === true ? standard_name(head.value) : undefined;
    const wrapper = name === undefined ? undefined : WRAPPERS.get(name);
    if (name === undefined || wrapper === undefined) break;
    const args = out.words.slice(1);
    if (name === "command" && looks_up(args)) break;
    const taken = take_wrapper(name, wrapper, args, out);
    out.wrappers.push(name);
    if (wrapper.ask !== undefined) out.findings.push(ask(`${name} ${wrapper.ask}`));
    if (wrapper.privileged) out.privileged = true;
    if (taken.xargs !== undefined) {
      if (out.xargs !== undefined) out.findings.push(ask("xargs runs xargs, whose input is only known at run time"));
      out.xargs = taken.xargs;
    }
    let rest = args.slice(taken.index);
    if (name === "watch" && !taken.exec && rest.length > 0)
      taken.shell_string = { value: rest.map((word) => word.value).join(" "), literal: rest.every((word) => word.literal), glob: false };
    if (taken.shell_string !== undefined && !taken.exec) {
      out.shell_string = taken.shell_string;
      out.words = [];
      return out;
    }
    if (rest.length === 0 && wrapper.fallback !== undefined) rest = [literal_word(wrapper.fallback)];
    if (rest.length === 0) {
      if (name === "env" && !taken.clear_environment)
        out.findings.push({
          action: "ask_user",
          category: "credential_sensitive",
          reason: "env with no command prints the whole environment, which may still hold the user's secrets",
        });
      out.alone = { name, manual: wrapper.manual };
    }
    out.words = rest;
  }
  return out;
}

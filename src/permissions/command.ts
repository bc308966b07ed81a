import os from "node:os";
import path from "node:path";
import type { RiskLevel } from "../contracts/events/permission.js";
import { fold_segment, is_credential_path, is_system_path, resolve_physical } from "./paths.js";

/**
 * A first, deliberately simple command check (seeds 000 §9.2 CommandRiskAnalyzer, early version): a
 * small lexer splits the command into simple commands and words, then every word is resolved the way
 * bash would resolve it as a path, and every command name is looked up in short lists. Anything it
 * cannot see through (parameter expansion of unknown variables, `eval`, nested `bash -c`, substitution
 * inside double quotes) makes the command "not plainly inside the project", which asks the user.
 * The full analyzer (unbash-based) replaces this later; the contract (findings) stays.
 */
export type CommandFindingKind =
  | "outside_project"
  | "credential"
  | "git_internal"
  | "air_internal"
  | "network"
  | "privilege"
  | "destructive"
  | "system"
  | "unanalysable";

export type CommandFinding = {
  readonly kind: CommandFindingKind;
  readonly word: string;
  readonly risk: RiskLevel;
  readonly reason: string;
};

export type CommandCheck = {
  /** True when no finding was made: every word stays inside the project and no command is on a risk list. */
  readonly plainly_inside: boolean;
  readonly findings: readonly CommandFinding[];
};

type Word = { text: string; expansions: string[] };
type Lexed = { commands: Word[][]; problems: string[] };

const SPECIAL_PARAMETERS = /^[?#$!@*\-0-9]$/;
/** Variables whose values are not paths outside the project (bash internals, identity, locale). */
const SAFE_VARIABLES = new Set([
  "PWD", "BASH_VERSION", "BASHPID", "RANDOM", "LINENO", "SECONDS", "UID", "EUID", "PPID", "SHLVL", "USER",
  "LANG", "TERM", "HOSTNAME", "OSTYPE", "MACHTYPE", "HOSTTYPE", "COLUMNS", "LINES",
]);
const DEVICE_WORDS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero", "/dev/random", "/dev/urandom"]);
const STANDARD_BIN = ["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/opt/homebrew/bin"];

const PRIVILEGE = new Set(["sudo", "su", "doas", "pkexec", "runas"]);
const NETWORK = new Set(["curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "telnet", "ftp", "socat"]);
const SYSTEM = new Set([
  "mount", "umount", "mkfs", "fdisk", "parted", "dd", "shutdown", "reboot", "halt", "poweroff", "systemctl",
  "launchctl", "crontab", "chown", "chgrp", "kill", "killall", "pkill", "useradd", "userdel", "passwd", "iptables",
]);
const UNANALYSABLE = new Set(["eval", "exec", "source", ".", "trap"]);
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "fish"]);
const PREFIX_COMMANDS = new Set(["env", "command", "builtin", "nohup", "time", "nice", "xargs", "timeout", "stdbuf"]);
const KEYWORDS = new Set(["do", "then", "else", "elif", "if", "while", "until", "!", "{", "time"]);
const GIT_NETWORK_OR_CONFIG = new Set(["push", "pull", "fetch", "clone", "remote", "submodule", "config", "ls-remote"]);
const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn", "bun", "pip", "pip3", "gem", "cargo", "go", "composer", "brew", "apt", "apt-get", "dnf", "yum"]);
const PACKAGE_NETWORK = new Set(["install", "i", "ci", "add", "publish", "update", "upgrade", "get", "login", "adduser", "download"]);

/** Splits a command into simple commands of words (quotes removed), noting expansions and what it cannot read. */
function lex(command: string): Lexed {
  const commands: Word[][] = [];
  const problems: string[] = [];
  let current: Word[] = [];
  let word: Word | undefined;
  const ensure = () => (word ??= { text: "", expansions: [] });
  const end_word = () => {
    if (word !== undefined) current.push(word);
    word = undefined;
  };
  const end_command = () => {
    end_word();
    if (current.length > 0) commands.push(current);
    current = [];
  };
  const read_parameter = (from: number): { name: string; next: number } => {
    if (command[from] === "{") {
      const close = command.indexOf("}", from);
      const inner = close === -1 ? command.slice(from + 1) : command.slice(from + 1, close);
      const name = /^[#!]?([A-Za-z_][A-Za-z0-9_]*|[?#$!@*\-0-9])/.exec(inner)?.[1] ?? inner;
      return { name, next: close === -1 ? command.length : close + 1 };
    }
    const match = /^([A-Za-z_][A-Za-z0-9_]*|[?#$!@*\-0-9])/.exec(command.slice(from));
    return { name: match?.[1] ?? "", next: from + (match?.[1]?.length ?? 0) };
  };

  let i = 0;
  while (i < command.length) {
    const c = command[i]!;
    if (c === "\\") {
      if (command[i + 1] === "\n") i += 2;
      else {
        ensure().text += command[i + 1] ?? "";
        i += 2;
      }
    } else if (c === "'") {
      const close = command.indexOf("'", i + 1);
      ensure().text += close === -1 ? command.slice(i + 1) : command.slice(i + 1, close);
      i = close === -1 ? command.length : close + 1;
    } else if (c === '"') {
      const target = ensure();
      i += 1;
      while (i < command.length && command[i] !== '"') {
        const d = command[i]!;
        if (d === "\\" && i + 1 < command.length) {
          target.text += command[i + 1]!;
          i += 2;
        } else if (d === "`" || (d === "$" && command[i + 1] === "(")) {
          problems.push("command substitution inside double quotes");
          i += 1;
        } else if (d === "$") {
          const { name, next } = read_parameter(i + 1);
          if (name !== "") target.expansions.push(name);
          target.text += d;
          i = next > i + 1 ? next : i + 1;
        } else {
          target.text += d;
          i += 1;
        }
      }
      i += 1;
    } else if (c === "$" && command[i + 1] === "(") {
      // $( … ) and $(( … )): the inside is one more command list; ")" ends it.
      end_command();
      i += command[i + 2] === "(" ? 3 : 2;
    } else if (c === "$") {
      const { name, next } = read_parameter(i + 1);
      if (name !== "") ensure().expansions.push(name);
      ensure().text += "$";
      i = next > i + 1 ? next : i + 1;
    } else if (c === "`") {
      end_command();
      i += 1;
    } else if (c === "#" && word === undefined) {
      const newline = command.indexOf("\n", i);
      i = newline === -1 ? command.length : newline;
    } else if (c === " " || c === "\t") {
      end_word();
      i += 1;
    } else if (c === "\n" || c === ";" || c === "&" || c === "|" || c === "(" || c === ")" || c === "{" && word === undefined || c === "}" && word === undefined) {
      end_command();
      i += 1;
    } else if (c === "<" || c === ">") {
      end_word();
      if (command[i + 1] === "(") {
        // process substitution <( … ) / >( … )
        end_command();
        i += 2;
      } else {
        i += 1;
        while (command[i] === ">" || command[i] === "<" || command[i] === "&" || command[i] === "|") i += 1;
      }
    } else {
      ensure().text += c;
      i += 1;
    }
  }
  end_command();
  return { commands, problems };
}

/** Absolute, home and parent paths embedded in a word, e.g. inside inline code: `open('/etc/hosts')`. */
const EMBEDDED_PATH = /(?:^|[^A-Za-z0-9_.~\-/])((?:~|\.\.)?\/[^\s'"`()<>,;|&{}[\]]*)/g;

/**
 * The parts of a word that could name a path: the word, the value after `=`, the tail of `-o/path`,
 * and absolute/home/parent paths embedded anywhere in it.
 */
function path_candidates(text: string): string[] {
  const candidates: string[] = [];
  if (!text.startsWith("-")) candidates.push(text);
  const equals = text.indexOf("=");
  if (equals !== -1) candidates.push(text.slice(equals + 1));
  const short_option = /^-[A-Za-z]([/~.].*)$/.exec(text);
  if (short_option !== null) candidates.push(short_option[1]!);
  for (const match of text.matchAll(EMBEDDED_PATH)) candidates.push(match[1]!);
  return [...new Set(candidates)].filter((candidate) => candidate !== "" && !candidate.includes("$"));
}

function is_inside(real: string, root: string): boolean {
  return real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

export type CommandCheckOptions = { cwd_real: string; root_real: string; home?: string };

export function check_command(command: string, options: CommandCheckOptions): CommandCheck {
  const { cwd_real, root_real } = options;
  const home = options.home ?? os.homedir();
  const findings: CommandFinding[] = [];
  const add = (kind: CommandFindingKind, word: string, risk: RiskLevel, reason: string) => {
    if (!findings.some((finding) => finding.kind === kind && finding.word === word)) findings.push({ kind, word, risk, reason });
  };
  const { commands, problems } = lex(command);
  for (const problem of problems) add("unanalysable", command, "medium", `the command uses ${problem}, which this check cannot see through`);

  // Variables the command sets itself (NAME=… or `for NAME in …`): their values are words checked here.
  const local_variables = new Set<string>();
  for (const words of commands) {
    for (const [index, word] of words.entries()) {
      const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(word.text);
      if (assignment !== null) local_variables.add(assignment[1]!);
      if (word.text === "for" && words[index + 1] !== undefined) local_variables.add(words[index + 1]!.text);
    }
  }

  for (const words of commands) {
    let name_index = words.findIndex((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word.text));
    // Words in command position (the command and the prefixes before it, such as `env`), not arguments.
    const command_positions = new Set<number>();
    while (name_index !== -1) {
      command_positions.add(name_index);
      const text = words[name_index]!.text;
      let next: number;
      if (KEYWORDS.has(text)) next = name_index + 1;
      else if (PREFIX_COMMANDS.has(path.basename(text))) {
        next = name_index + 1;
        while (next < words.length && (words[next]!.text.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[next]!.text) || /^\d+[smhd]?$/.test(words[next]!.text))) next += 1;
      } else break;
      name_index = next < words.length ? next : -1;
    }
    const name_word = name_index === -1 ? undefined : words[name_index];
    const name = name_word === undefined ? "" : path.basename(name_word.text);
    const args = name_index === -1 ? [] : words.slice(name_index + 1).map((word) => word.text);

    if (PRIVILEGE.has(name)) add("privilege", name, "high", `\`${name}\` runs with elevated privileges`);
    if (NETWORK.has(name)) add("network", name, "medium", `\`${name}\` reaches the network`);
    if (SYSTEM.has(name) || name.startsWith("mkfs")) add("system", name, "high", `\`${name}\` changes the system outside the project`);
    if (UNANALYSABLE.has(name)) add("unanalysable", name, "medium", `\`${name}\` runs code this check cannot read`);
    if (SHELLS.has(name) && args.some((arg) => /^-[a-z]*c/.test(arg))) add("unanalysable", name, "medium", `\`${name} -c\` runs a command string this check cannot read`);
    if (name === "git" && args.some((arg) => GIT_NETWORK_OR_CONFIG.has(arg))) {
      add("network", "git", "medium", `\`git ${args.find((arg) => GIT_NETWORK_OR_CONFIG.has(arg))}\` reaches a remote or changes git configuration`);
    }
    if (PACKAGE_MANAGERS.has(name) && args[0] !== undefined && PACKAGE_NETWORK.has(args[0])) {
      add("network", name, "medium", `\`${name} ${args[0]}\` downloads or publishes packages`);
    }
    if (name === "rm" && args.some((arg) => /^-[a-zA-Z]*[rR]/.test(arg) || arg === "--recursive")) {
      add("destructive", "rm", "medium", "`rm -r` deletes folders recursively");
    }

    for (const [index, word] of words.entries()) {
      for (const variable of word.expansions) {
        if (SPECIAL_PARAMETERS.test(variable) || SAFE_VARIABLES.has(variable) || local_variables.has(variable)) continue;
        add("unanalysable", `$${variable}`, "medium", `the command expands $${variable}, whose value cannot be checked before it runs`);
      }
      if (word.text.includes("://")) add("network", word.text, "medium", `the command names a URL (${word.text})`);
      const is_name = command_positions.has(index);
      for (const candidate of path_candidates(word.text)) {
        if (DEVICE_WORDS.has(candidate)) continue;
        if (is_name && STANDARD_BIN.some((bin) => path.dirname(candidate) === bin)) continue;
        if (is_name && !candidate.includes("/")) continue;
        let real: string;
        try {
          real = resolve_physical(cwd_real, candidate, home);
        } catch {
          add("unanalysable", candidate, "medium", `the path ${candidate} cannot be resolved`);
          continue;
        }
        if (is_credential_path(real, home) || is_credential_path(path.resolve(cwd_real, candidate), home)) {
          add("credential", candidate, "critical", `${candidate} is a credential file`);
        } else if (!is_inside(real, root_real)) {
          const system = is_system_path(real);
          add(system ? "system" : "outside_project", candidate, system ? "high" : "medium", `${candidate} resolves outside the project (${real})`);
        } else {
          const segments = path.relative(root_real, real).split(path.sep).map(fold_segment);
          if (segments.includes(".git")) add("git_internal", candidate, "high", `${candidate} is inside git internals`);
          else if (segments[0] === ".air") add("air_internal", candidate, "medium", `${candidate} is inside air's own folder`);
        }
      }
    }
  }
  return { plainly_inside: findings.length === 0, findings };
}

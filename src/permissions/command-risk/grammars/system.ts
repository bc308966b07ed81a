import { program_rule } from "../grammar/declarative.js";
import { Matched } from "../grammar/matched.js";
import type { ProgramRule } from "../grammar/types.js";
import type { ShellWord } from "../types.js";

/**
 * The small programs shell scripts are made of, that ask the system about itself (who, what machine,
 * what time, which processes) or wait, count and print (GNU coreutils 9.4 and their peers). Those that
 * change the system (setting the clock or the host name, signalling processes) are system_sensitive;
 * printing the whole environment is a dump and asks.
 */

const coreutils = (program: string): string => `${program}(1), GNU coreutils 9.4`;
const HELP = { "--help": {}, "--version": {} } as const;

/** sleep's operands: `NUMBER[smhd]`, fractions allowed, or `infinity`. */
const DURATION = /^(\d+(\.\d*)?|\.\d+)[smhd]?$|^inf(inity)?$/;

/** `date [OPTION]... [+FORMAT]`: an operand that is not a `+FORMAT` sets the clock (`date MMDDhhmm[[CC]YY][.ss]`). */
function date_operand(word: ShellWord, matched: Matched): void {
  if (!word.value.replace(/^["']/, "").startsWith("+")) matched.categories.add("system_sensitive");
}

/** `printenv [OPTION]... [VARIABLE]...`: named variables are shown; no name prints the whole environment. */
function printenv(args: readonly ShellWord[]): Matched {
  const matched = new Matched("printenv", coreutils("printenv"));
  matched.categories.add("read_only");
  const names = args.filter((word) => !(word.literal && /^(-0|--null|--help|--version)$/.test(word.value)));
  if (names.length === 0 && !args.some((word) => /^--(help|version)$/.test(word.value)))
    matched.ask("printenv with no variable name prints the whole environment, which may still hold the user's secrets", "credential_sensitive");
  for (const word of names) {
    if (!word.literal) matched.ask(`printenv ${word.value}: the variable is only known at run time, and may hold a secret`, "credential_sensitive");
    else if (word.value.startsWith("-")) matched.ask(`printenv ${word.value} is not an option this analyzer knows`);
    else matched.shown.push({ name: word.value, via: "printenv" });
  }
  return matched;
}

/** `kill [-s SIGNAL | -SIGNAL] PID…`: signals processes; `kill -l` only lists the signals. */
function kill(args: readonly ShellWord[]): Matched {
  const matched = new Matched("kill", "kill(1), procps-ng 4.0; bash(1), GNU Bash 5.2: kill");
  const listing = args[0]?.literal === true && /^(-l|-L|--list|--table)$/.test(args[0].value);
  matched.categories.add(listing ? "read_only" : "system_sensitive");
  return matched;
}

const PS_BSD = "auxwfTrjlsvHhcnmSXZ";
const PS_FLAGS = "eAadNfFljywHTLMZcm";
const PS_VALUED = "puUgGCoOtq";
const PS_LONG = /^--(forest|no-headers|headers|help|version|sort|pid|ppid|user|cols|columns|width)(=|$)/;

/**
 * `ps [options]` (procps-ng 4.0), its UNIX (`-ef`), BSD (`aux`) and long options: lists processes. The BSD
 * `e` shows each process's environment after its command, a dump of the environment.
 */
function ps(args: readonly ShellWord[]): Matched {
  const matched = new Matched("ps", "ps(1), procps-ng 4.0");
  matched.categories.add("read_only");
  for (let index = 0; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const word = args[index]!;
    const text = word.value;
    if (!word.literal) matched.ask(`ps ${text} is only known at run time`);
    else if (text.startsWith("--")) {
      if (!PS_LONG.test(text)) matched.ask(`ps ${text} is not an option this analyzer knows`);
      else if (/^--(sort|pid|ppid|user|cols|columns|width)$/.test(text)) index += 1;
    } else if (text.startsWith("-")) {
      for (const [at, letter] of [...text.slice(1)].entries()) {
        if (PS_VALUED.includes(letter)) {
          if (at === text.length - 2) index += 1;
          break;
        }
        if (!PS_FLAGS.includes(letter)) matched.ask(`ps -${letter} is not an option this analyzer knows`);
      }
    } else if (text.includes("e") && /^[a-zA-Z]+$/.test(text))
      matched.ask(`ps ${text}: BSD option e prints the environment of every process, which may hold the user's secrets`, "credential_sensitive");
    else if (![...text].every((letter) => PS_BSD.includes(letter))) matched.ask(`ps ${text} is not an option this analyzer knows`);
  }
  return matched;
}

export const SYSTEM_RULES: readonly ProgramRule[] = [
  // sleep NUMBER[SUFFIX]...
  program_rule({
    rule: "sleep",
    manual: coreutils("sleep"),
    category: "read_only",
    options: HELP,
    operands: {
      rest: {
        judge: (word, matched) => {
          if (!word.literal || !DURATION.test(word.value)) matched.ask(`sleep takes a duration, not ${word.value}`);
        },
      },
    },
  }),
  // date [OPTION]... [+FORMAT]; date [-u|--utc|--universal] [MMDDhhmm[[CC]YY][.ss]]
  program_rule({
    rule: "date",
    manual: coreutils("date"),
    category: "read_only",
    options: {
      "-d|--date": { value: "text" },
      "--debug": {},
      "-f|--file": { value: "read" },
      "-I|--iso-8601": { value: { one_of: ["date", "hours", "minutes", "seconds", "ns"] }, optional_value: true },
      "-R|--rfc-email": {},
      "--rfc-3339": { value: { one_of: ["date", "seconds", "ns"] } },
      "-r|--reference": { value: "read" },
      "-s|--set": { value: "text", category: "system_sensitive" },
      "-u|--utc|--universal": {},
      ...HELP,
    },
    operands: { first: [{ judge: date_operand }] },
  }),
  // whoami [OPTION]...
  program_rule({ rule: "whoami", manual: coreutils("whoami"), category: "read_only", options: HELP }),
  // id [OPTION]... [USER]...
  program_rule({
    rule: "id",
    manual: coreutils("id"),
    category: "read_only",
    options: { "-a": {}, "-Z|--context": {}, "-g|--group": {}, "-G|--groups": {}, "-n|--name": {}, "-r|--real": {}, "-u|--user": {}, "-z|--zero": {}, ...HELP },
    operands: { rest: "text" },
  }),
  // uname [OPTION]...
  program_rule({
    rule: "uname",
    manual: coreutils("uname"),
    category: "read_only",
    options: {
      "-a|--all": {},
      "-s|--kernel-name": {},
      "-n|--nodename": {},
      "-r|--kernel-release": {},
      "-v|--kernel-version": {},
      "-m|--machine": {},
      "-p|--processor": {},
      "-i|--hardware-platform": {},
      "-o|--operating-system": {},
      ...HELP,
    },
  }),
  // hostname [-a|-A|-d|-f|-i|-I|-s|-y]; hostname NAME and hostname -F FILE set it
  program_rule({
    rule: "hostname",
    manual: "hostname(1), hostname 3.23",
    category: "read_only",
    options: {
      "-a|--alias": {},
      "-A|--all-fqdns": {},
      "-d|--domain": {},
      "-f|--fqdn|--long": {},
      "-i|--ip-address": {},
      "-I|--all-ip-addresses": {},
      "-s|--short": {},
      "-y|--yp|--nis": {},
      "-F|--file": { value: "read", category: "system_sensitive" },
      "-b|--boot": { category: "system_sensitive" },
      "-h|--help": {},
      "-V|--version": {},
    },
    operands: { first: [{ judge: (_word, matched) => matched.categories.add("system_sensitive") }] },
  }),
  // nproc [OPTION]...
  program_rule({ rule: "nproc", manual: coreutils("nproc"), category: "read_only", options: { "--all": {}, "--ignore": { value: "number" }, ...HELP } }),
  // seq [OPTION]... [FIRST [INCREMENT]] LAST
  program_rule({
    rule: "seq",
    manual: coreutils("seq"),
    category: "read_only",
    options: { "-f|--format": { value: "text" }, "-s|--separator": { value: "text" }, "-w|--equal-width": {}, ...HELP },
    operands: { first: ["number", "number", "number"] },
  }),
  // yes [STRING]...: an endless stream, which the analyzer follows into files
  program_rule({ rule: "yes", manual: coreutils("yes"), category: "read_only", options: HELP, operands: { rest: "text" } }),
  { names: ["printenv"], match: printenv },
  // mktemp [OPTION]... [TEMPLATE]: creates a file (or folder) in -p DIR, --tmpdir, $TMPDIR, or where TEMPLATE says
  program_rule({
    rule: "mktemp",
    manual: coreutils("mktemp"),
    category: "read_only",
    options: {
      "-d|--directory": {},
      "-u|--dry-run": {},
      "-q|--quiet": {},
      "--suffix": { value: "text" },
      "-p": { value: "write" },
      "--tmpdir": { value: "write", optional_value: true },
      "-t": {},
      ...HELP,
    },
    operands: { first: ["text"] },
    check: (matched, seen, operands) => {
      const template = operands[0];
      if (template === undefined) return;
      const in_folder = seen.has("-p") || seen.has("--tmpdir") || seen.has("-t");
      if (!in_folder) matched.write(template);
      else if (template.value.includes("/")) matched.ask(`mktemp ${template.value}: a template with a folder leaves the folder given`);
    },
  }),
  // clear [-Ttype] [-V] [-x] (ncurses 6.4)
  program_rule({ rule: "clear", manual: "clear(1), ncurses 6.4", category: "read_only", options: { "-T": { value: "text" }, "-V": {}, "-x": {} } }),
  // tput [-Ttype] [-x] capname [parameters …] (ncurses 6.4)
  program_rule({
    rule: "tput",
    manual: "tput(1), ncurses 6.4",
    category: "read_only",
    options: { "-T": { value: "text" }, "-V": {}, "-x": {}, "-S": {} },
    operands: { rest: "text" },
  }),
  // which [-as] filename … (debianutils 5)
  program_rule({ rule: "which", manual: "which(1), debianutils 5", category: "read_only", options: { "-a": {}, "-s": {} }, operands: { rest: "text" } }),
  { names: ["kill"], match: kill },
  { names: ["ps"], match: ps },
];

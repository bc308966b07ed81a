import type { ShellWord } from "./types.js";

/**
 * The shells' own options (bash(1) 5.2 "Invoking Bash", "The Set Builtin", "The Shopt Builtin"; dash(1)
 * 0.5.12; zsh(1) 5.9): which run code the analyzer does not see (a login or interactive shell's startup
 * files, `--rcfile`), which change how later words are read (`-k`, `expand_aliases`, `dotglob`), and
 * which are only switches. Shared by the shells' invocation and the `set` and `shopt` builtins.
 */

/** `set -o` option names (bash 5.2), with the reason to ask for the ones that change what later commands run. */
const SET_OPTIONS: ReadonlyMap<string, string | undefined> = new Map([
  ...[
    "allexport",
    "braceexpand",
    "emacs",
    "errexit",
    "errtrace",
    "functrace",
    "hashall",
    "history",
    "ignoreeof",
    "monitor",
    "noclobber",
    "noexec",
    "noglob",
    "nolog",
    "notify",
    "nounset",
    "onecmd",
    "physical",
    "pipefail",
    "posix",
    "privileged",
    "verbose",
    "vi",
    "xtrace",
  ].map((name): [string, string | undefined] => [name, undefined]),
  ["keyword", "puts assignments anywhere on a command line into its environment (`date PATH=x`), where this analyzer reads arguments"],
  ["histexpand", "expands `!` history references, so a command runs other text than it shows"],
]);

/** The single-letter `set` options (bash 5.2), by the `-o` name each stands for. */
export const SET_LETTERS: ReadonlyMap<string, string> = new Map([
  ["a", "allexport"],
  ["b", "notify"],
  ["e", "errexit"],
  ["f", "noglob"],
  ["h", "hashall"],
  ["k", "keyword"],
  ["m", "monitor"],
  ["n", "noexec"],
  ["p", "privileged"],
  ["t", "onecmd"],
  ["u", "nounset"],
  ["v", "verbose"],
  ["x", "xtrace"],
  ["B", "braceexpand"],
  ["C", "noclobber"],
  ["E", "errtrace"],
  ["H", "histexpand"],
  ["P", "physical"],
  ["T", "functrace"],
]);

type ShoptRisk = { readonly set?: string; readonly unset?: string };
const GLOBS = "changes what globs match, which this analyzer judges as bash would without it";

/** `shopt` option names (bash 5.2), with the reason to ask when one is set (or unset) that changes what runs. */
const SHOPT_OPTIONS: ReadonlyMap<string, ShoptRisk> = new Map([
  ...[
    "assoc_expand_once",
    "autocd",
    "cdspell",
    "checkhash",
    "checkjobs",
    "checkwinsize",
    "cmdhist",
    "complete_fullquote",
    "direxpand",
    "dirspell",
    "execfail",
    "extglob",
    "extquote",
    "failglob",
    "force_fignore",
    "globasciiranges",
    "globskipdots",
    "gnu_errfmt",
    "histappend",
    "histreedit",
    "histverify",
    "hostcomplete",
    "huponexit",
    "inherit_errexit",
    "lastpipe",
    "lithist",
    "localvar_inherit",
    "localvar_unset",
    "login_shell",
    "mailwarn",
    "no_empty_cmd_completion",
    "nocasematch",
    "noexpand_translation",
    "nullglob",
    "patsub_replacement",
    "progcomp",
    "progcomp_alias",
    "promptvars",
    "restricted_shell",
    "shift_verbose",
    "sourcepath",
    "varredir_close",
    "xpg_echo",
  ].map((name): [string, ShoptRisk] => [name, {}]),
  ["expand_aliases", { set: "makes alias definitions code that runs in place of the commands this analyzer reads" }],
  ["extdebug", { set: "lets a DEBUG trap skip or change the commands that follow" }],
  ["cdable_vars", { set: "makes `cd NAME` go to the folder held in $NAME, only known at run time" }],
  ["dotglob", { set: GLOBS }],
  ["nocaseglob", { set: GLOBS }],
  ["globstar", { set: GLOBS }],
  ["interactive_comments", { unset: "makes `#` part of a word instead of a comment, so the command runs other words than it shows" }],
  ...["compat31", "compat32", "compat40", "compat41", "compat42", "compat43", "compat44"].map((name): [string, ShoptRisk] => [
    name,
    { set: "makes bash read quoting and expansions as an older version did, not as this analyzer does" },
  ]),
]);

/** Why a `set`-style option asks (`-o NAME`, a letter), or `undefined` when it is a plain switch. */
export function set_option_risk(name: string): string | undefined {
  if (!SET_OPTIONS.has(name)) return `${name} is not a shell option this analyzer knows`;
  return SET_OPTIONS.get(name);
}

/** Why setting (`on`) or unsetting a `shopt` option asks, or `undefined` when it is a plain switch. */
export function shopt_risk(name: string, on: boolean): string | undefined {
  const risk = SHOPT_OPTIONS.get(name);
  if (risk === undefined) return `${name} is not a shopt option this analyzer knows`;
  return on ? risk.set : risk.unset;
}

/** The file tests of `test`, `[` and `[[ ]]` (bash 5.2 "Bash Conditional Expressions"): their operands are paths. */
export const UNARY_FILE_TESTS: ReadonlySet<string> = new Set([
  "-a",
  "-b",
  "-c",
  "-d",
  "-e",
  "-f",
  "-g",
  "-G",
  "-h",
  "-k",
  "-L",
  "-N",
  "-O",
  "-p",
  "-r",
  "-s",
  "-S",
  "-u",
  "-w",
  "-x",
]);
export const BINARY_FILE_TESTS: ReadonlySet<string> = new Set(["-nt", "-ot", "-ef"]);

/** The manuals of the shells the analyzer reads, by program name. */
export const SHELL_MANUALS: ReadonlyMap<string, string> = new Map([
  ["bash", "bash(1), GNU Bash 5.2: Invoking Bash"],
  ["sh", "sh(1), POSIX shell (dash 0.5.12, or bash --posix)"],
  ["dash", "dash(1), dash 0.5.12"],
  ["zsh", "zsh(1), zsh 5.9"],
  ["ksh", "ksh(1), ksh93u+m 1.0"],
  ["mksh", "mksh(1), MirBSD Korn Shell R59"],
  ["fish", "fish(1), fish 3.7"],
]);

/** Single-letter options each shell takes beyond -c, -s, -i, -l, -o (and bash's -O): its `set` letters and the like. */
const LETTERS: ReadonlyMap<string, string> = new Map([
  ["bash", "abefhkmnptuvxBCEHPTrD"],
  ["zsh", "efnuvx"],
]);
const POSIX_LETTERS = "abCefhmnuvxEIV";
/** bash's long options that are plain switches. */
const BASH_LONG = new Set([
  "--norc",
  "--noprofile",
  "--posix",
  "--noediting",
  "--restricted",
  "--verbose",
  "--help",
  "--version",
  "--dump-strings",
  "--dump-po-strings",
]);

/** What a shell's arguments ask it to run, and why its options ask (an interactive or login shell, an rc file, an unknown option). */
type ShellInvocation = {
  readonly mode: "code" | "script" | "stdin";
  /** The `-c` command string (the first operand). */
  readonly code?: ShellWord;
  /** The script file (the first operand without `-c` or `-s`). */
  readonly script?: ShellWord;
  /** `--rcfile FILE`, `--init-file FILE`: run before anything else. */
  readonly startup: ShellWord[];
  readonly asks: string[];
};

/** One letter of an option cluster (`-euo pipefail` is e, u, then o taking `pipefail`). */
function letter_option(shell: string, letter: string, plus: boolean, value: () => ShellWord | undefined, out: ShellInvocation): "c" | "s" | undefined {
  if (!plus && (letter === "c" || letter === "s")) return letter;
  if (letter === "i") out.asks.push(`${shell} -i runs an interactive shell, which reads ~/.bashrc and expands aliases`);
  else if (letter === "l") out.asks.push(`${shell} -l runs a login shell, which runs the user's startup files (~/.profile …), code this analyzer does not see`);
  else if (letter === "o") {
    const name = value();
    const risk = name?.literal === true ? set_option_risk(name.value) : "the option name is only known at run time";
    if (risk !== undefined) out.asks.push(`${shell} ${plus ? "+" : "-"}o ${name?.value ?? ""}: ${risk}`);
  } else if (letter === "O" && shell === "bash") {
    const name = value();
    const risk = name?.literal === true ? shopt_risk(name.value, !plus) : "the option name is only known at run time";
    if (risk !== undefined) out.asks.push(`${shell} ${plus ? "+" : "-"}O ${name?.value ?? ""}: ${risk}`);
  } else if (!(LETTERS.get(shell) ?? POSIX_LETTERS).includes(letter))
    out.asks.push(`${shell} ${plus ? "+" : "-"}${letter} is not an option of ${shell} this analyzer knows`);
  else if (shell === "bash" && (letter === "k" || letter === "H")) out.asks.push(`${shell} -${letter}: ${SET_OPTIONS.get(SET_LETTERS.get(letter) ?? "")}`);
  return undefined;
}

/** Reads a shell's options up to its first operand: the command string, the script, or nothing (standard input). */
export function shell_invocation(shell: string, args: readonly ShellWord[]): ShellInvocation {
  const out: ShellInvocation = { mode: "stdin", startup: [], asks: [] };
  if (shell === "fish") out.asks.push("fish's language is not bash's, and this analyzer reads only bash");
  let code = false;
  let stdin = false;
  let index = 0;
  for (; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const word = args[index]!;
    const text = word.value;
    if (word.literal && (text === "--" || text === "-")) {
      index += 1;
      break;
    }
    if (!word.literal || !/^[-+]./.test(text)) break;
    if (text.startsWith("--")) {
      if (shell === "bash" && (text === "--rcfile" || text === "--init-file")) {
        index += 1;
        const file = args[index];
        if (file !== undefined) out.startup.push(file);
      } else if (shell === "bash" && text === "--login")
        out.asks.push("bash --login runs the user's startup files (~/.bash_profile …), code this analyzer does not see");
      else if (!(shell === "bash" && BASH_LONG.has(text))) out.asks.push(`${shell} ${text} is not an option of ${shell} this analyzer knows`);
      continue;
    }
    for (const letter of text.slice(1)) {
      const value = (): ShellWord | undefined => args[++index];
      const mode = letter_option(shell, letter, text.startsWith("+"), value, out);
      if (mode === "c") code = true;
      if (mode === "s") stdin = true;
    }
  }
  const operand = args[index];
  if (code) return { ...out, mode: "code", ...(operand === undefined ? {} : { code: operand }) };
  if (operand !== undefined && !stdin) return { ...out, mode: "script", script: operand };
  return out;
}

import { awk_arguments, sed_arguments } from "./file-arguments.js";
import { sed_script_effects } from "./grammars/sed.js";
import type { CommandCategory, CommandFinding, ShellWord } from "./types.js";
import { literal_word, split_option } from "./words.js";

/** Code and commands a program runs because of its arguments (`find -exec`, `git -c`, `sed e`, `tar --to-command` …). */
export type ArgumentExecution = {
  findings: CommandFinding[];
  categories: CommandCategory[];
  /** Shell strings the program hands to a shell. */
  code: { word: ShellWord; via: string }[];
  /** Argument vectors the program executes directly. */
  argv: { words: ShellWord[]; via: string }[];
  writes: string[];
  /** Files the program reads because of its arguments (`sed r FILE`). */
  reads: string[];
};

/** git configuration keys whose value is a program or a command line git runs (git-config(1), Git 2.43). */
export const GIT_EXEC_KEYS =
  /^(core\.(pager|sshcommand|fsmonitor|editor|askpass|gitproxy|hookspath|alternaterefscommand)|gpg\.ssh\.defaultkeycommand|trailer\..*\.(command|cmd)|submodule\..*\.update|sendemail\.(tocmd|cccmd|smtpserver)|imap\.tunnel|guitool\..*\.cmd|sequence\.editor|pager\..*|diff\..*\.(command|textconv)|diff\.external|filter\..*|merge\..*\.driver|credential\..*|gpg\..*program|alias\..*|uploadpack\..*|receivepack\..*|remote\..*\.(uploadpack|receivepack|proxy)|web\.browser|browser\..*|man\..*|mergetool\..*|difftool\..*|include\..*|includeif\..*)$/i;
const unknown = (reason: string): CommandFinding => ({ action: "ask_user", category: "unknown_execution", reason });

export function argument_execution(name: string, args: readonly ShellWord[]): ArgumentExecution {
  const out: ArgumentExecution = { findings: [], categories: [], code: [], argv: [], writes: [], reads: [] };
  const values = args.map((arg) => arg.value);
  if (name === "find") {
    for (let index = 0; index < args.length; index += 1) {
      // biome-ignore lint/style/noNonNullAssertion: index < args.length, and values has one entry per arg
      const value = values[index]!;
      if (["-exec", "-execdir", "-ok", "-okdir"].includes(value)) {
        const end = values.findIndex((v, i) => i > index && (v === ";" || v === "+"));
        const inner = args.slice(index + 1, end === -1 ? undefined : end).filter((arg) => arg.value !== "{}");
        out.argv.push({ words: inner, via: `find ${value}` });
        index = end === -1 ? args.length : end;
      } else if (value === "-delete") out.categories.push("destructive");
      else if (["-fprint", "-fprint0", "-fprintf", "-fls"].includes(value)) {
        const file = values[index + 1];
        if (file !== undefined) out.writes.push(file);
      }
    }
  } else if (name === "git") {
    for (let index = 0; index < args.length; index += 1) {
      // biome-ignore lint/style/noNonNullAssertion: index < args.length, and values has one entry per arg
      const value = values[index]!;
      if (!value.startsWith("-")) break;
      if (value === "-c" || value === "--config-env" || value.startsWith("--config-env=")) {
        const setting = value.startsWith("--config-env=") ? value.slice("--config-env=".length) : (values[index + 1] ?? "");
        if (!value.startsWith("--config-env=")) index += 1;
        const key = setting.split("=")[0] ?? "";
        out.findings.push(unknown(`git ${value} ${setting} sets configuration for this run, which can make git run programs`));
        if (value === "-c" && GIT_EXEC_KEYS.test(key) && args[index]?.literal === true && setting.includes("=")) {
          out.code.push({ word: literal_word(setting.slice(setting.indexOf("=") + 1)), via: `git -c ${key}` });
        }
      } else if (value === "-C" || value === "--git-dir" || value === "--work-tree" || value === "--exec-path") index += 1;
    }
  } else if (name === "sed") {
    const parsed = sed_arguments(args);
    if (parsed.program_files.length > 0) out.findings.push(unknown("sed -f runs a script file this analyzer does not read"));
    for (const script of parsed.scripts) {
      if (!script.literal) out.findings.push(unknown(`the sed script ${script.value} is only known at run time`));
      else {
        const effects = sed_script_effects(script.value);
        if (effects.commands.length > 0) out.findings.push(unknown("sed e runs a shell command"));
        if (effects.runs_pattern_space) out.findings.push(unknown("sed s///e runs the pattern space as a shell command"));
        out.writes.push(...effects.writes);
        out.reads.push(...effects.reads);
      }
    }
  } else if (name === "tar") {
    for (const [index, value] of values.entries()) {
      const { option, attached } = split_option(value);
      if (["--to-command", "--checkpoint-action", "--info-script", "--new-volume-script", "--rsh-command", "--rmt-command", "-F"].includes(option)) {
        out.findings.push(unknown(`tar ${option} runs a program`));
      } else if (option === "--use-compress-program" || option === "-I") {
        const program = attached?.value ?? values[index + 1];
        out.findings.push(unknown(`tar ${option} runs a compression program`));
        if (program !== undefined) out.code.push({ word: literal_word(program), via: `tar ${option}` });
      }
    }
  } else if (name === "rg") {
    for (const [index, value] of values.entries()) {
      if (value === "--pre" || value.startsWith("--pre=")) {
        const program = value === "--pre" ? values[index + 1] : value.slice("--pre=".length);
        out.findings.push(unknown(`rg --pre runs ${program ?? "a program"} on every file`));
      }
    }
  } else if (name === "awk" || name === "gawk" || name === "mawk" || name === "nawk") {
    const parsed = awk_arguments(args);
    if (parsed.program_files.length > 0) out.findings.push(unknown(`${name} -f runs a program file`));
    const program = parsed.scripts[0];
    if (program !== undefined && (!program.literal || /system\s*\(|\||>|getline|@load|ENVIRON/.test(program.value))) {
      out.findings.push(unknown(`the ${name} program runs commands or writes files`));
    }
  } else if (name === "dd") {
    for (const value of values) if (value.startsWith("of=")) out.writes.push(value.slice(3));
  }
  return out;
}

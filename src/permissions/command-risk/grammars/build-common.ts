import path from "node:path";
import type { Matched } from "../grammar/matched.js";
import type { ValueKind } from "../grammar/types.js";
import type { ShellWord } from "../types.js";
import { literal_word } from "../words.js";

/**
 * A value that cannot start an expansion, a quote, a glob or a second command where a build tool pastes it:
 * a make recipe, a generated Makefile or build.ninja (`$(shell …)`, `;`, a backquote, `~` are all absent).
 */
export const PLAIN_VALUE = /^[A-Za-z0-9_./,=+:@%\- ]*$/;

/** Targets that install (`install`, `install-strip`, cmake's `install/local`): into a prefix the analyzer cannot see. */
export const INSTALL_TARGET = /^(install|uninstall)([-_/].*)?$/;

/** How a build variable's value (`make V=1`, `cmake -DCMAKE_BUILD_TYPE=Release`) is judged; `via` names it. */
export type VariableJudge = (value: ShellWord, matched: Matched, via: string) => void;

/** A value that must match `pattern` (a switch, a level, a name); anything else asks. */
export function plain_value(pattern: RegExp, what: string): VariableJudge {
  return (value, matched, via) => {
    if (!pattern.test(value.value)) matched.ask(`${via}=${value.value} is not ${what}`);
  };
}

/** An install or output folder: written, and plain text, since the build pastes it into its commands. */
export const written_path: VariableJudge = (value, matched, via) => {
  if (!PLAIN_VALUE.test(value.value)) matched.ask(`${via}=${value.value} is not a plain path`);
  else if (value.value !== "") matched.write(value);
};

const STDIN = new Set(["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]);

/**
 * A file the tool runs as code (a makefile, a cmake script, a build.ninja): a project file is announced and any
 * other asks, as the `script` kind does — but standard input and devices are code the analyzer cannot see, never
 * "the project script -".
 */
export function script_file(via: string): ValueKind {
  return {
    judge: (word, matched) => {
      if (word.literal && STDIN.has(word.value)) matched.stdin_code = true;
      else if (word.literal && /^\/(dev|proc)\//.test(word.value)) matched.ask(`${via} runs ${word.value}, code from a device or another process`);
      else matched.scripts.push(word);
    },
  };
}

/**
 * A relative path as a tool that first changes into each of `folders` sees it (`make -C build -f x.mk` reads
 * `build/x.mk`, `tar -C ~ -c .ssh` reads `~/.ssh`): the path is judged both ways, since which folder applies
 * depends on the order of the options.
 */
export function under_folders(word: ShellWord, folders: readonly ShellWord[] | undefined): ShellWord[] {
  if (!word.literal || word.value === "-" || path.posix.isAbsolute(word.value) || word.value.startsWith("~")) return [];
  return (folders ?? []).filter((folder) => folder.literal).map((folder) => literal_word(path.posix.join(folder.value, word.value)));
}

/** Every word only known at run time asks: it may split into options the grammar would have refused. */
export function ask_dynamic(words: readonly ShellWord[], matched: Matched, rule: string): void {
  for (const word of words) if (!word.literal) matched.ask(`${word.value} is only known at run time, and may be an option of ${rule} that runs code`);
}

import type { Matched } from "../../grammar/matched.js";
import type { OptionSpec, ProgramSpec, Seen, ValueKind } from "../../grammar/types.js";
import type { CommandCategory } from "../../types.js";
import { literal_word } from "../../words.js";

/** git configuration keys whose value is a program or a command line git runs (git-config(1), Git 2.43). */
export const GIT_EXEC_KEYS =
  /^(core\.(pager|sshcommand|fsmonitor|editor|askpass|gitproxy|hookspath|alternaterefscommand)|gpg\.ssh\.defaultkeycommand|trailer\..*\.(command|cmd)|submodule\..*\.update|sendemail\.(tocmd|cccmd|smtpserver)|imap\.tunnel|guitool\..*\.cmd|sequence\.editor|pager\..*|diff\..*\.(command|textconv)|diff\.external|filter\..*|merge\..*\.driver|credential\..*|gpg\..*program|alias\..*|uploadpack\..*|receivepack\..*|remote\..*\.(uploadpack|receivepack|proxy)|web\.browser|browser\..*|man\..*|mergetool\..*|difftool\..*|include\..*|includeif\..*)$/i;

export type Options = Readonly<Record<string, OptionSpec>>;
export type Spec = Omit<ProgramSpec, "rule" | "manual">;
export type Check = NonNullable<ProgramSpec["check"]>;

export const VERSION = "Git 2.43";
export const FLAG: OptionSpec = {};
export const TEXT: OptionSpec = { value: "text" };
export const NUMBER: OptionSpec = { value: "number" };
export const READ: OptionSpec = { value: "read" };
export const WRITE: OptionSpec = { value: "write" };
/** `--color[=<when>]`, `-M[<n>]`: a value only when attached; the option alone is a flag. */
export const ATTACHED_TEXT: OptionSpec = { value: "text", optional_value: true };
export const ATTACHED_NUMBER: OptionSpec = { value: "number", optional_value: true };
/** `-s <strategy>` runs the program `git-merge-<strategy>`: only the strategies git ships are known. */
export const STRATEGY: OptionSpec = { value: { one_of: ["ort", "recursive", "resolve", "octopus", "ours", "subtree"] } };
export const EDITOR: OptionSpec = { ask: "opens an editor, a program the configuration chooses" };

/** Options that take no value, as space-separated groups of spellings (`"-v|--verbose -q|--quiet"`). */
export function flags(...groups: string[]): Options {
  return Object.fromEntries(groups.flatMap((group) => group.split(" ")).map((spelling) => [spelling, FLAG]));
}

/** The rule of `git <name>` after git-<page>(1); every git command takes `--help` (it shows that page). */
export function command(name: string, spec: Spec, page: string = name.split(" ")[0] ?? name): ProgramSpec {
  return { ...spec, rule: `git ${name}`, manual: `git-${page}(1), ${VERSION}`, options: { ...spec.options, "--help": FLAG } };
}

export const has_any = (seen: Seen, names: readonly string[]): boolean => names.some((name) => seen.has(name));

/** The command is not the read or the write its spec starts from (`git branch NAME` creates a branch, `git clean -n` only lists). */
export function becomes(matched: Matched, ...categories: CommandCategory[]): void {
  matched.categories.delete("git_read");
  matched.categories.delete("git_write");
  for (const category of categories) matched.categories.add(category);
}

// ── Value kinds ────────────────────────────────────────────────────────────────────────────────

/**
 * The path in `<rev>:<path>` (`HEAD~1:src/a.ts`) or `:<stage>:<path>`; none in pathspec magic (`:/`, `:(top)x`,
 * `:!x`), a message search (`:/fix`) or a tree (`HEAD:`).
 */
function tree_path(value: string): string | undefined {
  return /^[^:]*:(?:[0-3]:)?([^/(!^].*)$/s.exec(value)?.[1];
}

/**
 * A revision, a pathspec, or a path in a revision (gitrevisions(7)): the word is judged as a path (a revision
 * names no file, so it passes), and so is the path of `<rev>:<path>`, which git shows from history.
 */
export const REVISION_OR_PATH: ValueKind = {
  judge: (word, matched) => {
    matched.read(word);
    const path = word.literal ? tree_path(word.value) : undefined;
    if (path !== undefined) matched.read(literal_word(path));
  },
};

/** `-L <start>,<end>:<file>`, `-L :<funcname>:<file>`: the file is read. */
const LINE_RANGE: ValueKind = {
  judge: (word, matched) => matched.read(word.literal ? literal_word(word.value.slice(word.value.lastIndexOf(":") + 1)) : word),
};

/** The shell command a configuration value runs, for the keys whose value is a program (`core.pager`, `alias.*` …). */
export function configured_code(key: string, value: string): string | undefined {
  if (!GIT_EXEC_KEYS.test(key)) return undefined;
  if (value.startsWith("!")) return value.slice(1);
  return /^alias\./i.test(key) ? `git ${value}` : value;
}

/** `-c <key>=<value>`: configuration for one run asks; a value that is a program is analysed as the code it is. */
export function setting(via: string): ValueKind {
  return {
    judge: (word, matched) => {
      matched.ask(`${via} ${word.value} sets configuration for this run, which can make git run programs`);
      const equals = word.value.indexOf("=");
      if (!word.literal || equals === -1) return;
      const key = word.value.slice(0, equals);
      const code = configured_code(key, word.value.slice(equals + 1));
      if (code !== undefined) matched.code.push({ word: literal_word(code), via: `${via} ${key}` });
    },
  };
}

/**
 * `--git-dir`: a repository's configuration can run programs (`core.fsmonitor`), and only a `.git` folder is
 * out of reach of the project's own writes.
 */
export const GIT_DIR: ValueKind = {
  judge: (word, matched) => {
    matched.folder(word);
    if (!word.literal || word.value.replace(/\/+$/, "").split("/").at(-1) !== ".git")
      matched.ask(`git --git-dir ${word.value} names a repository whose configuration may run programs`);
  },
};

/** The command of `ext::<command>`: words split at spaces, `% ` a space inside a word, `%%` a percent sign (git-remote-ext(1)). */
function ext_command(address: string): string {
  const words: string[] = [];
  let current = "";
  for (let at = 0; at < address.length; at += 1) {
    const char = address.charAt(at);
    const next = address.charAt(at + 1);
    if (char === "%" && (next === " " || next === "%")) {
      current += next;
      at += 1;
    } else if (char === " ") {
      if (current !== "") words.push(current);
      current = "";
    } else current += char;
  }
  if (current !== "") words.push(current);
  return words.map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
}

const URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
/** `host:path`, `user@host:path` (the scp-like syntax of git-clone(1) URLS). */
const SCP_LIKE = /^[^/:]+:/;
const REMOTE_HELPER = /^([A-Za-z][A-Za-z0-9+.-]*)::(.*)$/s;

/**
 * A repository (git-clone(1) GIT URLS): a URL or `host:path` is text; `<transport>::<address>` runs the
 * program `git-remote-<transport>`, and `ext::` a command line; anything else is a local path or a remote's name.
 */
export const REPOSITORY: ValueKind = {
  judge: (word, matched) => {
    const helper = word.literal ? REMOTE_HELPER.exec(word.value) : null;
    if (helper !== null) {
      const transport = helper[1] ?? "";
      matched.ask(`the address ${word.value} runs the remote helper git-remote-${transport}`);
      if (transport.toLowerCase() === "ext") matched.code.push({ word: literal_word(ext_command(helper[2] ?? "")), via: "git's ext:: transport" });
    } else if (!word.literal || !(URL.test(word.value) || SCP_LIKE.test(word.value))) matched.read(word);
  },
};

/** A command given as the remaining operands: one word is a shell command line, several a program and its arguments. */
export function runs_operands(via: string): Check {
  return (matched, _seen, operands) => {
    matched.ask(`${via} runs a command`);
    const [first, ...rest] = operands;
    if (first === undefined) return;
    if (rest.length === 0 && first.literal) matched.code.push({ word: first, via });
    else matched.argv.push({ words: operands, via });
  };
}

// ── Options shared by the commands that walk history and show diffs ─────────────────────────────

/** The diff options (git-diff(1), git-log(1) "DIFF OPTIONS"), of every command that shows a diff. */
export const DIFF: Options = {
  ...flags(
    "-p|-u|--patch -s|--no-patch --raw --patch-with-raw -t --indent-heuristic --no-indent-heuristic",
    "--minimal --patience --histogram --compact-summary --numstat --shortstat --cumulative --summary",
    "--patch-with-stat -z --name-only --name-status --no-color --no-color-moved --no-color-moved-ws",
    "--no-renames --rename-empty --no-rename-empty --check --full-index --binary --find-copies-harder",
    "-D|--irreversible-delete --pickaxe-all --pickaxe-regex -R --no-relative -a|--text --ignore-cr-at-eol",
    "--ignore-space-at-eol -b|--ignore-space-change -w|--ignore-all-space --ignore-blank-lines",
    "-W|--function-context --no-ext-diff --no-textconv --no-prefix --default-prefix",
    "--ita-invisible-in-index --ita-visible-in-index --exit-code --quiet",
  ),
  "-U|--unified": ATTACHED_NUMBER,
  "--output": WRITE,
  "--output-indicator-new": TEXT,
  "--output-indicator-old": TEXT,
  "--output-indicator-context": TEXT,
  "--anchored": TEXT,
  "--diff-algorithm": TEXT,
  "--stat": ATTACHED_TEXT,
  "--stat-width": NUMBER,
  "--stat-name-width": NUMBER,
  "--stat-graph-width": NUMBER,
  "--stat-count": NUMBER,
  "-X|--dirstat": ATTACHED_TEXT,
  "--dirstat-by-file": ATTACHED_TEXT,
  "--submodule": ATTACHED_TEXT,
  "--color": ATTACHED_TEXT,
  "--color-moved": ATTACHED_TEXT,
  "--color-moved-ws": TEXT,
  "--word-diff": ATTACHED_TEXT,
  "--word-diff-regex": TEXT,
  "--color-words": ATTACHED_TEXT,
  "--ws-error-highlight": TEXT,
  "--abbrev": ATTACHED_NUMBER,
  "-B|--break-rewrites": ATTACHED_TEXT,
  "-M|--find-renames": ATTACHED_TEXT,
  "-C|--find-copies": ATTACHED_TEXT,
  "-l": NUMBER,
  "--diff-filter": TEXT,
  "-S": TEXT,
  "-G": TEXT,
  "--find-object": TEXT,
  "-O": READ,
  "--skip-to": TEXT,
  "--rotate-to": TEXT,
  "--relative": ATTACHED_TEXT,
  "-I|--ignore-matching-lines": TEXT,
  "--inter-hunk-context": NUMBER,
  "--ignore-submodules": ATTACHED_TEXT,
  "--src-prefix": TEXT,
  "--dst-prefix": TEXT,
  "--line-prefix": TEXT,
  "--ext-diff": { ask: "runs the external diff program the configuration names" },
  "--textconv": { ask: "runs the text conversion programs the configuration names" },
};

/** How merges are shown (git-log(1) "Diff Formatting"). */
export const MERGE_DIFFS: Options = {
  ...flags("-m -c --cc --remerge-diff --no-diff-merges --combined-all-paths"),
  "--diff-merges": TEXT,
};

/** Commit limiting, history simplification, ordering and formatting (git-rev-list(1), git-log(1)), but `-n`. */
export const REVISIONS: Options = {
  ...flags(
    "--all-match --invert-grep -i|--regexp-ignore-case --basic-regexp -E|--extended-regexp",
    "-F|--fixed-strings -P|--perl-regexp --remove-empty --merges --no-merges --no-min-parents",
    "--no-max-parents --first-parent --exclude-first-parent-only --not --all --reflog --alternate-refs",
    "--single-worktree --ignore-missing --bisect --stdin --cherry-mark --cherry-pick --left-only",
    "--right-only --cherry -g|--walk-reflogs --merge --boundary --simplify-by-decoration --show-pulls",
    "--full-history --dense --sparse --simplify-merges --date-order --author-date-order --topo-order",
    "--reverse --do-walk --abbrev-commit --no-abbrev-commit --no-abbrev --oneline --no-expand-tabs",
    "--no-notes --standard-notes --no-standard-notes --show-signature --relative-date --parents",
    "--children --left-right --graph",
  ),
  "--max-count": NUMBER,
  "--skip": NUMBER,
  "--since|--after": TEXT,
  "--since-as-filter": TEXT,
  "--until|--before": TEXT,
  "--max-age": TEXT,
  "--min-age": TEXT,
  "--author": TEXT,
  "--committer": TEXT,
  "--grep": TEXT,
  "--grep-reflog": TEXT,
  "--min-parents": ATTACHED_NUMBER,
  "--max-parents": ATTACHED_NUMBER,
  "--branches": ATTACHED_TEXT,
  "--tags": ATTACHED_TEXT,
  "--remotes": ATTACHED_TEXT,
  "--glob": TEXT,
  "--exclude": TEXT,
  "--exclude-hidden": TEXT,
  "--ancestry-path": ATTACHED_TEXT,
  "--no-walk": ATTACHED_TEXT,
  "--pretty": ATTACHED_TEXT,
  "--format": ATTACHED_TEXT,
  "--encoding": TEXT,
  "--expand-tabs": ATTACHED_NUMBER,
  "--notes": ATTACHED_TEXT,
  "--show-notes": ATTACHED_TEXT,
  "--date": TEXT,
  "--show-linear-break": ATTACHED_TEXT,
};

/** git-log(1)'s own options, with `-n <number>`. */
export const LOG: Options = {
  ...REVISIONS,
  ...DIFF,
  ...MERGE_DIFFS,
  ...flags("--follow --no-decorate --clear-decorations --source --mailmap|--use-mailmap", "--no-mailmap|--no-use-mailmap --full-diff --log-size -q"),
  "-n|--max-count": NUMBER,
  "--decorate": ATTACHED_TEXT,
  "--decorate-refs": TEXT,
  "--decorate-refs-exclude": TEXT,
  "-L": { value: LINE_RANGE },
};

/** A command of the log family: revisions and paths as operands, `-<n>` for `-n <n>`. */
export function log_like(name: string, extra: Options = {}): ProgramSpec {
  return command(name, { category: "git_read", number_option: "-n", options: { ...LOG, ...extra }, operands: { rest: REVISION_OR_PATH } });
}

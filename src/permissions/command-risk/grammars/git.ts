import { program_rule } from "../grammar/declarative.js";
import type { Matched } from "../grammar/matched.js";
import type { OptionSpec, ProgramRule, ProgramSpec, Seen, ValueKind } from "../grammar/types.js";
import type { CommandCategory } from "../types.js";
import { literal_word } from "../words.js";

/** git configuration keys whose value is a program or a command line git runs (git-config(1), Git 2.43). */
const GIT_EXEC_KEYS =
  /^(core\.(pager|sshcommand|fsmonitor|editor|askpass|gitproxy|hookspath|alternaterefscommand)|gpg\.ssh\.defaultkeycommand|trailer\..*\.(command|cmd)|submodule\..*\.update|sendemail\.(tocmd|cccmd|smtpserver)|imap\.tunnel|guitool\..*\.cmd|sequence\.editor|pager\..*|diff\..*\.(command|textconv)|diff\.external|filter\..*|merge\..*\.driver|credential\..*|gpg\..*program|alias\..*|uploadpack\..*|receivepack\..*|remote\..*\.(uploadpack|receivepack|proxy)|web\.browser|browser\..*|man\..*|mergetool\..*|difftool\..*|include\..*|includeif\..*)$/i;

/**
 * git(1) and its commands, Git 2.43: the global options, every read-only command with the options its manual
 * documents, and the commands that change the repository, judged by their flags (`git branch --list` reads,
 * `git branch NAME` writes; `git push --force` is destructive). Options that run a program (`git grep -O`,
 * `rebase --exec`, `--upload-pack`, `-c core.pager=…`) ask, and a literal command line they carry is analysed
 * as the code it is; options that write a file (`--output`, `format-patch -o`) are judged as writes.
 *
 * How git reads its arguments decides the spellings: commands built on parse-options (`git grep`, `git branch`)
 * take `--opt <v>` and `--opt=<v>` for a required value and only the attached form (`-Oless`, `--color=always`)
 * for an optional one; the revision and diff options of `git log`/`git diff` take some values only attached
 * (`--format=`, `-U5`, `--stat=80`). An option whose value is only attached is declared so, never the other
 * way: the word after it is then judged on its own instead of being swallowed as a value.
 */

type Options = Readonly<Record<string, OptionSpec>>;
type Spec = Omit<ProgramSpec, "rule" | "manual">;
type Check = NonNullable<ProgramSpec["check"]>;

const VERSION = "Git 2.43";
const FLAG: OptionSpec = {};
const TEXT: OptionSpec = { value: "text" };
const NUMBER: OptionSpec = { value: "number" };
const READ: OptionSpec = { value: "read" };
const WRITE: OptionSpec = { value: "write" };
/** `--color[=<when>]`, `-M[<n>]`: a value only when attached; the option alone is a flag. */
const ATTACHED_TEXT: OptionSpec = { value: "text", optional_value: true };
const ATTACHED_NUMBER: OptionSpec = { value: "number", optional_value: true };
/** `-s <strategy>` runs the program `git-merge-<strategy>`: only the strategies git ships are known. */
const STRATEGY: OptionSpec = { value: { one_of: ["ort", "recursive", "resolve", "octopus", "ours", "subtree"] } };
const EDITOR: OptionSpec = { ask: "opens an editor, a program the configuration chooses" };

/** Options that take no value, as space-separated groups of spellings (`"-v|--verbose -q|--quiet"`). */
function flags(...groups: string[]): Options {
  return Object.fromEntries(groups.flatMap((group) => group.split(" ")).map((spelling) => [spelling, FLAG]));
}

/** The rule of `git <name>` after git-<page>(1); every git command takes `--help` (it shows that page). */
function command(name: string, spec: Spec, page: string = name.split(" ")[0] ?? name): ProgramSpec {
  return { ...spec, rule: `git ${name}`, manual: `git-${page}(1), ${VERSION}`, options: { ...spec.options, "--help": FLAG } };
}

const has_any = (seen: Seen, names: readonly string[]): boolean => names.some((name) => seen.has(name));

/** The command is not the read or the write its spec starts from (`git branch NAME` creates a branch, `git clean -n` only lists). */
function becomes(matched: Matched, ...categories: CommandCategory[]): void {
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
const REVISION_OR_PATH: ValueKind = {
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
function configured_code(key: string, value: string): string | undefined {
  if (!GIT_EXEC_KEYS.test(key)) return undefined;
  if (value.startsWith("!")) return value.slice(1);
  return /^alias\./i.test(key) ? `git ${value}` : value;
}

/** `-c <key>=<value>`: configuration for one run asks; a value that is a program is analysed as the code it is. */
function setting(via: string): ValueKind {
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
const GIT_DIR: ValueKind = {
  judge: (word, matched) => {
    matched.read(word);
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
const REPOSITORY: ValueKind = {
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
function runs_operands(via: string): Check {
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
const DIFF: Options = {
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
const MERGE_DIFFS: Options = {
  ...flags("-m -c --cc --remerge-diff --no-diff-merges --combined-all-paths"),
  "--diff-merges": TEXT,
};

/** Commit limiting, history simplification, ordering and formatting (git-rev-list(1), git-log(1)), but `-n`. */
const REVISIONS: Options = {
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
const LOG: Options = {
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
function log_like(name: string, extra: Options = {}): ProgramSpec {
  return command(name, { category: "git_read", number_option: "-n", options: { ...LOG, ...extra }, operands: { rest: REVISION_OR_PATH } });
}

// ── Read-only commands ───────────────────────────────────────────────────────────────────────────

// git status [<options>] [--] [<pathspec>...]
const STATUS = command("status", {
  category: "git_read",
  options: {
    ...flags("-v|--verbose -s|--short -b|--branch --show-stash --ahead-behind --no-ahead-behind --long -z|--null"),
    ...flags("--no-renames --no-column"),
    "--porcelain": ATTACHED_TEXT,
    "-u|--untracked-files": ATTACHED_TEXT,
    "--ignored": ATTACHED_TEXT,
    "--ignore-submodules": ATTACHED_TEXT,
    "--column": ATTACHED_TEXT,
    "-M|--find-renames": ATTACHED_TEXT,
  },
  operands: { rest: "read" },
});

// git diff [<options>] [<commit> [<commit>]] [--] [<path>...]; git diff [<options>] --no-index [--] <path> <path>
const DIFF_COMMAND = command("diff", {
  category: "git_read",
  options: { ...DIFF, ...flags("--cached|--staged --merge-base --no-index -1|--base -2|--ours -3|--theirs -c --cc") },
  // --no-index compares files and folders of the file system, as lstat(2) sees them (a symlink is its target's name)
  operands: (seen) => ({ rest: seen.has("--no-index") ? "tree" : REVISION_OR_PATH }),
});

/** git-diff-tree(1), git-diff-files(1), git-diff-index(1): the plumbing diffs, which run no textconv or external diff unless asked. */
const PLUMBING_DIFF: Options = { ...DIFF, ...MERGE_DIFFS, "--pretty": ATTACHED_TEXT, "--format": ATTACHED_TEXT };

// git grep [<options>] [-e] <pattern> [<rev>...] [[--] <path>...]
const GREP = command("grep", {
  category: "git_read",
  number_option: "-C",
  options: {
    ...flags("--cached --no-index --untracked --exclude-standard --no-exclude-standard --recurse-submodules"),
    ...flags("-v|--invert-match -i|--ignore-case -w|--word-regexp -a|--text -I --no-textconv -r|--recursive", "--no-recursive"),
    ...flags("-E|--extended-regexp -G|--basic-regexp -F|--fixed-strings -P|--perl-regexp"),
    ...flags("-n|--line-number --no-line-number --column -h -H --full-name -l|--files-with-matches|--name-only"),
    ...flags("-L|--files-without-match -z|--null -o|--only-matching -c|--count --no-color --break --heading"),
    ...flags("-p|--show-function -W|--function-context --and --or --not -q|--quiet --all-match"),
    "--color": ATTACHED_TEXT,
    "--max-depth": NUMBER,
    "-C|--context": NUMBER,
    "-B|--before-context": NUMBER,
    "-A|--after-context": NUMBER,
    "--threads": NUMBER,
    "-m|--max-count": NUMBER,
    "-f": READ,
    "-e": TEXT,
    "-O|--open-files-in-pager": { value: "command", optional_value: true, ask: "opens the matching files in a pager, a program it runs" },
    "--textconv": { ask: "runs the text conversion programs the configuration names" },
  },
  // with --no-index or --untracked it reads the work tree's files, not what git tracks
  operands: (seen) => {
    const rest = has_any(seen, ["--no-index", "--untracked"]) ? "tree" : REVISION_OR_PATH;
    return has_any(seen, ["-e", "-f"]) ? { rest } : { first: ["text"], rest };
  },
  check: (matched, seen, operands) => {
    const paths = operands.length - (has_any(seen, ["-e", "-f"]) ? 0 : 1);
    if (has_any(seen, ["--no-index", "--untracked"]) && paths <= 0) matched.read(literal_word("."), "tree");
  },
});

// git blame [<options>] [<rev-opts>] [<rev>] [--] <file>; git annotate takes the same options
const BLAME: Spec = {
  category: "git_read",
  options: {
    ...flags("--incremental -b --root --show-stats --progress --no-progress --score-debug -f|--show-name", "-n|--show-number"),
    ...flags("-p|--porcelain --line-porcelain -c -t -l -s -e|--show-email -w --color-lines --color-by-age", "--minimal"),
    ...flags("--reverse --first-parent"),
    "--ignore-rev": TEXT,
    "--ignore-revs-file": READ,
    "-S": READ,
    "--contents": READ,
    "-C": ATTACHED_TEXT,
    "-M": ATTACHED_TEXT,
    "-L": TEXT,
    "--abbrev": ATTACHED_NUMBER,
    "--date": TEXT,
    "--since": TEXT,
    "--encoding": TEXT,
  },
  operands: { rest: REVISION_OR_PATH },
};

// git rev-parse [<options>] <arg>...
const REV_PARSE = command("rev-parse", {
  category: "git_read",
  options: {
    ...flags("--parseopt --sq-quote --keep-dashdash --stop-at-non-option --stuck-long --revs-only --no-revs", "--flags"),
    ...flags("--no-flags --verify -q|--quiet --sq --not --symbolic --symbolic-full-name --all --local-env-vars"),
    ...flags("--git-dir --git-common-dir --show-toplevel --show-superproject-working-tree --shared-index-path"),
    ...flags("--absolute-git-dir --is-inside-git-dir --is-inside-work-tree --is-bare-repository", "--is-shallow-repository"),
    ...flags("--show-cdup --show-prefix"),
    "--default": TEXT,
    "--prefix": TEXT,
    "--short": ATTACHED_NUMBER,
    "--abbrev-ref": ATTACHED_TEXT,
    "--branches": ATTACHED_TEXT,
    "--tags": ATTACHED_TEXT,
    "--remotes": ATTACHED_TEXT,
    "--glob": ATTACHED_TEXT,
    "--exclude": ATTACHED_TEXT,
    "--exclude-hidden": ATTACHED_TEXT,
    "--disambiguate": ATTACHED_TEXT,
    "--path-format": ATTACHED_TEXT,
    "--resolve-git-dir": READ,
    "--git-path": TEXT,
    "--show-object-format": ATTACHED_TEXT,
    "--since|--after|--until|--before": ATTACHED_TEXT,
  },
  operands: { rest: REVISION_OR_PATH },
});

// git ls-files [<options>] [<file>...]: names only, no content
const LS_FILES = command("ls-files", {
  category: "git_read",
  options: {
    ...flags("-z -t -v -f -c|--cached -d|--deleted -m|--modified -o|--others -i|--ignored -s|--stage -k|--killed"),
    ...flags("--directory --no-empty-directory --eol -u|--unmerged --resolve-undo --exclude-standard --full-name"),
    ...flags("--recurse-submodules --error-unmatch --debug --deduplicate --sparse"),
    "-x|--exclude": TEXT,
    "-X|--exclude-from": READ,
    // the name of a file git reads in every folder as ignore patterns
    "--exclude-per-directory": READ,
    "--with-tree": TEXT,
    "--abbrev": ATTACHED_NUMBER,
    "--format": TEXT,
  },
  operands: { rest: "text" },
});

// git ls-tree [<options>] <tree-ish> [<path>...]
const LS_TREE = command("ls-tree", {
  category: "git_read",
  options: {
    ...flags("-d -r -t -z -l|--long --name-only|--name-status --object-only --full-name --full-tree"),
    "--format": TEXT,
    "--abbrev": ATTACHED_NUMBER,
  },
  operands: { rest: "text" },
});

// git describe [--all] [--tags] [--contains] [--abbrev=<n>] [<commit-ish>...]
const DESCRIBE = command("describe", {
  category: "git_read",
  options: {
    ...flags("--contains --debug --all --tags --long --first-parent --exact-match --always"),
    "--abbrev": ATTACHED_NUMBER,
    "--candidates": NUMBER,
    "--match": TEXT,
    "--exclude": TEXT,
    "--dirty": ATTACHED_TEXT,
    "--broken": ATTACHED_TEXT,
  },
  operands: { rest: "text" },
});

// git shortlog [<options>] [<revision-range>] [[--] <path>...]: its -n is --numbered
const SHORTLOG = command("shortlog", {
  category: "git_read",
  number_option: "--max-count",
  options: { ...REVISIONS, ...flags("-c|--committer -n|--numbered -s|--summary -e|--email"), "-w": ATTACHED_TEXT, "--group": TEXT },
  operands: { rest: REVISION_OR_PATH },
});

// git reflog [show] [<log-options>] [<ref>]; git reflog expire|delete …; git reflog exists <ref>
const REFLOG_EDIT: Options = {
  ...flags("--rewrite --updateref --stale-fix -n|--dry-run --verbose --all --single-worktree"),
  "--expire": TEXT,
  "--expire-unreachable": TEXT,
};
const REFLOG = command("reflog", {
  category: "git_read",
  number_option: "-n",
  options: LOG,
  operands: { rest: "text" },
  subcommands: {
    show: log_like("reflog show"),
    exists: command("reflog exists", { category: "git_read", operands: { rest: "text" } }, "reflog"),
    expire: command("reflog expire", { category: "git_write", options: REFLOG_EDIT, operands: { rest: "text" } }, "reflog"),
    delete: command("reflog delete", { category: "git_write", options: REFLOG_EDIT, operands: { rest: "text" } }, "reflog"),
  },
});

// git cat-file <type> <object>; git cat-file (-e | -p | -t | -s) <object>; git cat-file --batch …
const CAT_FILE = command("cat-file", {
  category: "git_read",
  options: {
    ...flags("-t -s -e -p --mailmap|--use-mailmap --no-mailmap|--no-use-mailmap --allow-unknown-type -z -Z"),
    ...flags("--batch-all-objects --buffer --unordered --follow-symlinks"),
    "--batch": ATTACHED_TEXT,
    "--batch-check": ATTACHED_TEXT,
    "--batch-command": ATTACHED_TEXT,
    "--path": TEXT,
    "--textconv": { ask: "runs the text conversion program the configuration names" },
    "--filters": { ask: "runs the smudge filters the configuration names" },
  },
  operands: { rest: REVISION_OR_PATH },
});

// git rev-list [<options>] <commit>... [--] [<path>...]
const REV_LIST = command("rev-list", {
  category: "git_read",
  number_option: "-n",
  options: {
    ...REVISIONS,
    ...flags("--count --objects --objects-edge --objects-edge-aggressive --unpacked --object-names", "--no-object-names"),
    ...flags("--header --timestamp --quiet --bisect-vars --bisect-all --indexed-objects --in-commit-order", "--no-filter"),
    ...flags("--filter-print-omitted --exclude-promisor-objects --use-bitmap-index"),
    "-n|--max-count": NUMBER,
    "--disk-usage": ATTACHED_TEXT,
    "--filter": ATTACHED_TEXT,
    "--missing": ATTACHED_TEXT,
  },
  operands: { rest: REVISION_OR_PATH },
});

// git name-rev [<options>] <commit>...
const NAME_REV = command("name-rev", {
  category: "git_read",
  options: {
    ...flags("--name-only --tags --all --stdin --annotate-stdin --undefined --no-undefined --always"),
    "--refs": TEXT,
    "--exclude": TEXT,
  },
  operands: { rest: "text" },
});

// git merge-base [-a | --all] <commit> <commit>...; --octopus, --independent, --is-ancestor, --fork-point
const MERGE_BASE = command("merge-base", {
  category: "git_read",
  options: flags("-a|--all --octopus --independent --is-ancestor --fork-point"),
  operands: { rest: "text" },
});

/** The ref filters of git-for-each-ref(1), git-branch(1) and git-tag(1): a commit after them is taken even when it is last-but-optional. */
const REF_FILTERS: Options = {
  "--contains": TEXT,
  "--no-contains": TEXT,
  "--merged": TEXT,
  "--no-merged": TEXT,
  "--points-at": TEXT,
  "--sort": TEXT,
  "--format": TEXT,
  "--color": ATTACHED_TEXT,
  "--no-color": FLAG,
  "--omit-empty": FLAG,
};

// git for-each-ref [--count=<count>] [--shell|--perl|--python|--tcl] [--sort=<key>] [--format=<format>] [<pattern>...]
const FOR_EACH_REF = command("for-each-ref", {
  category: "git_read",
  options: {
    ...REF_FILTERS,
    ...flags("-s|--shell -p|--perl --python --tcl --ignore-case --stdin"),
    "--count": NUMBER,
    "--exclude": TEXT,
  },
  operands: { rest: "text" },
});

// git show-ref [--head] [-d] [-s [<n>]] [--abbrev[=<n>]] [--tags] [--heads] [--] [<pattern>...]
const SHOW_REF = command("show-ref", {
  category: "git_read",
  options: {
    ...flags("--tags --heads --verify --head -d|--dereference -q|--quiet --exists"),
    "-s|--hash": ATTACHED_NUMBER,
    "--abbrev": ATTACHED_NUMBER,
    "--exclude-existing": ATTACHED_TEXT,
  },
  operands: { rest: "text" },
});

// git count-objects [-v] [-H | --human-readable]
const COUNT_OBJECTS = command("count-objects", { category: "git_read", options: flags("-v|--verbose -H|--human-readable") });

// git check-ignore [<options>] <pathname>...: matches names against the ignore rules, reads no file
const CHECK_IGNORE = command("check-ignore", {
  category: "git_read",
  options: flags("-q|--quiet -v|--verbose --stdin -z -n|--non-matching --no-index"),
  operands: { rest: "text" },
});

// git check-attr [--source <tree-ish>] [-a | --all | <attr>...] [--] <pathname>...
const CHECK_ATTR = command("check-attr", {
  category: "git_read",
  options: { ...flags("-a|--all --cached --stdin -z"), "--source": TEXT },
  operands: { rest: "text" },
});

// git check-ref-format [--normalize] [--[no-]allow-onelevel] [--refspec-pattern] <refname>; --branch <name>
const CHECK_REF_FORMAT = command("check-ref-format", {
  category: "git_read",
  options: flags("--normalize --allow-onelevel --no-allow-onelevel --refspec-pattern --branch"),
  operands: { rest: "text" },
});

// git var (-l | <variable>)
const VAR = command("var", { category: "git_read", options: flags("-l"), operands: { rest: "text" } });

// git version [--build-options]
const VERSION_COMMAND = command("version", { category: "git_read", options: flags("--build-options") });

// git help [-a|--all] [--[no-]verbose] …; git help [[-i|--info] [-m|--man] [-w|--web]] [<command>|<doc>]
const HELP = command("help", {
  category: "git_read",
  options: {
    ...flags("-a|--all --external-commands --no-external-commands --aliases --no-aliases -m|--man -i|--info"),
    ...flags("-v|--verbose --no-verbose -g|--guides -c|--config --user-interfaces --developer-interfaces"),
    "-w|--web": { ask: "opens the manual in a web browser, a program the configuration chooses" },
  },
  operands: { rest: "text" },
});

// git cherry [-v] [--abbrev[=<n>]] [<upstream> [<head> [<limit>]]]
const CHERRY = command("cherry", { category: "git_read", options: { "-v": FLAG, "--abbrev": ATTACHED_NUMBER }, operands: { rest: "text" } });

// git show-branch [-a|--all] [-r|--remotes] [--topo-order|--date-order] [--current] … [<rev>|<glob>...]
const SHOW_BRANCH = command("show-branch", {
  category: "git_read",
  options: {
    ...flags("-r|--remotes -a|--all --current --topo-order --date-order --sparse --list --merge-base --independent"),
    ...flags("--no-name --sha1-name --topics --no-color"),
    "--more": ATTACHED_NUMBER,
    "-g|--reflog": ATTACHED_TEXT,
    "--color": ATTACHED_TEXT,
  },
  operands: { rest: "text" },
});

// git fsck [--tags] [--root] [--unreachable] [--cache] [--no-reflogs] [--[no-]full] [--strict] [--verbose] [<object>...]
const FSCK = command("fsck", {
  category: "git_read",
  options: flags(
    "--unreachable --dangling --no-dangling --root --tags --cache --no-reflogs --full --no-full",
    "--connectivity-only --strict --verbose --name-objects --progress --no-progress",
  ),
  operands: { rest: "text" },
});

// git verify-commit [-v | --verbose] [--raw] <commit>...; git verify-tag [-v | --verbose] [--format=<format>] [--raw] <tag>...
const VERIFY_COMMIT = command("verify-commit", { category: "git_read", options: flags("-v|--verbose --raw"), operands: { rest: "text" } });
const VERIFY_TAG = command("verify-tag", {
  category: "git_read",
  options: { ...flags("-v|--verbose --raw"), "--format": TEXT },
  operands: { rest: "text" },
});

// git range-diff [--color=[<when>]] [--no-color] [<diff-options>] [--no-dual-color] [--creation-factor=<factor>] … <range1> <range2>
const RANGE_DIFF = command("range-diff", {
  category: "git_read",
  options: { ...DIFF, ...flags("--no-dual-color --left-only --right-only --no-notes"), "--creation-factor": NUMBER, "--notes": ATTACHED_TEXT },
  operands: { rest: "text" },
});

// git hash-object [-t <type>] [-w] [--path=<file> | --no-filters] [--stdin [--literally]] [--] <file>...
const HASH_OBJECT = command("hash-object", {
  category: "git_read",
  options: { ...flags("--stdin --stdin-paths --no-filters --literally -w"), "-t": TEXT, "--path": TEXT },
  operands: { rest: "read" },
  check: (matched, seen) => {
    if (seen.has("-w")) becomes(matched, "git_write");
  },
});

// git symbolic-ref [-m <reason>] <name> <ref>; git symbolic-ref [-q] [--short] [--no-recurse] <name>; git symbolic-ref --delete [-q] <name>
const SYMBOLIC_REF = command("symbolic-ref", {
  category: "git_read",
  options: { ...flags("-d|--delete -q|--quiet --short --recurse --no-recurse"), "-m": TEXT },
  operands: { rest: "text" },
  check: (matched, seen, operands) => {
    if (seen.has("-d") || operands.length > 1) becomes(matched, "git_write");
  },
});

// git whatchanged <option>...: git log with --raw and merges hidden
const WHATCHANGED = log_like("whatchanged");

// git format-patch [<options>] [<since> | <revision-range>]: writes one file per commit unless --stdout
const FORMAT_PATCH = command("format-patch", {
  category: "git_read",
  number_option: "--max-count",
  options: {
    ...REVISIONS,
    ...DIFF,
    ...flags("-n|--numbered -N|--no-numbered -s|--signoff --stdout --cover-letter --no-cover-letter", "--numbered-files"),
    ...flags("--rfc -k|--keep-subject --no-binary --zero-commit --ignore-if-in-upstream --always -p|--no-stat"),
    ...flags("--no-to --no-cc --no-attach --no-thread --no-signature -q|--quiet --progress --force-in-body-from"),
    ...flags("--no-force-in-body-from"),
    "--suffix": TEXT,
    "--start-number": NUMBER,
    "-v|--reroll-count": TEXT,
    "--filename-max-length": NUMBER,
    "--cover-from-description": TEXT,
    "--subject-prefix": TEXT,
    "-o|--output-directory": WRITE,
    "--add-header": TEXT,
    "--to": TEXT,
    "--cc": TEXT,
    "--from": ATTACHED_TEXT,
    "--in-reply-to": TEXT,
    "--attach": ATTACHED_TEXT,
    "--inline": ATTACHED_TEXT,
    "--thread": ATTACHED_TEXT,
    "--signature": TEXT,
    "--base": TEXT,
    "--signature-file": READ,
    "--interdiff": TEXT,
    "--range-diff": TEXT,
    "--creation-factor": NUMBER,
  },
  operands: { rest: REVISION_OR_PATH },
  check: (matched, seen) => {
    if (!has_any(seen, ["--stdout", "-o"])) matched.write(literal_word("."));
  },
});

// git archive [--format=<fmt>] [--list] [--prefix=<prefix>/] [-o <file>] [--worktree-attributes] [--remote=<repo> [--exec=<cmd>]] <tree-ish> [<path>...]
const ARCHIVE = command("archive", {
  category: "git_read",
  options: {
    ...flags("--worktree-attributes -v|--verbose -l|--list -0 -1 -2 -3 -4 -5 -6 -7 -8 -9"),
    "--format": TEXT,
    "--prefix": TEXT,
    "--add-file": READ,
    "--add-virtual-file": TEXT,
    "--mtime": TEXT,
    "-o|--output": WRITE,
    "--remote": { value: REPOSITORY, category: "network" },
    "--exec": { value: "command" },
  },
  operands: { rest: REVISION_OR_PATH },
});

// git bundle create|verify|list-heads|unbundle <file> …
const BUNDLE_OPTIONS: Options = flags("-q|--quiet --progress --all-progress --all-progress-implied");
const BUNDLE = command("bundle", {
  category: "git_read",
  subcommands: {
    create: command(
      "bundle create",
      { category: "git_read", options: { ...BUNDLE_OPTIONS, ...REVISIONS, "--version": TEXT }, operands: { first: ["write"], rest: "text" } },
      "bundle",
    ),
    verify: command("bundle verify", { category: "git_read", options: BUNDLE_OPTIONS, operands: { first: ["read"] } }, "bundle"),
    "list-heads": command("bundle list-heads", { category: "git_read", operands: { first: ["read"], rest: "text" } }, "bundle"),
    unbundle: command("bundle unbundle", { category: "git_write", options: BUNDLE_OPTIONS, operands: { first: ["read"], rest: "text" } }, "bundle"),
  },
});

// ── Commands with a read form and a write form ──────────────────────────────────────────────────

const BRANCH_WRITES = ["-d", "-D", "-m", "-M", "-c", "-C", "-f", "-u", "--unset-upstream", "--edit-description", "-t", "--no-track", "--create-reflog"];
/** Options that make `git branch` list (a name after them is a pattern) or refuse a name (`-a`, `-r`). */
const BRANCH_LISTS = ["-l", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--show-current", "-a", "-r"];

// git branch [<options>] [-l] [<pattern>...]; git branch [-f] <branch-name> [<start-point>]; (-d | -D | -m | -M | -c | -C) …
const BRANCH = command("branch", {
  category: "git_read",
  options: {
    ...REF_FILTERS,
    ...flags("-v|--verbose -q|--quiet -r|--remotes -a|--all -l|--list --show-current -i|--ignore-case --no-column"),
    ...flags("--no-abbrev --recurse-submodules --unset-upstream --create-reflog --no-track"),
    ...flags("-d|--delete -D -m|--move -M -c|--copy -C -f|--force"),
    "-t|--track": ATTACHED_TEXT,
    "-u|--set-upstream-to": TEXT,
    "--edit-description": EDITOR,
    "--abbrev": ATTACHED_NUMBER,
    "--column": ATTACHED_TEXT,
  },
  operands: { rest: "text" },
  check: (matched, seen, operands) => {
    if (!has_any(seen, BRANCH_WRITES) && (operands.length === 0 || has_any(seen, BRANCH_LISTS))) return;
    becomes(matched, "git_write");
    if (has_any(seen, ["-D", "-M", "-C"]) || (seen.has("-d") && seen.has("-f"))) matched.categories.add("destructive");
  },
});

/** Options that make `git tag` list (a name after them is a pattern) or verify. */
const TAG_LISTS = ["-l", "-n", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "-v"];

// git tag [-a | -s | -u <key-id>] [-f] [-m <msg> | -F <file>] [-e] <tagname> [<commit>]; git tag -d <tagname>...; git tag -l …; git tag -v …
const TAG = command("tag", {
  category: "git_read",
  options: {
    ...REF_FILTERS,
    ...flags("-l|--list -d|--delete -v|--verify -a|--annotate -s|--sign --no-sign -f|--force --create-reflog"),
    ...flags("-i|--ignore-case --no-column"),
    "-n": ATTACHED_NUMBER,
    "-m|--message": TEXT,
    "-F|--file": READ,
    "-e|--edit": EDITOR,
    "--cleanup": TEXT,
    "-u|--local-user": TEXT,
    "--column": ATTACHED_TEXT,
  },
  operands: { rest: "text" },
  check: (matched, seen, operands) => {
    if (!seen.has("-d") && (operands.length === 0 || has_any(seen, TAG_LISTS))) return;
    becomes(matched, "git_write");
    if (has_any(seen, ["-d", "-f"])) matched.categories.add("destructive");
  },
});

const CONFIG_READS = ["--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--get-color", "--get-colorbool"];
const CONFIG_WRITES = ["--add", "--replace-all", "--unset", "--unset-all", "--rename-section", "--remove-section", "-e"];

/**
 * A configuration change: asks; in the user's or the system's configuration it is outside the project, and a
 * program set there runs in every repository later (persistent code execution), so it is refused.
 */
const config_write: Check = (matched, seen, operands) => {
  becomes(matched, "git_write");
  const file = seen.get("-f")?.[0];
  if (file !== undefined) matched.write(file);
  const user_wide = has_any(seen, ["--global", "--system"]);
  if (user_wide) matched.categories.add("system_sensitive");
  const [key, value] = operands;
  if (key === undefined || value === undefined || !key.literal || !GIT_EXEC_KEYS.test(key.value) || has_any(seen, ["--unset", "--unset-all"])) return;
  if (user_wide) matched.deny(`git config ${key.value} in the user's configuration sets a program every repository then runs`, "system_sensitive");
  else if (value.literal) matched.code.push({ word: literal_word(configured_code(key.value, value.value) ?? value.value), via: `git config ${key.value}` });
  else matched.ask(`git config ${key.value} sets a program git runs to ${value.value}, which is only known at run time`);
};

// git config [<file-option>] [--type=<type>] [--show-origin] [--show-scope] [-z|--null] <name> [<value> [<value-pattern>]]; --get, --list …
const CONFIG = command("config", {
  category: "git_read",
  options: {
    ...flags("--global --system --local --worktree --fixed-value --bool --int --bool-or-int --bool-or-str --path"),
    ...flags("--expiry-date --no-type -z|--null --name-only --includes --no-includes --show-origin --show-scope"),
    ...flags("--get --get-all --get-regexp --get-urlmatch -l|--list --get-color --get-colorbool"),
    ...flags("--add --replace-all --unset --unset-all --rename-section --remove-section"),
    "-e|--edit": EDITOR,
    "-f|--file": READ,
    "--blob": { value: REVISION_OR_PATH },
    "-t|--type": TEXT,
    "--default": TEXT,
  },
  operands: { rest: "text" },
  check: (matched, seen, operands) => {
    if (has_any(seen, CONFIG_WRITES) || (!has_any(seen, CONFIG_READS) && operands.length >= 2)) config_write(matched, seen, operands);
  },
});

// git remote [-v | --verbose]; git remote add|rename|remove|set-head|show|prune|update|set-branches|get-url|set-url …
const REMOTE = command("remote", {
  category: "git_read",
  options: flags("-v|--verbose"),
  subcommands: {
    add: command(
      "remote add",
      {
        category: "git_write",
        options: { ...flags("--tags --no-tags"), "-t": TEXT, "-m": TEXT, "-f": { category: "network" }, "--mirror": ATTACHED_TEXT },
        operands: { first: ["text", REPOSITORY] },
      },
      "remote",
    ),
    rename: command("remote rename", { category: "git_write", options: flags("--progress --no-progress"), operands: { rest: "text" } }, "remote"),
    remove: command("remote remove", { category: "git_write", operands: { rest: "text" } }, "remote"),
    rm: command("remote rm", { category: "git_write", operands: { rest: "text" } }, "remote"),
    "set-head": command(
      "remote set-head",
      { category: "git_write", options: { "-a|--auto": { category: "network" }, "-d|--delete": FLAG }, operands: { rest: "text" } },
      "remote",
    ),
    show: command("remote show", { category: "network", options: flags("-n"), operands: { rest: "text" }, check: remote_show }, "remote"),
    prune: command("remote prune", { category: "network", options: flags("-n|--dry-run"), operands: { rest: "text" }, check: remote_prune }, "remote"),
    update: command("remote update", { category: "network", options: flags("-p|--prune"), operands: { rest: "text" }, check: fetches }, "remote"),
    "set-branches": command("remote set-branches", { category: "git_write", options: flags("--add"), operands: { rest: "text" } }, "remote"),
    "get-url": command("remote get-url", { category: "git_read", options: flags("--push --all"), operands: { rest: "text" } }, "remote"),
    "set-url": command(
      "remote set-url",
      { category: "git_write", options: flags("--push --add --delete"), operands: { first: ["text"], rest: REPOSITORY } },
      "remote",
    ),
  },
});

/** `git remote show -n NAME` reads the configuration only; without `-n` it asks the remote. */
function remote_show(matched: Matched, seen: Seen): void {
  matched.categories.add("git_read");
  if (seen.has("-n")) matched.categories.delete("network");
}

function remote_prune(matched: Matched, seen: Seen): void {
  matched.categories.add(seen.has("-n") ? "git_read" : "git_write");
}

/** Fetching writes the remote-tracking refs. */
function fetches(matched: Matched): void {
  matched.categories.add("git_write");
}

// git stash list [<log-options>]; git stash show [-u | --include-untracked | --only-untracked] [<diff-options>] [<stash>]; git stash [push …] …
const STASH_PUSH: Options = {
  ...flags("-p|--patch -S|--staged -k|--keep-index --no-keep-index -q|--quiet -u|--include-untracked -a|--all"),
  ...flags("--pathspec-file-nul"),
  "-m|--message": TEXT,
  "--pathspec-from-file": READ,
};
const stash = (name: string, spec: Spec): ProgramSpec => command(`stash ${name}`, spec, "stash");
const STASH = command("stash", {
  category: "git_write",
  options: STASH_PUSH,
  subcommands: {
    list: stash("list", { category: "git_read", number_option: "-n", options: LOG }),
    show: stash("show", {
      category: "git_read",
      options: { ...DIFF, ...flags("-u|--include-untracked --only-untracked --no-include-untracked") },
      operands: { rest: "text" },
    }),
    push: stash("push", { category: "git_write", options: STASH_PUSH, operands: { rest: "read" } }),
    save: stash("save", { category: "git_write", options: STASH_PUSH, operands: { rest: "text" } }),
    pop: stash("pop", { category: "git_write", options: flags("--index -q|--quiet"), operands: { rest: "text" } }),
    apply: stash("apply", { category: "git_write", options: flags("--index -q|--quiet"), operands: { rest: "text" } }),
    drop: stash("drop", { category: "git_write", options: flags("-q|--quiet"), operands: { rest: "text" }, check: destroys }),
    clear: stash("clear", { category: "git_write", check: destroys }),
    branch: stash("branch", { category: "git_write", operands: { rest: "text" } }),
    create: stash("create", { category: "git_write", operands: { rest: "text" } }),
    store: stash("store", { category: "git_write", options: { ...flags("-q|--quiet"), "-m|--message": TEXT }, operands: { rest: "text" } }),
  },
});

function destroys(matched: Matched): void {
  matched.categories.add("destructive");
}

// git worktree add|list|lock|move|prune|remove|repair|unlock …
const worktree = (name: string, spec: Spec): ProgramSpec => command(`worktree ${name}`, spec, "worktree");
const WORKTREE = command("worktree", {
  category: "git_write",
  subcommands: {
    list: worktree("list", { category: "git_read", options: { ...flags("-v|--verbose --porcelain -z"), "--expire": TEXT } }),
    add: worktree("add", {
      category: "git_write",
      options: {
        ...flags("-f|--force -d|--detach --checkout --no-checkout --lock -q|--quiet --track --no-track"),
        ...flags("--guess-remote --no-guess-remote --orphan"),
        "--reason": TEXT,
        "-b": TEXT,
        "-B": TEXT,
      },
      operands: { first: ["write"], rest: "text" },
    }),
    lock: worktree("lock", { category: "git_write", options: { "--reason": TEXT }, operands: { rest: "read" } }),
    unlock: worktree("unlock", { category: "git_write", operands: { rest: "read" } }),
    move: worktree("move", { category: "git_write", options: flags("-f|--force"), operands: { first: ["read", "write"] } }),
    remove: worktree("remove", { category: "git_write", options: flags("-f|--force"), operands: { rest: "read" }, check: destroys }),
    prune: worktree("prune", { category: "git_write", options: { ...flags("-n|--dry-run -v|--verbose"), "--expire": TEXT } }),
    repair: worktree("repair", { category: "git_write", operands: { rest: "read" } }),
  },
});

// git submodule [--quiet] [--cached]; git submodule status|summary|foreach|init|deinit|update|add|sync|set-branch|set-url|absorbgitdirs …
const submodule = (name: string, spec: Spec): ProgramSpec => command(`submodule ${name}`, spec, "submodule");
const SUBMODULE = command("submodule", {
  category: "git_read",
  options: flags("-q|--quiet --cached"),
  subcommands: {
    status: submodule("status", { category: "git_read", options: flags("--cached --recursive -q|--quiet"), operands: { rest: "read" } }),
    summary: submodule("summary", {
      category: "git_read",
      options: { ...flags("--cached --files -q|--quiet"), "-n|--summary-limit": NUMBER },
      operands: { rest: REVISION_OR_PATH },
    }),
    foreach: submodule("foreach", {
      category: "git_read",
      options: flags("--recursive -q|--quiet"),
      options_first: true,
      operands: { rest: "text" },
      check: runs_operands("git submodule foreach"),
    }),
    init: submodule("init", { category: "git_write", options: flags("-q|--quiet"), operands: { rest: "read" } }),
    deinit: submodule("deinit", { category: "git_write", options: flags("-f|--force --all -q|--quiet"), operands: { rest: "read" }, check: destroys }),
    update: submodule("update", {
      category: "network",
      options: {
        ...flags("--init --remote -N|--no-fetch -f|--force --checkout --merge --rebase --recommend-shallow"),
        ...flags("--no-recommend-shallow --recursive --single-branch --no-single-branch -q|--quiet --progress"),
        "--filter": TEXT,
        "--reference": READ,
        "--depth": NUMBER,
        "-j|--jobs": NUMBER,
      },
      operands: { rest: "read" },
      check: fetches,
    }),
    add: submodule("add", {
      category: "network",
      options: { ...flags("-f|--force -q|--quiet --progress"), "-b": TEXT, "--name": TEXT, "--reference": READ, "--depth": NUMBER },
      operands: { first: [REPOSITORY, "write"] },
      check: fetches,
    }),
    sync: submodule("sync", { category: "git_write", options: flags("--recursive -q|--quiet"), operands: { rest: "read" } }),
    "set-branch": submodule("set-branch", {
      category: "git_write",
      options: { ...flags("-d|--default -q|--quiet"), "-b|--branch": TEXT },
      operands: { rest: "read" },
    }),
    "set-url": submodule("set-url", { category: "git_write", options: flags("-q|--quiet"), operands: { first: ["read", REPOSITORY] } }),
    absorbgitdirs: submodule("absorbgitdirs", { category: "git_write", options: flags("-q|--quiet"), operands: { rest: "read" } }),
  },
});

// git notes [list [<object>]]; git notes show|get-ref …; git notes add|copy|append|edit|merge|remove|prune …
const notes = (name: string, spec: Spec): ProgramSpec => command(`notes ${name}`, spec, "notes");
const NOTE_MESSAGE: Options = {
  ...flags("-f|--force --allow-empty --no-stripspace --stripspace"),
  "-m|--message": TEXT,
  "-F|--file": READ,
  "-C|--reuse-message": TEXT,
  "-c|--reedit-message": TEXT,
  "--separator": ATTACHED_TEXT,
};
const NOTES = command("notes", {
  category: "git_read",
  options: { "--ref": TEXT },
  subcommands: {
    list: notes("list", { category: "git_read", operands: { rest: "text" } }),
    show: notes("show", { category: "git_read", operands: { rest: "text" } }),
    "get-ref": notes("get-ref", { category: "git_read" }),
    add: notes("add", { category: "git_write", options: NOTE_MESSAGE, operands: { rest: "text" } }),
    append: notes("append", { category: "git_write", options: NOTE_MESSAGE, operands: { rest: "text" } }),
    copy: notes("copy", { category: "git_write", options: flags("-f|--force --stdin"), operands: { rest: "text" } }),
    edit: notes("edit", { category: "git_write", options: NOTE_MESSAGE, operands: { rest: "text" } }),
    merge: notes("merge", {
      category: "git_write",
      options: { ...flags("--commit --abort -q|--quiet -v|--verbose"), "-s|--strategy": TEXT },
      operands: { rest: "text" },
    }),
    remove: notes("remove", { category: "git_write", options: flags("--ignore-missing --stdin"), operands: { rest: "text" }, check: destroys }),
    prune: notes("prune", { category: "git_write", options: flags("-n|--dry-run -v|--verbose") }),
  },
});

// git difftool [<options>] [<commit> [<commit>]] [--] [<path>...]; git mergetool [--tool=<tool>] … [<file>...]
const TOOL_ASK = "runs the diff or merge tool the configuration names, a program";
const tool_runs: Check = (matched, seen) => {
  if (!seen.has("--tool-help")) matched.ask(TOOL_ASK);
};
const DIFFTOOL = command("difftool", {
  category: "git_read",
  options: {
    ...DIFF,
    ...flags("-g|--gui --no-gui -d|--dir-diff -y|--no-prompt --prompt --symlinks --no-symlinks --tool-help"),
    ...flags("--trust-exit-code --no-trust-exit-code --cached|--staged --no-index"),
    "-t|--tool": TEXT,
    "-x|--extcmd": { value: "command" },
  },
  operands: { rest: REVISION_OR_PATH },
  check: tool_runs,
});
const MERGETOOL = command("mergetool", {
  category: "git_write",
  options: { ...flags("-g|--gui --no-gui -y|--no-prompt --prompt --tool-help"), "-t|--tool": TEXT, "-O": READ },
  operands: { rest: "read" },
  check: tool_runs,
});

// ── Commands that change the repository or talk to a remote ────────────────────────────────────

const PATHSPEC_FILE: Options = { "--pathspec-from-file": READ, "--pathspec-file-nul": FLAG };

// git add [--verbose | -v] [--dry-run | -n] [--force | -f] [--interactive | -i] [--patch | -p] … [--] [<pathspec>...]
const ADD = command("add", {
  category: "git_write",
  options: {
    ...PATHSPEC_FILE,
    ...flags("-n|--dry-run -v|--verbose -f|--force -i|--interactive -p|--patch -u|--update --renormalize", "-N|--intent-to-add"),
    ...flags("-A|--all|--no-ignore-removal --no-all|--ignore-removal --refresh --ignore-errors --ignore-missing", "--sparse"),
    "-e|--edit": EDITOR,
    "--chmod": TEXT,
  },
  operands: { rest: "read" },
});

// git commit [-a | --interactive | --patch] [-s] [-v] [-u<mode>] [--amend] [--dry-run] [(-c | -C | --squash) <commit>] [-F <file> | -m <msg>] …
//            [--] [<pathspec>...]
const COMMIT = command("commit", {
  category: "git_write",
  options: {
    ...PATHSPEC_FILE,
    ...flags("-q|--quiet -v|--verbose --reset-author -s|--signoff --no-signoff --status --no-status --no-gpg-sign"),
    ...flags("-a|--all -i|--include --interactive -p|--patch -o|--only -n|--no-verify --verify --dry-run --short"),
    ...flags("--branch --ahead-behind --no-ahead-behind --porcelain --long -z|--null --amend --no-post-rewrite"),
    ...flags("--allow-empty --allow-empty-message --no-edit"),
    "-F|--file": READ,
    "-t|--template": READ,
    "--author": TEXT,
    "--date": TEXT,
    "-m|--message": TEXT,
    "-c|--reedit-message": TEXT,
    "-C|--reuse-message": TEXT,
    "--fixup": TEXT,
    "--squash": TEXT,
    "--trailer": TEXT,
    "-e|--edit": EDITOR,
    "--cleanup": TEXT,
    "-S|--gpg-sign": ATTACHED_TEXT,
    "-u|--untracked-files": ATTACHED_TEXT,
  },
  operands: { rest: "read" },
});

const CHECKOUT_COMMON: Options = {
  ...flags("-q|--quiet --progress --no-progress -m|--merge --overwrite-ignore --no-overwrite-ignore", "--ignore-other-worktrees"),
  ...flags("--no-recurse-submodules --guess --no-guess -d|--detach --no-track"),
  "--recurse-submodules": ATTACHED_TEXT,
  "--conflict": TEXT,
  "-t|--track": ATTACHED_TEXT,
  "--orphan": TEXT,
};

// git checkout [<options>] <branch>; git checkout [<options>] [<tree-ish>] [--] <pathspec>... (which discards changes to them)
const CHECKOUT = command("checkout", {
  category: "git_write",
  options: {
    ...CHECKOUT_COMMON,
    ...PATHSPEC_FILE,
    ...flags("-f|--force -2|--ours -3|--theirs -p|--patch -l --overlay --no-overlay --ignore-skip-worktree-bits"),
    "-b": TEXT,
    "-B": TEXT,
  },
  operands: { rest: REVISION_OR_PATH },
  check: (matched, seen) => {
    if (has_any(seen, ["--", "-f", "-2", "-3", "-p", "--pathspec-from-file"])) matched.categories.add("destructive");
  },
});

// git switch [<options>] [--no-guess] <branch>; -c|-C <new-branch> [<start-point>]; --detach [<start-point>]; --orphan <new-branch>
const SWITCH = command("switch", {
  category: "git_write",
  options: { ...CHECKOUT_COMMON, "-f|--force|--discard-changes": { category: "destructive" }, "-c|--create": TEXT, "-C|--force-create": TEXT },
  operands: { rest: "text" },
});

// git restore [<options>] [--source=<tree>] [--staged] [--worktree] [--] <pathspec>...: the work tree's changes are discarded
const RESTORE = command("restore", {
  category: "git_write",
  options: {
    ...PATHSPEC_FILE,
    ...flags("-p|--patch -W|--worktree -S|--staged -q|--quiet --progress --no-progress -2|--ours -3|--theirs"),
    ...flags("-m|--merge --ignore-unmerged --ignore-skip-worktree-bits --no-recurse-submodules --overlay", "--no-overlay"),
    "-s|--source": TEXT,
    "--conflict": TEXT,
    "--recurse-submodules": ATTACHED_TEXT,
  },
  operands: { rest: "read" },
  check: (matched, seen) => {
    if (seen.has("-W") || !seen.has("-S")) matched.categories.add("destructive");
  },
});

// git reset [-q] [<tree-ish>] [--] <pathspec>...; git reset [--soft | --mixed [-N] | --hard | --merge | --keep] [-q] [<commit>]
const RESET = command("reset", {
  category: "git_write",
  options: {
    ...PATHSPEC_FILE,
    ...flags("-q|--quiet --no-refresh --refresh --mixed --soft --merge --keep -p|--patch -N|--intent-to-add"),
    ...flags("--no-recurse-submodules"),
    "--hard": { category: "destructive" },
    "--recurse-submodules": ATTACHED_TEXT,
  },
  operands: { rest: REVISION_OR_PATH },
});

/** Options of the commands that make commits from others (git-merge(1), git-cherry-pick(1), git-revert(1), git-rebase(1)). */
const SEQUENCER: Options = {
  ...flags("--continue --abort --quit --skip --rerere-autoupdate --no-rerere-autoupdate --no-gpg-sign --signoff", "--no-signoff"),
  "-S|--gpg-sign": ATTACHED_TEXT,
  "-s|--strategy": STRATEGY,
  "-X|--strategy-option": TEXT,
  "--cleanup": TEXT,
};

// git merge [-n] [--stat] [--no-commit] [--squash] [--[no-]edit] … [-m <msg>] [-F <file>] [<commit>...]; git merge (--continue | --abort | --quit)
const MERGE: Options = {
  ...SEQUENCER,
  ...flags("-n|--no-stat --stat --summary --no-summary --squash --no-squash --commit --no-commit --no-edit"),
  ...flags("--ff --no-ff --ff-only --verify-signatures --no-verify-signatures -v|--verbose -q|--quiet --progress"),
  ...flags("--no-progress --allow-unrelated-histories --autostash --no-autostash --overwrite-ignore", "--no-overwrite-ignore"),
  ...flags("--verify --no-verify --no-log"),
  "-e|--edit": EDITOR,
  "--log": ATTACHED_NUMBER,
  "-m|--message": TEXT,
  "-F|--file": READ,
  "--into-name": TEXT,
};
const MERGE_COMMAND = command("merge", { category: "git_write", options: MERGE, operands: { rest: "text" } });

// git rebase [-i | --interactive] [<options>] [--exec <cmd>] [--onto <newbase> | --keep-base] [<upstream> [<branch>]]; --continue | --abort …
const REBASE = command("rebase", {
  category: "git_write",
  options: {
    ...SEQUENCER,
    ...flags("--keep-base --no-verify --verify -q|--quiet -v|--verbose --stat -n|--no-stat", "--committer-date-is-author-date"),
    ...flags("--ignore-date|--reset-author-date --ignore-whitespace -f|--force-rebase|--no-ff --fork-point", "--no-fork-point"),
    ...flags("--show-current-patch --apply -m|--merge --keep-empty --no-keep-empty --reapply-cherry-picks"),
    ...flags("--no-reapply-cherry-picks --allow-empty-message --autosquash --no-autosquash --update-refs", "--no-update-refs"),
    ...flags("--autostash --no-autostash --no-rebase-merges --root --reschedule-failed-exec", "--no-reschedule-failed-exec"),
    "--onto": TEXT,
    "-C": NUMBER,
    "--whitespace": TEXT,
    "--empty": TEXT,
    "-r|--rebase-merges": ATTACHED_TEXT,
    "-x|--exec": { value: "command" },
    "-i|--interactive": { ask: "opens the sequence editor, a program the configuration chooses" },
    "--edit-todo": EDITOR,
  },
  operands: { rest: "text" },
});

/** git-cherry-pick(1) and git-revert(1). */
const PICK: Options = {
  ...SEQUENCER,
  ...flags("-n|--no-commit -s|--signoff --ff --allow-empty --allow-empty-message --keep-redundant-commits", "--no-edit"),
  "-e|--edit": EDITOR,
  "-m|--mainline": NUMBER,
};
// git cherry-pick [--edit] [-n] [-m <parent-number>] [-s] [-x] [--ff] [-S[<keyid>]] <commit>...
const CHERRY_PICK = command("cherry-pick", { category: "git_write", options: { ...PICK, "-x": FLAG, "-r": FLAG }, operands: { rest: "text" } });
// git revert [--[no-]edit] [-n] [-m <parent-number>] [-s] [-S[<keyid>]] <commit>...
const REVERT = command("revert", { category: "git_write", options: { ...PICK, "--reference": FLAG }, operands: { rest: "text" } });

// git rm [-f | --force] [-n] [-r] [--cached] [--ignore-unmatch] [--quiet] [--pathspec-from-file=<file> [--pathspec-file-nul]] [--] [<pathspec>...]
const RM = command("rm", {
  category: "git_write",
  options: { ...PATHSPEC_FILE, ...flags("-f|--force -n|--dry-run -r --cached --ignore-unmatch --sparse -q|--quiet") },
  operands: { rest: "read" },
  check: (matched, seen) => {
    if (!has_any(seen, ["--cached", "-n"])) matched.categories.add("destructive");
  },
});

// git mv [-v] [-f] [-n] [-k] <source> <destination>; git mv [-v] [-f] [-n] [-k] <source>... <destination-directory>
const MV = command("mv", {
  category: "git_write",
  options: flags("-v|--verbose -n|--dry-run -f|--force -k --sparse"),
  operands: { rest: "read", last: "write" },
});

// git init [-q | --quiet] [--bare] [--template=<template-directory>] [--separate-git-dir <git-dir>] [--object-format=<format>]
//          [-b <branch-name>] [--shared[=<permissions>]] [<directory>]
const INIT = command("init", {
  category: "git_write",
  options: {
    ...flags("-q|--quiet --bare"),
    "--template": { value: "read", ask: "copies the hooks of a template folder into the repository, programs git then runs" },
    "--separate-git-dir": WRITE,
    "--object-format": TEXT,
    "-b|--initial-branch": TEXT,
    "--shared": ATTACHED_TEXT,
  },
  operands: { first: ["write"] },
});

// git clean [-d] [-f] [-i] [-n] [-q] [-e <pattern>] [-x | -X] [--] [<pathspec>...]
const CLEAN = command("clean", {
  category: "git_write",
  options: { ...flags("-d -f|--force -n|--dry-run -q|--quiet -x -X"), "-i|--interactive": FLAG, "-e|--exclude": TEXT },
  operands: { rest: "read" },
  check: (matched, seen) => {
    if (seen.has("-n") && !seen.has("-i")) becomes(matched, "git_read");
    else matched.categories.add("destructive");
  },
});

/** Options of the commands that talk to a remote (git-fetch(1) "OPTIONS", git-push(1)). */
const TRANSPORT: Options = {
  ...flags("-q|--quiet -v|--verbose --progress --no-progress -4|--ipv4 -6|--ipv6"),
  "-o|--server-option": TEXT,
};

const FETCH: Options = {
  ...TRANSPORT,
  ...flags("--all -a|--append --atomic --unshallow --update-shallow --negotiate-only --dry-run --porcelain"),
  ...flags("--write-fetch-head --no-write-fetch-head -f|--force -k|--keep --multiple --auto-maintenance", "--no-auto-maintenance"),
  ...flags("--auto-gc --no-auto-gc --write-commit-graph --no-write-commit-graph --prefetch -p|--prune", "-P|--prune-tags"),
  ...flags("--no-tags --refetch -t|--tags --no-recurse-submodules --set-upstream -u|--update-head-ok", "--show-forced-updates"),
  ...flags("--no-show-forced-updates --stdin"),
  "--depth": NUMBER,
  "--deepen": NUMBER,
  "--shallow-since": TEXT,
  "--shallow-exclude": TEXT,
  "--negotiation-tip": TEXT,
  "--refmap": TEXT,
  "--recurse-submodules": ATTACHED_TEXT,
  "-j|--jobs": NUMBER,
  "--submodule-prefix": TEXT,
  "--upload-pack": { value: "command" },
};

// git fetch [<options>] [<repository> [<refspec>...]]; git fetch [<options>] <group>; git fetch --multiple [<options>] [(<repository> | <group>)...]
const FETCH_COMMAND = command("fetch", {
  category: "network",
  // its -n is --no-tags
  options: { ...FETCH, "-n": FLAG },
  operands: { first: [REPOSITORY], rest: "text" },
  check: fetches,
});

// git pull [<options>] [<repository> [<refspec>...]]: a fetch, then a merge or a rebase
const PULL = command("pull", {
  category: "network",
  options: { ...FETCH, ...MERGE, "-r|--rebase": ATTACHED_TEXT, "--no-rebase": FLAG },
  operands: { first: [REPOSITORY], rest: "text" },
  check: fetches,
});

const PUSH_DESTROYS = ["-f", "--force-with-lease", "--force-if-includes", "-d", "--mirror", "--prune"];

// git push [--all | --mirror | --tags] [--follow-tags] [--atomic] [-n | --dry-run] [--receive-pack=<git-receive-pack>] … [<repository> [<refspec>...]]
const PUSH = command("push", {
  category: "network",
  options: {
    ...TRANSPORT,
    ...flags("--all|--branches --prune --mirror -n|--dry-run --porcelain -d|--delete --tags --follow-tags", "--no-signed"),
    ...flags("--atomic --no-atomic -f|--force --no-force-with-lease --force-if-includes --no-force-if-includes", "-u|--set-upstream"),
    ...flags("--thin --no-thin --no-recurse-submodules --verify --no-verify"),
    "--signed": ATTACHED_TEXT,
    "--push-option": TEXT,
    "--receive-pack|--exec": { value: "command" },
    "--force-with-lease": ATTACHED_TEXT,
    "--repo": { value: REPOSITORY },
    "--recurse-submodules": TEXT,
  },
  operands: { first: [REPOSITORY], rest: "text" },
  check: (matched, seen, operands) => {
    matched.categories.add("git_write");
    // `+<refspec>` forces, `:<ref>` deletes
    if (has_any(seen, PUSH_DESTROYS) || operands.slice(1).some((word) => /^[+:]/.test(word.value))) matched.categories.add("destructive");
  },
});

// git clone [--template=<template-directory>] [-l] [-s] [--no-hardlinks] [-q] [-n] [--bare] [--mirror] [-o <name>] [-b <name>]
//           [-u <upload-pack>] [--reference <repository>] … <repository> [<directory>]
const CLONE = command("clone", {
  category: "network",
  options: {
    ...TRANSPORT,
    ...flags("-l|--local --no-hardlinks -s|--shared --dissociate -n|--no-checkout --reject-shallow", "--no-reject-shallow"),
    ...flags("--bare --sparse --also-filter-submodules --mirror --single-branch --no-single-branch --no-tags", "--tags"),
    ...flags("--shallow-submodules --no-shallow-submodules --remote-submodules --no-remote-submodules"),
    "--reference|--reference-if-able": READ,
    "--filter": TEXT,
    "-o|--origin": TEXT,
    "-b|--branch": TEXT,
    "-u|--upload-pack": { value: "command" },
    "--template": { value: "read", ask: "copies the hooks of a template folder into the repository, programs git then runs" },
    "-c|--config": { value: setting("git clone --config") },
    "--depth": NUMBER,
    "--shallow-since": TEXT,
    "--shallow-exclude": TEXT,
    "--recurse-submodules": ATTACHED_TEXT,
    "--separate-git-dir": WRITE,
    "-j|--jobs": NUMBER,
    "--bundle-uri": TEXT,
  },
  operands: { first: [REPOSITORY, "write"] },
  check: fetches,
});

// git ls-remote [--heads] [--tags] [--refs] [--upload-pack=<exec>] [-q] [--exit-code] [--get-url] [--sort=<key>] [--symref] [<repository> [<patterns>...]]
const LS_REMOTE = command("ls-remote", {
  category: "network",
  options: {
    ...flags("-q|--quiet -t|--tags -h|--heads --refs --exit-code --get-url --symref"),
    "--upload-pack": { value: "command" },
    "--sort": TEXT,
    "-o|--server-option": TEXT,
  },
  operands: { first: [REPOSITORY], rest: "text" },
  check: (matched) => matched.categories.add("git_read"),
});

// git am [--signoff] [--keep] [--[no-]keep-cr] [--[no-]utf8] [--[no-]3way] [--interactive] … [(<mbox> | <Maildir>)...]; git am (--continue | --abort …)
const AM = command("am", {
  category: "git_write",
  options: {
    ...flags("-s|--signoff -k|--keep --keep-non-patch --keep-cr --no-keep-cr -c|--scissors --no-scissors", "-m|--message-id"),
    ...flags("--no-message-id -q|--quiet -u|--utf8 --no-utf8 -3|--3way --no-3way --rerere-autoupdate", "--no-rerere-autoupdate"),
    ...flags("--ignore-space-change --ignore-whitespace --reject --committer-date-is-author-date --ignore-date", "--skip"),
    ...flags("--no-gpg-sign --continue|-r|--resolved --abort --quit --allow-empty"),
    "--whitespace": TEXT,
    "-C": NUMBER,
    "-p": NUMBER,
    "--directory": TEXT,
    "--exclude": TEXT,
    "--include": TEXT,
    "--patch-format": TEXT,
    "--quoted-cr": TEXT,
    "--empty": TEXT,
    "-S|--gpg-sign": ATTACHED_TEXT,
    "--resolvemsg": TEXT,
    "--show-current-patch": ATTACHED_TEXT,
    "-i|--interactive": { ask: "asks on the terminal before applying each patch" },
  },
  operands: { rest: "read" },
});

const APPLY_REPORTS = ["--stat", "--numstat", "--summary", "--check"];

// git apply [--stat] [--numstat] [--summary] [--check] [--index | --intent-to-add] [--3way] [--apply] … [<patch>...]: only reports, unless it applies
const APPLY = command("apply", {
  category: "git_write",
  options: {
    ...flags(...APPLY_REPORTS, "--index", "--cached", "--intent-to-add", "-3|--3way", "-R|--reverse", "--reject", "-z", "--unidiff-zero"),
    ...flags("--apply --no-add --allow-binary-replacement|--binary --ignore-space-change|--ignore-whitespace", "--inaccurate-eof"),
    ...flags("-v|--verbose -q|--quiet --recount --allow-empty"),
    "--build-fake-ancestor": WRITE,
    "-p": NUMBER,
    "-C": NUMBER,
    "--exclude": TEXT,
    "--include": TEXT,
    "--whitespace": TEXT,
    "--directory": TEXT,
    "--unsafe-paths": { ask: "writes the files a patch names even outside the work tree" },
  },
  operands: { rest: "read" },
  check: (matched, seen) => {
    if (has_any(seen, APPLY_REPORTS) && !seen.has("--apply")) becomes(matched, "git_read");
  },
});

// git bisect start|bad|new|good|old|terms|skip|reset|visualize|view|replay|log|run|help …
const bisect = (name: string, spec: Spec): ProgramSpec => command(`bisect ${name}`, spec, "bisect");
const BISECT_MARK: Spec = { category: "git_write", operands: { rest: "text" } };
const BISECT = command("bisect", {
  category: "git_write",
  subcommands: {
    start: bisect("start", {
      category: "git_write",
      options: { ...flags("--no-checkout --first-parent"), "--term-new|--term-bad": TEXT, "--term-old|--term-good": TEXT },
      operands: { rest: REVISION_OR_PATH },
    }),
    bad: bisect("bad", BISECT_MARK),
    new: bisect("new", BISECT_MARK),
    good: bisect("good", BISECT_MARK),
    old: bisect("old", BISECT_MARK),
    skip: bisect("skip", BISECT_MARK),
    reset: bisect("reset", BISECT_MARK),
    terms: bisect("terms", { category: "git_read", options: flags("--term-good --term-bad --term-old --term-new") }),
    log: bisect("log", { category: "git_read" }),
    help: bisect("help", { category: "git_read" }),
    replay: bisect("replay", { category: "git_write", operands: { first: ["read"] } }),
    visualize: bisect("visualize", { category: "git_read", options: LOG, check: shows_gitk }),
    view: bisect("view", { category: "git_read", options: LOG, check: shows_gitk }),
    run: bisect("run", { category: "git_write", options_first: true, operands: { rest: "text" }, check: runs_operands("git bisect run") }),
  },
});

function shows_gitk(matched: Matched): void {
  matched.ask("git bisect visualize runs gitk when a display is available");
}

// git gc [--aggressive] [--auto] [--[no-]detach] [--quiet] [--prune=<date> | --no-prune] [--force] [--keep-largest-pack]
const GC = command("gc", {
  category: "git_write",
  options: { ...flags("--aggressive --auto --cruft --no-cruft --no-prune --quiet --force --keep-largest-pack"), "--prune": ATTACHED_TEXT },
});

// git prune [-n] [-v] [--progress] [--expire <time>] [--] [<head>...]
const PRUNE = command("prune", {
  category: "git_write",
  options: { ...flags("-n|--dry-run -v|--verbose --progress"), "--expire": TEXT },
  operands: { rest: "text" },
  check: (matched, seen) => {
    if (seen.has("-n")) becomes(matched, "git_read");
    else matched.categories.add("destructive");
  },
});

// git filter-branch [--setup <command>] [--subdirectory-filter <directory>] [--env-filter <command>] [--tree-filter <command>] … [<rev-list options>...]
const FILTER = { value: "command" } as const satisfies OptionSpec;
const FILTER_BRANCH = command("filter-branch", {
  category: "git_write",
  options: {
    ...REVISIONS,
    ...flags("--prune-empty -f|--force"),
    "--setup": FILTER,
    "--env-filter": FILTER,
    "--tree-filter": FILTER,
    "--index-filter": FILTER,
    "--parent-filter": FILTER,
    "--msg-filter": FILTER,
    "--commit-filter": FILTER,
    "--tag-name-filter": FILTER,
    "--subdirectory-filter": TEXT,
    "--original": TEXT,
    "-d": WRITE,
    "--state-branch": TEXT,
  },
  operands: { rest: "text" },
  check: destroys,
});

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|::1|\[::1\])$/i;

// git daemon [--verbose] [--syslog] [--export-all] [--timeout=<n>] … [--listen=<host_or_ipaddr>] [--port=<n>] … [<directory>...]
const DAEMON = command("daemon", {
  category: "network",
  options: {
    ...flags("--strict-paths --base-path-relaxed --export-all --inetd --syslog --verbose --reuseaddr --detach"),
    ...flags("--informative-errors --no-informative-errors"),
    "--base-path": READ,
    "--interpolated-path": TEXT,
    "--listen": TEXT,
    "--port": NUMBER,
    "--init-timeout": NUMBER,
    "--timeout": NUMBER,
    "--max-connections": NUMBER,
    "--log-destination": TEXT,
    "--user-path": ATTACHED_TEXT,
    "--pid-file": WRITE,
    "--user": TEXT,
    "--group": TEXT,
    "--enable": TEXT,
    "--disable": TEXT,
    "--allow-override": TEXT,
    "--forbid-override": TEXT,
    "--access-hook": { value: "command" },
  },
  operands: { rest: "read" },
  check: (matched, seen) => {
    const listen = seen.get("--listen") ?? [];
    if (seen.has("--inetd")) matched.ask("git daemon --inetd serves repositories over its standard input", "network");
    else if (listen.length > 0 && listen.every((word) => word.literal && LOOPBACK.test(word.value)))
      matched.ask("git daemon opens a listening socket on the loopback interface", "network");
    else matched.deny("git daemon opens a listening socket on every network interface (port 9418)", "network");
  },
});

// git instaweb [--local] [--httpd=<httpd>] [--port=<port>] [--browser=<browser>]; git instaweb [--start] [--stop] [--restart]
const INSTAWEB = command("instaweb", {
  category: "network",
  options: {
    ...flags("-l|--local --start --stop --restart"),
    "-d|--httpd": { value: "command" },
    "-m|--module-path": READ,
    "-p|--port": NUMBER,
    "-b|--browser": { value: "command" },
  },
  check: (matched, seen) => {
    if (seen.has("--stop")) return;
    if (seen.has("-l")) matched.ask("git instaweb opens a web server on the loopback interface", "network");
    else matched.deny("git instaweb opens a web server on every network interface", "network");
  },
});

/** The credential helpers (gitcredentials(7)): they print, store or erase the user's passwords and tokens. */
const CREDENTIAL_HELPERS = [
  "credential",
  "credential-store",
  "credential-cache",
  "credential-cache--daemon",
  "credential-netrc",
  "credential-libsecret",
  "credential-osxkeychain",
  "credential-wincred",
  "credential-gnome-keyring",
  "credential-manager",
  "credential-manager-core",
];
const OWN_PAGES = new Set(["credential-store", "credential-cache", "credential-cache--daemon"]);
const credential_helper = (name: string): ProgramSpec =>
  command(name, { category: "credential_sensitive", operands: { rest: "text" } }, OWN_PAGES.has(name) ? name : "credential");

// ── git itself ─────────────────────────────────────────────────────────────────────────────────

const SUBCOMMANDS: Readonly<Record<string, ProgramSpec>> = {
  status: STATUS,
  log: log_like("log"),
  show: log_like("show"),
  whatchanged: WHATCHANGED,
  diff: DIFF_COMMAND,
  "diff-tree": command("diff-tree", {
    category: "git_read",
    options: { ...PLUMBING_DIFF, ...flags("-r --root --merge-base --stdin -v --no-commit-id --always") },
    operands: { rest: REVISION_OR_PATH },
  }),
  "diff-files": command("diff-files", {
    category: "git_read",
    options: { ...PLUMBING_DIFF, ...flags("-q -0 -1|--base -2|--ours -3|--theirs") },
    operands: { rest: "read" },
  }),
  "diff-index": command("diff-index", {
    category: "git_read",
    options: { ...PLUMBING_DIFF, ...flags("--cached --merge-base") },
    operands: { rest: REVISION_OR_PATH },
  }),
  grep: GREP,
  blame: command("blame", BLAME),
  annotate: command("annotate", BLAME),
  "rev-parse": REV_PARSE,
  "rev-list": REV_LIST,
  "ls-files": LS_FILES,
  "ls-tree": LS_TREE,
  describe: DESCRIBE,
  shortlog: SHORTLOG,
  reflog: REFLOG,
  "cat-file": CAT_FILE,
  "name-rev": NAME_REV,
  "merge-base": MERGE_BASE,
  "for-each-ref": FOR_EACH_REF,
  "show-ref": SHOW_REF,
  "count-objects": COUNT_OBJECTS,
  "check-ignore": CHECK_IGNORE,
  "check-attr": CHECK_ATTR,
  "check-ref-format": CHECK_REF_FORMAT,
  var: VAR,
  version: VERSION_COMMAND,
  help: HELP,
  cherry: CHERRY,
  "show-branch": SHOW_BRANCH,
  fsck: FSCK,
  "verify-commit": VERIFY_COMMIT,
  "verify-tag": VERIFY_TAG,
  "range-diff": RANGE_DIFF,
  "hash-object": HASH_OBJECT,
  "symbolic-ref": SYMBOLIC_REF,
  "format-patch": FORMAT_PATCH,
  archive: ARCHIVE,
  bundle: BUNDLE,
  branch: BRANCH,
  tag: TAG,
  config: CONFIG,
  remote: REMOTE,
  stash: STASH,
  worktree: WORKTREE,
  submodule: SUBMODULE,
  notes: NOTES,
  difftool: DIFFTOOL,
  mergetool: MERGETOOL,
  add: ADD,
  commit: COMMIT,
  checkout: CHECKOUT,
  switch: SWITCH,
  restore: RESTORE,
  reset: RESET,
  merge: MERGE_COMMAND,
  rebase: REBASE,
  "cherry-pick": CHERRY_PICK,
  revert: REVERT,
  rm: RM,
  mv: MV,
  init: INIT,
  clean: CLEAN,
  fetch: FETCH_COMMAND,
  pull: PULL,
  push: PUSH,
  clone: CLONE,
  "ls-remote": LS_REMOTE,
  am: AM,
  apply: APPLY,
  bisect: BISECT,
  gc: GC,
  prune: PRUNE,
  "filter-branch": FILTER_BRANCH,
  daemon: DAEMON,
  instaweb: INSTAWEB,
  ...Object.fromEntries(CREDENTIAL_HELPERS.map((name) => [name, credential_helper(name)])),
};

// git [-v | --version] [-h | --help] [-C <path>] [-c <name>=<value>] [--exec-path[=<path>]] [--html-path] [--man-path] [--info-path]
//     [-p | --paginate | -P | --no-pager] [--no-replace-objects] [--bare] [--git-dir=<path>] [--work-tree=<path>] [--namespace=<name>]
//     [--config-env=<name>=<envvar>] <command> [<args>]
const GIT: ProgramSpec = {
  rule: "git",
  manual: `git(1), ${VERSION}`,
  category: "git_read",
  options: {
    ...flags("-v|--version -h|--help --html-path --man-path --info-path -p|--paginate -P|--no-pager", "--no-replace-objects"),
    ...flags("--no-optional-locks --bare --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs"),
    "-C": { value: "folder" },
    "-c": { value: setting("git -c") },
    "--config-env": { value: "text", ask: "sets configuration from an environment variable, which can make git run programs" },
    // alone it prints where git's programs are; with a folder, git runs its commands from there
    "--exec-path": { value: "command", optional_value: true },
    "--git-dir": { value: GIT_DIR },
    "--work-tree": { value: "folder" },
    "--namespace": TEXT,
    "--list-cmds": TEXT,
    "--attr-source": TEXT,
  },
  subcommands: SUBCOMMANDS,
};

/** `git-credential-store get` and the like, run by their own names. */
const CREDENTIAL_PROGRAMS: ProgramSpec = {
  rule: "git-credential",
  manual: `git-credential(1), ${VERSION}`,
  category: "credential_sensitive",
  operands: { rest: "text" },
};

export const GIT_RULES: readonly ProgramRule[] = [
  program_rule(GIT),
  program_rule(
    CREDENTIAL_PROGRAMS,
    CREDENTIAL_HELPERS.map((name) => `git-${name}`),
  ),
];

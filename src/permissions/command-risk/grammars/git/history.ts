import { literal_word } from "../../words.js";
import {
  ATTACHED_NUMBER,
  ATTACHED_TEXT,
  DIFF,
  LOG,
  MERGE_DIFFS,
  NUMBER,
  READ,
  REVISIONS,
  REVISION_OR_PATH,
  TEXT,
  command,
  flags,
  has_any,
  log_like,
} from "./common.js";
import type { Options, Spec } from "./common.js";

// ── Read-only commands: status, history, diffs and contents ──────────────────────────────────

// git status [<options>] [--] [<pathspec>...]
export const STATUS = command("status", {
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
export const DIFF_COMMAND = command("diff", {
  category: "git_read",
  options: { ...DIFF, ...flags("--cached|--staged --merge-base --no-index -1|--base -2|--ours -3|--theirs -c --cc") },
  // --no-index compares files and folders of the file system, as lstat(2) sees them (a symlink is its target's name)
  operands: (seen) => ({ rest: seen.has("--no-index") ? "tree" : REVISION_OR_PATH }),
});

/** git-diff-tree(1), git-diff-files(1), git-diff-index(1): the plumbing diffs, which run no textconv or external diff unless asked. */
export const PLUMBING_DIFF: Options = { ...DIFF, ...MERGE_DIFFS, "--pretty": ATTACHED_TEXT, "--format": ATTACHED_TEXT };

// git grep [<options>] [-e] <pattern> [<rev>...] [[--] <path>...]
export const GREP = command("grep", {
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
export const BLAME: Spec = {
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
export const REV_PARSE = command("rev-parse", {
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
export const LS_FILES = command("ls-files", {
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
export const LS_TREE = command("ls-tree", {
  category: "git_read",
  options: {
    ...flags("-d -r -t -z -l|--long --name-only|--name-status --object-only --full-name --full-tree"),
    "--format": TEXT,
    "--abbrev": ATTACHED_NUMBER,
  },
  operands: { rest: "text" },
});

// git describe [--all] [--tags] [--contains] [--abbrev=<n>] [<commit-ish>...]
export const DESCRIBE = command("describe", {
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
export const SHORTLOG = command("shortlog", {
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
export const REFLOG = command("reflog", {
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
export const CAT_FILE = command("cat-file", {
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
export const REV_LIST = command("rev-list", {
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
export const NAME_REV = command("name-rev", {
  category: "git_read",
  options: {
    ...flags("--name-only --tags --all --stdin --annotate-stdin --undefined --no-undefined --always"),
    "--refs": TEXT,
    "--exclude": TEXT,
  },
  operands: { rest: "text" },
});

// git merge-base [-a | --all] <commit> <commit>...; --octopus, --independent, --is-ancestor, --fork-point
export const MERGE_BASE = command("merge-base", {
  category: "git_read",
  options: flags("-a|--all --octopus --independent --is-ancestor --fork-point"),
  operands: { rest: "text" },
});

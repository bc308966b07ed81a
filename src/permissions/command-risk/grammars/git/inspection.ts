import { literal_word } from "../../words.js";
import {
  ATTACHED_NUMBER,
  ATTACHED_TEXT,
  DIFF,
  FLAG,
  NUMBER,
  READ,
  REPOSITORY,
  REVISIONS,
  REVISION_OR_PATH,
  TEXT,
  WRITE,
  becomes,
  command,
  flags,
  has_any,
  log_like,
} from "./common.js";
import type { Options } from "./common.js";

// ── Read-only commands: refs, objects and the repository itself ──────────────────────────────

/** The ref filters of git-for-each-ref(1), git-branch(1) and git-tag(1): a commit after them is taken even when it is last-but-optional. */
export const REF_FILTERS: Options = {
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
export const FOR_EACH_REF = command("for-each-ref", {
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
export const SHOW_REF = command("show-ref", {
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
export const COUNT_OBJECTS = command("count-objects", { category: "git_read", options: flags("-v|--verbose -H|--human-readable") });

// git check-ignore [<options>] <pathname>...: matches names against the ignore rules, reads no file
export const CHECK_IGNORE = command("check-ignore", {
  category: "git_read",
  options: flags("-q|--quiet -v|--verbose --stdin -z -n|--non-matching --no-index"),
  operands: { rest: "text" },
});

// git check-attr [--source <tree-ish>] [-a | --all | <attr>...] [--] <pathname>...
export const CHECK_ATTR = command("check-attr", {
  category: "git_read",
  options: { ...flags("-a|--all --cached --stdin -z"), "--source": TEXT },
  operands: { rest: "text" },
});

// git check-ref-format [--normalize] [--[no-]allow-onelevel] [--refspec-pattern] <refname>; --branch <name>
export const CHECK_REF_FORMAT = command("check-ref-format", {
  category: "git_read",
  options: flags("--normalize --allow-onelevel --no-allow-onelevel --refspec-pattern --branch"),
  operands: { rest: "text" },
});

// git var (-l | <variable>)
export const VAR = command("var", { category: "git_read", options: flags("-l"), operands: { rest: "text" } });

// git version [--build-options]
export const VERSION_COMMAND = command("version", { category: "git_read", options: flags("--build-options") });

// git help [-a|--all] [--[no-]verbose] …; git help [[-i|--info] [-m|--man] [-w|--web]] [<command>|<doc>]
export const HELP = command("help", {
  category: "git_read",
  options: {
    ...flags("-a|--all --external-commands --no-external-commands --aliases --no-aliases -m|--man -i|--info"),
    ...flags("-v|--verbose --no-verbose -g|--guides -c|--config --user-interfaces --developer-interfaces"),
    "-w|--web": { ask: "opens the manual in a web browser, a program the configuration chooses" },
  },
  operands: { rest: "text" },
});

// git cherry [-v] [--abbrev[=<n>]] [<upstream> [<head> [<limit>]]]
export const CHERRY = command("cherry", { category: "git_read", options: { "-v": FLAG, "--abbrev": ATTACHED_NUMBER }, operands: { rest: "text" } });

// git show-branch [-a|--all] [-r|--remotes] [--topo-order|--date-order] [--current] … [<rev>|<glob>...]
export const SHOW_BRANCH = command("show-branch", {
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
export const FSCK = command("fsck", {
  category: "git_read",
  options: flags(
    "--unreachable --dangling --no-dangling --root --tags --cache --no-reflogs --full --no-full",
    "--connectivity-only --strict --verbose --name-objects --progress --no-progress",
  ),
  operands: { rest: "text" },
});

// git verify-commit [-v | --verbose] [--raw] <commit>...; git verify-tag [-v | --verbose] [--format=<format>] [--raw] <tag>...
export const VERIFY_COMMIT = command("verify-commit", { category: "git_read", options: flags("-v|--verbose --raw"), operands: { rest: "text" } });
export const VERIFY_TAG = command("verify-tag", {
  category: "git_read",
  options: { ...flags("-v|--verbose --raw"), "--format": TEXT },
  operands: { rest: "text" },
});

// git range-diff [--color=[<when>]] [--no-color] [<diff-options>] [--no-dual-color] [--creation-factor=<factor>] … <range1> <range2>
export const RANGE_DIFF = command("range-diff", {
  category: "git_read",
  options: { ...DIFF, ...flags("--no-dual-color --left-only --right-only --no-notes"), "--creation-factor": NUMBER, "--notes": ATTACHED_TEXT },
  operands: { rest: "text" },
});

// git hash-object [-t <type>] [-w] [--path=<file> | --no-filters] [--stdin [--literally]] [--] <file>...
export const HASH_OBJECT = command("hash-object", {
  category: "git_read",
  options: { ...flags("--stdin --stdin-paths --no-filters --literally -w"), "-t": TEXT, "--path": TEXT },
  operands: { rest: "read" },
  check: (matched, seen) => {
    if (seen.has("-w")) becomes(matched, "git_write");
  },
});

// git symbolic-ref [-m <reason>] <name> <ref>; git symbolic-ref [-q] [--short] [--no-recurse] <name>; git symbolic-ref --delete [-q] <name>
export const SYMBOLIC_REF = command("symbolic-ref", {
  category: "git_read",
  options: { ...flags("-d|--delete -q|--quiet --short --recurse --no-recurse"), "-m": TEXT },
  operands: { rest: "text" },
  check: (matched, seen, operands) => {
    if (seen.has("-d") || operands.length > 1) becomes(matched, "git_write");
  },
});

// git whatchanged <option>...: git log with --raw and merges hidden
export const WHATCHANGED = log_like("whatchanged");

// git format-patch [<options>] [<since> | <revision-range>]: writes one file per commit unless --stdout
export const FORMAT_PATCH = command("format-patch", {
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
export const ARCHIVE = command("archive", {
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
export const BUNDLE = command("bundle", {
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

import {
  ATTACHED_NUMBER,
  ATTACHED_TEXT,
  EDITOR,
  FLAG,
  NUMBER,
  READ,
  REPOSITORY,
  REVISION_OR_PATH,
  STRATEGY,
  TEXT,
  WRITE,
  becomes,
  command,
  flags,
  has_any,
  setting,
} from "./common.js";
import type { Options } from "./common.js";
import { fetches } from "./forms.js";

// ── Commands that change the repository or talk to a remote ────────────────────────────────────

const PATHSPEC_FILE: Options = { "--pathspec-from-file": READ, "--pathspec-file-nul": FLAG };

// git add [--verbose | -v] [--dry-run | -n] [--force | -f] [--interactive | -i] [--patch | -p] … [--] [<pathspec>...]
export const ADD = command("add", {
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
export const COMMIT = command("commit", {
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
export const CHECKOUT = command("checkout", {
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
export const SWITCH = command("switch", {
  category: "git_write",
  options: { ...CHECKOUT_COMMON, "-f|--force|--discard-changes": { category: "destructive" }, "-c|--create": TEXT, "-C|--force-create": TEXT },
  operands: { rest: "text" },
});

// git restore [<options>] [--source=<tree>] [--staged] [--worktree] [--] <pathspec>...: the work tree's changes are discarded
export const RESTORE = command("restore", {
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
export const RESET = command("reset", {
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
export const MERGE_COMMAND = command("merge", { category: "git_write", options: MERGE, operands: { rest: "text" } });

// git rebase [-i | --interactive] [<options>] [--exec <cmd>] [--onto <newbase> | --keep-base] [<upstream> [<branch>]]; --continue | --abort …
export const REBASE = command("rebase", {
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
export const CHERRY_PICK = command("cherry-pick", { category: "git_write", options: { ...PICK, "-x": FLAG, "-r": FLAG }, operands: { rest: "text" } });
// git revert [--[no-]edit] [-n] [-m <parent-number>] [-s] [-S[<keyid>]] <commit>...
export const REVERT = command("revert", { category: "git_write", options: { ...PICK, "--reference": FLAG }, operands: { rest: "text" } });

// git rm [-f | --force] [-n] [-r] [--cached] [--ignore-unmatch] [--quiet] [--pathspec-from-file=<file> [--pathspec-file-nul]] [--] [<pathspec>...]
export const RM = command("rm", {
  category: "git_write",
  options: { ...PATHSPEC_FILE, ...flags("-f|--force -n|--dry-run -r --cached --ignore-unmatch --sparse -q|--quiet") },
  operands: { rest: "read" },
  check: (matched, seen) => {
    if (!has_any(seen, ["--cached", "-n"])) matched.categories.add("destructive");
  },
});

// git mv [-v] [-f] [-n] [-k] <source> <destination>; git mv [-v] [-f] [-n] [-k] <source>... <destination-directory>
export const MV = command("mv", {
  category: "git_write",
  options: flags("-v|--verbose -n|--dry-run -f|--force -k --sparse"),
  operands: { rest: "read", last: "write" },
});

// git init [-q | --quiet] [--bare] [--template=<template-directory>] [--separate-git-dir <git-dir>] [--object-format=<format>]
//          [-b <branch-name>] [--shared[=<permissions>]] [<directory>]
export const INIT = command("init", {
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
export const CLEAN = command("clean", {
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
export const FETCH_COMMAND = command("fetch", {
  category: "network",
  // its -n is --no-tags
  options: { ...FETCH, "-n": FLAG },
  operands: { first: [REPOSITORY], rest: "text" },
  check: fetches,
});

// git pull [<options>] [<repository> [<refspec>...]]: a fetch, then a merge or a rebase
export const PULL = command("pull", {
  category: "network",
  options: { ...FETCH, ...MERGE, "-r|--rebase": ATTACHED_TEXT, "--no-rebase": FLAG },
  operands: { first: [REPOSITORY], rest: "text" },
  check: fetches,
});

const PUSH_DESTROYS = ["-f", "--force-with-lease", "--force-if-includes", "-d", "--mirror", "--prune"];

// git push [--all | --mirror | --tags] [--follow-tags] [--atomic] [-n | --dry-run] [--receive-pack=<git-receive-pack>] … [<repository> [<refspec>...]]
export const PUSH = command("push", {
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
export const CLONE = command("clone", {
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
export const LS_REMOTE = command("ls-remote", {
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

import type { Matched } from "../../grammar/matched.js";
import type { ProgramSpec, Seen } from "../../grammar/types.js";
import { literal_word } from "../../words.js";
import {
  ATTACHED_NUMBER,
  ATTACHED_TEXT,
  DIFF,
  EDITOR,
  FLAG,
  GIT_EXEC_KEYS,
  LOG,
  NUMBER,
  READ,
  REPOSITORY,
  REVISION_OR_PATH,
  TEXT,
  becomes,
  command,
  configured_code,
  flags,
  has_any,
  runs_operands,
} from "./common.js";
import type { Check, Options, Spec } from "./common.js";
import { REF_FILTERS } from "./inspection.js";

// ── Commands with a read form and a write form ──────────────────────────────────────────────────

const BRANCH_WRITES = ["-d", "-D", "-m", "-M", "-c", "-C", "-f", "-u", "--unset-upstream", "--edit-description", "-t", "--no-track", "--create-reflog"];
/** Options that make `git branch` list (a name after them is a pattern) or refuse a name (`-a`, `-r`). */
const BRANCH_LISTS = ["-l", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--show-current", "-a", "-r"];

// git branch [<options>] [-l] [<pattern>...]; git branch [-f] <branch-name> [<start-point>]; (-d | -D | -m | -M | -c | -C) …
export const BRANCH = command("branch", {
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
export const TAG = command("tag", {
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
export const CONFIG = command("config", {
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
export const REMOTE = command("remote", {
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
export function fetches(matched: Matched): void {
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
export const STASH = command("stash", {
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

export function destroys(matched: Matched): void {
  matched.categories.add("destructive");
}

// git worktree add|list|lock|move|prune|remove|repair|unlock …
const worktree = (name: string, spec: Spec): ProgramSpec => command(`worktree ${name}`, spec, "worktree");
export const WORKTREE = command("worktree", {
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
export const SUBMODULE = command("submodule", {
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
export const NOTES = command("notes", {
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
export const DIFFTOOL = command("difftool", {
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
export const MERGETOOL = command("mergetool", {
  category: "git_write",
  options: { ...flags("-g|--gui --no-gui -y|--no-prompt --prompt --tool-help"), "-t|--tool": TEXT, "-O": READ },
  operands: { rest: "read" },
  check: tool_runs,
});

import { program_rule } from "../grammar/declarative.js";
import type { ProgramRule, ProgramSpec } from "../grammar/types.js";
import {
  ADD,
  CHECKOUT,
  CHERRY_PICK,
  CLEAN,
  CLONE,
  COMMIT,
  FETCH_COMMAND,
  INIT,
  LS_REMOTE,
  MERGE_COMMAND,
  MV,
  PULL,
  PUSH,
  REBASE,
  RESET,
  RESTORE,
  REVERT,
  RM,
  SWITCH,
} from "./git/changes.js";
import { GIT_DIR, REVISION_OR_PATH, TEXT, VERSION, command, flags, log_like, setting } from "./git/common.js";
import { BRANCH, CONFIG, DIFFTOOL, MERGETOOL, NOTES, REMOTE, STASH, SUBMODULE, TAG, WORKTREE } from "./git/forms.js";
import {
  BLAME,
  CAT_FILE,
  DESCRIBE,
  DIFF_COMMAND,
  GREP,
  LS_FILES,
  LS_TREE,
  MERGE_BASE,
  NAME_REV,
  PLUMBING_DIFF,
  REFLOG,
  REV_LIST,
  REV_PARSE,
  SHORTLOG,
  STATUS,
} from "./git/history.js";
import {
  ARCHIVE,
  BUNDLE,
  CHECK_ATTR,
  CHECK_IGNORE,
  CHECK_REF_FORMAT,
  CHERRY,
  COUNT_OBJECTS,
  FORMAT_PATCH,
  FOR_EACH_REF,
  FSCK,
  HASH_OBJECT,
  HELP,
  RANGE_DIFF,
  SHOW_BRANCH,
  SHOW_REF,
  SYMBOLIC_REF,
  VAR,
  VERIFY_COMMIT,
  VERIFY_TAG,
  VERSION_COMMAND,
  WHATCHANGED,
} from "./git/inspection.js";
import { AM, APPLY, BISECT, CREDENTIAL_HELPERS, DAEMON, FILTER_BRANCH, GC, INSTAWEB, PRUNE, credential_helper } from "./git/tools.js";

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

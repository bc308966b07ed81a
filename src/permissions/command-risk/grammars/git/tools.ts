import type { Matched } from "../../grammar/matched.js";
import type { OptionSpec, ProgramSpec } from "../../grammar/types.js";
import { ATTACHED_TEXT, LOG, NUMBER, READ, REVISIONS, REVISION_OR_PATH, TEXT, WRITE, becomes, command, flags, has_any, runs_operands } from "./common.js";
import type { Spec } from "./common.js";
import { destroys } from "./forms.js";

export const AM = command("am", {
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
export const APPLY = command("apply", {
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
export const BISECT = command("bisect", {
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
export const GC = command("gc", {
  category: "git_write",
  options: { ...flags("--aggressive --auto --cruft --no-cruft --no-prune --quiet --force --keep-largest-pack"), "--prune": ATTACHED_TEXT },
});

// git prune [-n] [-v] [--progress] [--expire <time>] [--] [<head>...]
export const PRUNE = command("prune", {
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
export const FILTER_BRANCH = command("filter-branch", {
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
export const DAEMON = command("daemon", {
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
export const INSTAWEB = command("instaweb", {
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
export const CREDENTIAL_HELPERS = [
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
export const credential_helper = (name: string): ProgramSpec =>
  command(name, { category: "credential_sensitive", operands: { rest: "text" } }, OWN_PAGES.has(name) ? name : "credential");

import type { CommandCategory } from "./types.js";

/** Categories of a command by its name and leading arguments (after wrappers are stripped). */
const READ_ONLY = new Set([
  "ls",
  "cat",
  "head",
  "tail",
  "less",
  "more",
  "wc",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "find",
  "fd",
  "echo",
  "printf",
  "pwd",
  "which",
  "type",
  "file",
  "stat",
  "du",
  "df",
  "tree",
  "diff",
  "cmp",
  "sort",
  "uniq",
  "cut",
  "tr",
  "jq",
  "yq",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "true",
  "false",
  "test",
  "[",
  "date",
  "whoami",
  "id",
  "uname",
  "nl",
  "od",
  "hexdump",
  "xxd",
  "strings",
  "column",
  "paste",
  "comm",
  "join",
  "fold",
  "fmt",
  "rev",
  "tac",
  "seq",
  "sleep",
  "md5sum",
  "sha256sum",
  "sha1sum",
  "cksum",
  "awk",
  "gawk",
  "mawk",
  "sed",
  "tee",
  "cd",
  "export",
  "set",
  "unset",
  "local",
  "read",
  "shift",
  "exit",
  "return",
  ":",
  "declare",
  "typeset",
  "env",
  "printenv",
  "command",
  "hostname",
  "mkdir",
  "touch",
  "cp",
  "mv",
  "ln",
  "chmod",
  "xargs",
  "wait",
  "let",
  "getopts",
  "pushd",
  "popd",
  "dirs",
  "umask",
  "hash",
]);
const BUILD = new Set([
  "make",
  "cmake",
  "ninja",
  "gcc",
  "g++",
  "cc",
  "c++",
  "clang",
  "clang++",
  "javac",
  "mvn",
  "gradle",
  "tsc",
  "esbuild",
  "vite",
  "webpack",
  "rollup",
  "meson",
  "bazel",
  "tar",
  "zip",
  "unzip",
  "gzip",
  "gunzip",
]);
const TEST = new Set(["ctest", "pytest", "jest", "vitest", "mocha", "tox", "phpunit", "rspec"]);
const STATIC = new Set([
  "eslint",
  "prettier",
  "shellcheck",
  "clang-tidy",
  "cppcheck",
  "ruff",
  "mypy",
  "pylint",
  "flake8",
  "biome",
  "tsc-noemit",
  "clang-format",
  "black",
  "golangci-lint",
]);
const DESTRUCTIVE = new Set(["rm", "rmdir", "unlink", "shred", "truncate", "wipefs"]);
const NETWORK = new Set(["curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "telnet", "ftp", "socat", "gh", "aria2c"]);
const SYSTEM = new Set([
  "su",
  "pkexec",
  "mount",
  "umount",
  "fdisk",
  "parted",
  "dd",
  "shutdown",
  "reboot",
  "halt",
  "poweroff",
  "systemctl",
  "service",
  "launchctl",
  "crontab",
  "chown",
  "chgrp",
  "kill",
  "killall",
  "pkill",
  "useradd",
  "userdel",
  "usermod",
  "passwd",
  "iptables",
  "sysctl",
  "modprobe",
  "insmod",
  "rmmod",
  "nsenter",
  "apt",
  "apt-get",
  "dpkg",
  "dnf",
  "yum",
  "rpm",
  "brew",
  "snap",
  "chroot",
]);
const CREDENTIAL = new Set(["ssh-add", "ssh-keygen", "gpg", "security", "pass", "op", "vault"]);
const GIT_READ = new Set([
  "status",
  "log",
  "diff",
  "show",
  "rev-parse",
  "ls-files",
  "blame",
  "grep",
  "describe",
  "shortlog",
  "reflog",
  "ls-tree",
  "cat-file",
  "rev-list",
  "name-rev",
  "whatchanged",
  "version",
  "help",
]);
const GIT_WRITE = new Set([
  "add",
  "commit",
  "merge",
  "rebase",
  "checkout",
  "switch",
  "stash",
  "reset",
  "cherry-pick",
  "revert",
  "restore",
  "rm",
  "mv",
  "am",
  "apply",
  "init",
  "tag",
  "branch",
  "notes",
  "worktree",
  "config",
  "remote",
  "clean",
  "gc",
  "prune",
  "bisect",
  "submodule",
  "push",
  "pull",
  "fetch",
  "clone",
]);
const GIT_NETWORK = new Set(["push", "pull", "fetch", "clone", "ls-remote", "submodule"]);
const PACKAGE_NETWORK = new Set(["install", "i", "ci", "add", "publish", "update", "upgrade", "login", "adduser", "download", "get", "remove", "uninstall"]);
const NPX_KNOWN: Record<string, CommandCategory> = {
  vitest: "test",
  jest: "test",
  mocha: "test",
  tsc: "build",
  eslint: "static_analysis",
  prettier: "static_analysis",
  biome: "static_analysis",
};

export type Classified = { categories: Set<CommandCategory>; known: boolean; note?: string };

function script_category(script: string): CommandCategory {
  if (/^test/.test(script)) return "test";
  if (/^(lint|typecheck|check|format)/.test(script)) return "static_analysis";
  return "build";
}

export function classify_argv(name: string, args: readonly string[]): Classified {
  const categories = new Set<CommandCategory>();
  const result: Classified = { categories, known: true };
  const first = args.find((arg) => !arg.startsWith("-"));
  if (name === "git") {
    const sub = git_subcommand(args);
    if (sub === undefined) categories.add("git_read");
    else if (GIT_READ.has(sub)) categories.add("git_read");
    else if (GIT_WRITE.has(sub)) {
      categories.add("git_write");
      if (GIT_NETWORK.has(sub)) categories.add("network");
      if (
        sub === "clean" ||
        (sub === "reset" && args.includes("--hard")) ||
        (sub === "push" && args.some((arg) => arg === "-f" || arg.startsWith("--force"))) ||
        (sub === "checkout" && args.includes("--"))
      )
        categories.add("destructive");
      if ((sub === "branch" || sub === "tag") && args.filter((arg) => arg !== sub).every((arg) => ["-a", "-l", "--list", "-v", "-r", "--all"].includes(arg))) {
        categories.delete("git_write");
        categories.add("git_read");
      }
      if (sub === "config" && args.some((arg) => arg === "--get" || arg === "--list" || arg === "-l" || arg === "--get-all")) {
        categories.delete("git_write");
        categories.add("git_read");
      }
    } else if (sub === "ls-remote") categories.add("network");
    else result.known = false; // an alias or an unknown subcommand may run anything
    return result;
  }
  if (["npm", "pnpm", "yarn", "bun"].includes(name)) {
    if (first === undefined) categories.add("read_only");
    else if (first === "test" || first === "t") categories.add("test");
    else if (first === "run" || first === "run-script") categories.add(script_category(args[args.indexOf(first) + 1] ?? ""));
    else if (PACKAGE_NETWORK.has(first)) categories.add("network");
    else if (["ls", "list", "view", "outdated", "why", "explain", "config", "pack"].includes(first))
      categories.add(first === "view" || first === "outdated" ? "network" : "read_only");
    else if (["exec", "dlx", "x"].includes(first)) result.known = false;
    else result.known = false;
    return result;
  }
  if (name === "npx") {
    const tool = first ?? "";
    const category = NPX_KNOWN[tool];
    if (category === undefined) {
      categories.add("network");
      result.known = false;
    } else categories.add(tool === "tsc" && args.includes("--noEmit") ? "static_analysis" : category);
    return result;
  }
  if (name === "tsc") {
    categories.add(args.includes("--noEmit") ? "static_analysis" : "build");
    return result;
  }
  if (["cargo", "go", "dotnet"].includes(name)) {
    if (first === "test") categories.add("test");
    else if (first === "clippy" || first === "vet" || first === "fmt") categories.add("static_analysis");
    else if (first === "build" || first === "check" || first === "run") categories.add("build");
    else if (first === "install" || first === "get" || first === "fetch" || first === "publish") categories.add("network");
    else result.known = false;
    return result;
  }
  if (["pip", "pip3", "gem", "composer"].includes(name)) {
    if (first !== undefined && PACKAGE_NETWORK.has(first)) categories.add("network");
    else categories.add("read_only");
    return result;
  }
  if (name === "make" && first !== undefined && /^(test|check)$/.test(first)) categories.add("test");
  if (READ_ONLY.has(name)) categories.add("read_only");
  if (BUILD.has(name)) categories.add("build");
  if (TEST.has(name)) categories.add("test");
  if (STATIC.has(name)) categories.add("static_analysis");
  if (DESTRUCTIVE.has(name) || name.startsWith("mkfs") || name === "dd") categories.add("destructive");
  if (NETWORK.has(name)) categories.add("network");
  if (SYSTEM.has(name) || name.startsWith("mkfs")) categories.add("system_sensitive");
  if (CREDENTIAL.has(name)) categories.add("credential_sensitive");
  if (["apt", "apt-get", "dnf", "yum", "brew", "snap"].includes(name) && first !== undefined && PACKAGE_NETWORK.has(first)) categories.add("network");
  if (name === "docker" || name === "podman") {
    categories.add("system_sensitive");
    if (first === "pull" || first === "push" || first === "login") categories.add("network");
  }
  if (categories.size === 0) result.known = false;
  return result;
}

/** The git subcommand after global options (`-C dir`, `-c k=v`, `--git-dir=…`). */
function git_subcommand(args: readonly string[]): string | undefined {
  for (let index = 0; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const arg = args[index]!;
    if (["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path", "--super-prefix"].includes(arg)) {
      index += 1;
      continue;
    }
    if (arg.startsWith("-")) continue;
    return arg;
  }
  return undefined;
}

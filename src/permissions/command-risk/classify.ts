import type { CommandCategory } from "./types.js";

/** Categories of a command by its name and leading arguments (after wrappers are stripped). */
const BUILD = new Set(["javac", "mvn", "gradle", "meson", "bazel"]);
const TEST = new Set(["tox", "phpunit", "rspec"]);
const STATIC = new Set(["shellcheck", "clang-tidy", "tsc-noemit", "clang-format", "golangci-lint"]);
const DESTRUCTIVE = new Set(["wipefs"]);
const NETWORK = new Set(["aria2c"]);
const SYSTEM = new Set([
  "pkexec",
  "mount",
  "umount",
  "fdisk",
  "parted",
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
]);
const CREDENTIAL = new Set(["ssh-add", "ssh-keygen", "gpg", "security", "pass", "op", "vault"]);
const PACKAGE_NETWORK = new Set(["install", "i", "ci", "add", "publish", "update", "upgrade", "login", "adduser", "download", "get", "remove", "uninstall"]);

export type Classified = { categories: Set<CommandCategory>; known: boolean; note?: string };

export function classify_argv(name: string, args: readonly string[]): Classified {
  const categories = new Set<CommandCategory>();
  const result: Classified = { categories, known: true };
  const first = args.find((arg) => !arg.startsWith("-"));
  if (["cargo", "go", "dotnet"].includes(name)) {
    if (first === "test") categories.add("test");
    else if (first === "clippy" || first === "vet" || first === "fmt") categories.add("static_analysis");
    else if (first === "build" || first === "check" || first === "run") categories.add("build");
    else if (first === "install" || first === "get" || first === "fetch" || first === "publish") categories.add("network");
    else result.known = false;
    return result;
  }
  if (["gem", "composer"].includes(name)) {
    if (first !== undefined && PACKAGE_NETWORK.has(first)) categories.add("network");
    else categories.add("read_only");
    return result;
  }
  if (BUILD.has(name)) categories.add("build");
  if (TEST.has(name)) categories.add("test");
  if (STATIC.has(name)) categories.add("static_analysis");
  if (DESTRUCTIVE.has(name) || name.startsWith("mkfs")) categories.add("destructive");
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

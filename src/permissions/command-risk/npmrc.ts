import fs from "node:fs";
import path from "node:path";

/**
 * Package-manager configuration in the project that makes `npm test`, `pnpm install`, `yarn …` or
 * `bun test` run a program of the configuration's choosing rather than the package's scripts: a
 * project `.npmrc` with `script-shell=./evil.sh` turns the most routine command into arbitrary code.
 */
export type ConfigExecution = {
  /** The configuration file, absolute. */
  readonly file: string;
  /** The key as written. */
  readonly key: string;
  readonly value: string;
};

/** Files at most this big are read; a bigger one is reported as unreadable (nobody writes 64 KiB of .npmrc). */
const MAX_CONFIG_BYTES = 64 * 1024;
export const PACKAGE_MANAGERS = new Set(["npm", "npx", "pnpm", "pnpx", "yarn", "yarnpkg", "corepack", "bun", "bunx"]);

/**
 * Keys (normalised to kebab case) that name a program or code to run, or another configuration to load:
 * the shell for scripts, Node options for every script (`--require`), node-gyp, git, the editor/browser
 * helpers, `npm exec --call`, npm's old `onload-script`, `init-module`, config redirections, pnpm's
 * pnpmfiles, yarn 1's `yarn-path` and yarn 2's environment files.
 */
const EXECUTING_KEYS = new Set([
  "script-shell",
  "node-options",
  "node-gyp",
  "shell",
  "git",
  "editor",
  "browser",
  "viewer",
  "call",
  "onload-script",
  "init-module",
  "userconfig",
  "globalconfig",
  "pnpmfile",
  "global-pnpmfile",
  "yarn-path",
  "inject-environment-files",
]);
/** Node options that only tune the runtime; anything else (`--require`, `--import`, `--loader`, `--inspect`, `--openssl-config` …) may load code. */
const TUNING_NODE_OPTIONS = [
  /^--(max-old-space-size|max-semi-space-size|stack-size|max-http-header-size)=\d+$/,
  /^--(enable-source-maps|no-warnings|trace-warnings|trace-deprecation|no-deprecation|throw-deprecation|experimental-vm-modules|use-openssl-ca|use-bundled-ca|trace-uncaught|preserve-symlinks)$/,
  /^--(unhandled-rejections|dns-result-order|title)=[\w.-]+$/,
];
/** A script shell named by its absolute standard path (a bare `bash` is looked up on a PATH that starts with node_modules/.bin). */
const STANDARD_SHELL = /^\/(usr\/)?bin\/(bash|sh|dash|zsh)$/;
/** Keys whose usual value is a file the package manager keeps under `.yarn/` (yarn 2+ releases and plugins). */
const YARN_FOLDER_KEYS = new Set(["yarn-path", "path"]);
const FILES = [".npmrc", ".yarnrc", ".yarnrc.yml", "pnpm-workspace.yaml"];

function kebab(key: string): string {
  return unquote(key)
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/_/g, "-")
    .toLowerCase();
}

/** A relative path kept inside the project's `.yarn/` folder, as `yarn set version` and `yarn plugin import` write them. */
function in_yarn_folder(value: string): boolean {
  const normalised = path.posix.normalize(unquote(value));
  return normalised.startsWith(".yarn/") && !normalised.split("/").includes("..");
}

/** Every `key = value`, `key: value` and yarn 1 `key "value"` line; sections, comments and list items aside. */
function settings(text: string): { key: string; value: string }[] {
  const found: { key: string; value: string }[] = [];
  for (const line of text.split(/\r?\n/)) {
    const [, key, value] = /^\s*-?\s*([A-Za-z0-9_@./:"'-]+?)\s*(?:=|:(?!\/)|\s)\s*(.*)$/.exec(line) ?? [];
    if (key === undefined || value === undefined || /^\s*[;#[]/.test(line)) continue;
    found.push({ key, value: value.trim() });
  }
  return found;
}

function unquote(value: string): string {
  return value.replace(/^["']|["']$/g, "");
}

/** Whether a setting may run code: most executing keys always, `node-options` and `script-shell` unless plainly harmless. */
function runs_code(name: string, value: string, file: string): boolean {
  if (YARN_FOLDER_KEYS.has(name)) return path.basename(file) !== ".npmrc" && !in_yarn_folder(value);
  if (name === "node-options")
    return !unquote(value)
      .split(/\s+/)
      .filter((option) => option !== "")
      .every((option) => TUNING_NODE_OPTIONS.some((pattern) => pattern.test(option)));
  if (name === "script-shell") return !STANDARD_SHELL.test(unquote(value));
  return EXECUTING_KEYS.has(name);
}

function executing(file: string, text: string): ConfigExecution[] {
  const out: ConfigExecution[] = [];
  for (const { key, value } of settings(text)) {
    if (runs_code(kebab(key.split(":").at(-1) ?? key), value, file)) out.push({ file, key, value });
  }
  return out;
}

/** The folders npm, pnpm and yarn read project configuration from for a command run in `folder`: it and its ancestors up to the root. */
function config_folders(folder: string, root_real: string): string[] {
  const folders: string[] = [];
  let current = folder;
  const inside = current === root_real || current.startsWith(root_real + path.sep);
  for (;;) {
    folders.push(current);
    if (!inside || current === root_real || path.dirname(current) === current) break;
    current = path.dirname(current);
  }
  return folders;
}

/** The settings in the project's package-manager configuration that would run code for a command run in `folder`. */
export function package_manager_execution(folder: string, root_real: string): ConfigExecution[] {
  const out: ConfigExecution[] = [];
  for (const dir of config_folders(folder, root_real)) {
    for (const name of FILES) {
      const file = path.join(dir, name);
      let stat: fs.Stats;
      try {
        stat = fs.statSync(file);
      } catch {
        continue;
      }
      if (!stat.isFile()) continue;
      if (stat.size > MAX_CONFIG_BYTES) {
        out.push({ file, key: "(whole file)", value: `${stat.size} bytes, too big to check` });
        continue;
      }
      out.push(...executing(file, fs.readFileSync(file, "utf8")));
    }
  }
  return out;
}

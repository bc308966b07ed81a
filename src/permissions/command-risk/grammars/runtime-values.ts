import type { Matched } from "../grammar/matched.js";
import type { Seen, ValueKind } from "../grammar/types.js";
import type { CommandCategory, ShellWord } from "../types.js";
import { literal_word } from "../words.js";

/**
 * Values the runtimes' grammars share: modules a runtime preloads, scripts it runs, addresses a server
 * listens on and folders it serves, and the dev tools a package runner may hand a command to.
 */

/** A scheme (`data:`, `file:`, `https:`, `npm:`, `jsr:`): what it names is fetched or built, never a project file. */
const URL_LIKE = /^[A-Za-z][A-Za-z0-9+.-]*:/;
/** A path as module resolution reads it: relative with `./` or `../`, absolute, or in the home folder. */
const MODULE_PATH = /^(\.{1,2}\/|\/|~)/;
/** Bare specifiers of TypeScript and source-map loaders that only compile what the project runs. */
const DEV_LOADERS = new Set([
  "tsx",
  "tsx/esm",
  "tsx/cjs",
  "ts-node/register",
  "ts-node/register/transpile-only",
  "ts-node/esm",
  "@swc-node/register",
  "@swc-node/register/esm",
  "@babel/register",
  "esbuild-register",
  "source-map-support/register",
]);

/**
 * A module a runtime loads before the script (`node --import`, `--require`, `--loader`, `mocha -r`): a path is
 * a script (a project file is announced, any other asks); a URL or a package this analyzer does not know is
 * code; `dotenv/config` loads `.env`, which holds secrets.
 */
export function module_kind(via: string): ValueKind {
  return { judge: (word, matched) => judge_module(word, via, matched) };
}

function judge_module(word: ShellWord, via: string, matched: Matched): void {
  const value = word.value;
  if (!word.literal) matched.ask(`${via} loads ${value}, a module only known at run time`);
  else if (MODULE_PATH.test(value)) matched.scripts.push(word);
  else if (value === "dotenv/config") matched.ask(`${via} dotenv/config loads .env, which holds secrets, into the environment`, "credential_sensitive");
  else if (DEV_LOADERS.has(value)) return;
  else if (URL_LIKE.test(value)) matched.ask(`${via} ${value} is a URL: the module it loads is code this analyzer does not read`);
  else matched.ask(`${via} ${value} loads the package ${value}, code this analyzer does not know`);
}

/** A name from `built_in`, or else a module as `module_kind` judges it (reporters, formatters, environments). */
export function built_in_or_module(via: string, built_in: readonly string[]): ValueKind {
  return {
    judge: (word, matched) => {
      if (!word.literal || !built_in.includes(word.value)) judge_module(word, via, matched);
    },
  };
}

/** The script operand of an interpreter: `-` is standard input; a URL is fetched code; anything else a script file. */
export function script_kind(via: string): ValueKind {
  return { judge: (word, matched) => judge_script(word, via, matched) };
}

export function judge_script(word: ShellWord, via: string, matched: Matched): void {
  if (word.literal && word.value === "-") matched.stdin_code = true;
  else if (word.literal && URL_LIKE.test(word.value)) {
    matched.categories.add("network");
    matched.ask(`${via} runs ${word.value}, code fetched from the network`, "network");
  } else matched.scripts.push(word);
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|ip6-localhost)$/i;

/** The host of `[host:]port`, `host` or `[v6]:port`; `undefined` when only a port (or nothing) is given. */
function host_of(value: string): string | undefined {
  const address = value.replace(/^[a-z]+:\/\//i, "");
  const bracketed = /^\[([^\]]*)\](:\d*)?$/.exec(address);
  if (bracketed !== null) return bracketed[1] || undefined;
  if (/^\d*$/.test(address)) return undefined;
  const colon = address.lastIndexOf(":");
  const single_colon = colon !== -1 && address.indexOf(":") === colon;
  const host = single_colon && /^\d*$/.test(address.slice(colon + 1)) ? address.slice(0, colon) : address;
  return host === "" ? undefined : host;
}

/**
 * A server listening on `host` (`undefined`: the program's default, all interfaces when `all_by_default`):
 * on loopback it asks (local programs and web pages reach it); anywhere else it is clear harm.
 */
export function listening(host: string | undefined, via: string, matched: Matched, all_by_default: boolean): void {
  const everywhere = host === undefined ? all_by_default : !LOOPBACK.test(host);
  if (everywhere) matched.deny(`${via} opens a server on ${host ?? "every network interface"}, reachable from other machines`, "network");
  else matched.ask(`${via} opens a server on ${host ?? "its default local address"}, which local programs and web pages can reach`, "network");
}

/** An address a server listens on (`[host:]port`), judged by `listening`; one only known at run time asks. */
export function address_kind(via: string, all_by_default: boolean): ValueKind {
  return {
    judge: (word, matched) => {
      if (!word.literal) matched.ask(`${via} listens on ${word.value}, an address only known at run time`, "network");
      else listening(host_of(word.value), via, matched, all_by_default);
    },
  };
}

/** A listening option given no address at all (`vite --host`, `esbuild --serve`): its default, or every interface. */
export function unaddressed(seen: Seen, option: string, via: string, matched: Matched, all_by_default: boolean): void {
  const values = seen.get(option);
  if (values !== undefined && values.length === 0) listening(undefined, via, matched, all_by_default);
}

/**
 * A folder a server publishes: a relative folder inside the project is read as a tree; the home folder, the
 * root, an absolute path or one climbing out with `..` is published to whoever connects, which is harm.
 */
export function served_folder_kind(via: string): ValueKind {
  return { judge: judge_served_folder(via) };
}

export function judge_served_folder(via: string): (word: ShellWord, matched: Matched) => void {
  return (word, matched) => {
    const escapes = !word.literal || /^[~/]|^\$/.test(word.value) || word.value.split("/").includes("..");
    if (escapes) matched.deny(`${via} ${word.value} serves a folder outside the project to whoever connects`, "network");
    else matched.read(word, "tree");
  };
}

/**
 * A configuration file that can make the tool load code (pytest's ini, mypy's plugins, pylint's rcfile, node's
 * --env-file with NODE_OPTIONS): read like any file, but a device or stream hands it text only known at run time.
 */
export function config_file_kind(via: string): ValueKind {
  return {
    judge: (word, matched) => {
      if (word.literal && /^\/(dev|proc)\//.test(word.value)) matched.ask(`${via} ${word.value} reads its configuration from a stream, which may load code`);
      else matched.read(word);
    },
  };
}

/** The rule's own category replaced by what the arguments showed it does (`tsc --noEmit` only type-checks). */
export function categorize(matched: Matched, from: CommandCategory, to: CommandCategory): void {
  if (matched.categories.delete(from)) matched.categories.add(to);
}

/** Dev tools with a grammar of their own, by the package or binary name a package runner is given. */
const DEV_TOOLS: Readonly<Record<string, string>> = {
  tsc: "tsc",
  vitest: "vitest",
  jest: "jest",
  mocha: "mocha",
  eslint: "eslint",
  prettier: "prettier",
  biome: "biome",
  "@biomejs/biome": "biome",
  tsx: "tsx",
  vite: "vite",
  esbuild: "esbuild",
  webpack: "webpack",
  rollup: "rollup",
};

/** The dev tool a word names, as the argument vector its own grammar judges; `undefined` for any other word. */
export function dev_tool(word: ShellWord, rest: readonly ShellWord[]): ShellWord[] | undefined {
  const bin = word.literal ? DEV_TOOLS[word.value] : undefined;
  return bin === undefined ? undefined : [literal_word(bin), ...rest];
}

/** What a package script does, by the conventional name it has: tests, checks, or else a build. */
export function script_category(name: string): CommandCategory {
  if (/^test/.test(name)) return "test";
  if (/^(lint|typecheck|check|format)/.test(name)) return "static_analysis";
  return "build";
}

/** Names a project's package.json scripts conventionally have, run by `pnpm NAME`, `yarn NAME`, `bun NAME`. */
export const CONVENTIONAL_SCRIPTS = new Set(["build", "check", "clean", "dev", "format", "lint", "start", "test", "typecheck"]);

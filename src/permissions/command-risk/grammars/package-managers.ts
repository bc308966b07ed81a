import { program_rule } from "../grammar/declarative.js";
import type { Matched } from "../grammar/matched.js";
import type { OptionSpec, ProgramRule, ProgramSpec, Seen } from "../grammar/types.js";
import type { CommandCategory, ShellWord } from "../types.js";
import { literal_word } from "../words.js";
import { address_kind, categorize, CONVENTIONAL_SCRIPTS, config_file_kind, dev_tool, judge_script, module_kind, script_category } from "./runtime-values.js";
import { flags } from "./common.js";

const NPM_MANUAL = "npm 10 CLI documentation (docs.npmjs.com/cli/v10)";
const PNPM_MANUAL = "pnpm 9 CLI documentation (pnpm.io/9.x/cli)";
const YARN_MANUAL = "Yarn 4 CLI documentation (yarnpkg.com/cli)";
const BUN_MANUAL = "Bun 1.1 CLI documentation (bun.sh/docs/cli)";
const COREPACK_MANUAL = "Corepack 0.29 (nodejs.org/api/corepack.html)";

/** Options of npm, pnpm and yarn that make every script they run load code or run in another shell. */
const SCRIPT_ENVIRONMENT: Record<string, OptionSpec> = {
  "--node-options": { value: "text", ask: "sets the Node.js options every script runs with (--require and --import load code)" },
  "--script-shell": { value: "command" },
};

/** A folder whose package scripts run and whose .npmrc configures them, which this analyzer does not check. */
const OTHER_PACKAGE: OptionSpec = {
  value: "folder",
  ask: "runs the scripts of that folder's package.json under that folder's .npmrc, which this analyzer does not check",
};

/** npm's configuration flags that only change what it prints or which workspace it works in (npm 10 `config`). */
const NPM_OPTIONS: Record<string, OptionSpec> = {
  ...flags(
    "-s|--silent",
    "-q|--quiet",
    "-d",
    "--verbose",
    "--json",
    "--parseable",
    "-l|--long",
    "-a|--all",
    "-y|--yes",
    "-g|--global",
    "-h|--help|--usage",
    "-v|--version",
    "--if-present",
    "--ignore-scripts",
    "--foreground-scripts",
    "--workspaces",
    "--include-workspace-root",
    "--offline",
    "--prefer-offline",
    "--prefer-online",
    "--no-progress",
    "--no-audit",
    "--no-fund",
    "--no-color",
    "--dry-run",
  ),
  "--loglevel": { value: { one_of: ["silent", "error", "warn", "notice", "http", "info", "verbose", "silly"] } },
  "--color": { value: { one_of: ["always", "true", "false"] }, optional_value: true },
  "-w|--workspace": { value: "text" },
  "--depth": { value: "number" },
  "--omit|--include": { value: { one_of: ["dev", "optional", "peer"] } },
  "-C|--prefix": OTHER_PACKAGE,
  "--userconfig|--globalconfig": { value: "read", ask: "loads another npm configuration, which may set script-shell or node-options" },
  ...SCRIPT_ENVIRONMENT,
};

const npm = (rule: string, category: CommandCategory, extra: Partial<ProgramSpec> = {}): ProgramSpec => ({
  rule: `npm ${rule}`,
  manual: NPM_MANUAL,
  category,
  options: NPM_OPTIONS,
  operands: { rest: "text" },
  ...extra,
});

/** A subcommand that changes configuration, the project or the registry, asked about for `reason`. */
const asking = (spec: ProgramSpec, reason: string): ProgramSpec => ({
  ...spec,
  check: (matched) => matched.ask(`${spec.rule} ${reason}`),
});

/** `npm run SCRIPT`, `pnpm run SCRIPT`: the project's script, by the category its name conventionally has. */
function run_script(matched: Matched, _seen: Seen, operands: readonly ShellWord[]): void {
  const name = operands[0];
  categorize(matched, "build", name === undefined ? "read_only" : script_category(name.value));
}

/**
 * What a package runner (`npx`, `npm exec`, `bunx`) is asked to run: a dev tool with a grammar of its own, run
 * from node_modules, is judged by that grammar; any other package is downloaded when missing, and runs.
 */
function run_package(via: string, local_first: boolean) {
  return (matched: Matched, seen: Seen, operands: readonly ShellWord[]): void => {
    const [tool, ...rest] = operands;
    if (tool === undefined) {
      if (!seen.has("-c")) matched.ask(`${via} with no command opens an interactive shell`);
      return;
    }
    const argv = local_first ? dev_tool(tool, rest) : undefined;
    if (argv !== undefined) matched.argv.push({ words: argv, via });
    else {
      matched.categories.add("network");
      matched.ask(`${via} ${tool.value} runs the package ${tool.value}, downloaded from the registry when it is not installed`, "network");
    }
  };
}

/**
 * `pnpm NAME`, `yarn NAME`, `bun NAME`: the package script of that name, or else the installed program.
 * A dev tool is judged by its grammar; a conventional script name is the project's script; anything else asks.
 */
function script_or_program(via: string) {
  return (matched: Matched, _seen: Seen, operands: readonly ShellWord[]): void => {
    const [name, ...rest] = operands;
    if (name === undefined) return;
    const tool = dev_tool(name, rest);
    if (tool !== undefined) matched.argv.push({ words: tool, via });
    else if (name.literal && CONVENTIONAL_SCRIPTS.has(name.value)) categorize(matched, "build", script_category(name.value));
    else matched.ask(`${via} ${name.value} runs the package script or the installed program of that name, which this analyzer cannot see`);
  };
}

/** `pnpm exec CMD`, `yarn exec CMD`: a command run in the project, judged as the analyzer judges any command. */
function exec_command(via: string, shell: (seen: Seen) => boolean) {
  return (matched: Matched, seen: Seen, operands: readonly ShellWord[]): void => {
    if (operands.length === 0) return;
    if (!shell(seen)) matched.argv.push({ words: [...operands], via });
    else
      matched.code.push({ word: { value: operands.map((word) => word.value).join(" "), literal: operands.every((word) => word.literal), glob: false }, via });
  };
}

const NPM_NETWORK = [
  "install|i|in|ins|inst|insta|instal|isnt|isnta|isntal|isntall|add",
  "ci|clean-install|install-clean|ic",
  "install-test|it|install-ci-test|cit",
  "update|up|upgrade|udpate",
  "uninstall|remove|rm|r|un|unlink",
  "publish|unpublish|deprecate|dist-tag|owner|access|team|org|token|star|unstar",
  "link|ln|rebuild|rb|dedupe|ddp|prune|audit",
  "view|info|show|v|outdated|search|find|s|se|ping|doctor|diff",
  "init|create|innit|login|logout|adduser|add-user|whoami",
];

/** Subcommands, one spec for every name (`install`, `i`, `add` …) separated by `|`. */
function by_names(groups: readonly string[], spec: (name: string) => ProgramSpec): Record<string, ProgramSpec> {
  return Object.fromEntries(
    groups.flatMap((group) => {
      const names = group.split("|");
      // biome-ignore lint/style/noNonNullAssertion: split always yields at least one element
      const made = spec(names[0]!);
      return names.map((name) => [name, made]);
    }),
  );
}

/** `npm config get KEY`: an auth setting printed is a secret printed. */
const CONFIG_KEY = {
  judge: (word: ShellWord, matched: Matched) => {
    if (/auth|token|pass|cert|key/i.test(word.value)) matched.ask(`npm config get ${word.value} prints a secret`, "credential_sensitive");
  },
};

// npm(1): `npm <command> [args]`; configuration flags may come anywhere, and `--` passes the rest to the script.
const NPM: ProgramSpec = {
  rule: "npm",
  manual: NPM_MANUAL,
  category: "read_only",
  options: NPM_OPTIONS,
  subcommands: {
    ...by_names(["test|t|tst"], () => npm("test", "test")),
    ...by_names(["start", "stop", "restart"], (name) => npm(name, "build")),
    ...by_names(["run|run-script|rum|urn"], () => npm("run", "build", { operands: { first: ["text"], rest: "text" }, check: run_script })),
    ...by_names(["ls|list|ll|la", "why|explain", "help", "prefix", "root", "query"], (name) => npm(name, "read_only")),
    ...by_names(NPM_NETWORK, (name) => npm(name, "network")),
    ...by_names(["exec|x"], () =>
      npm("exec", "build", {
        options_first: true,
        options: { ...NPM_OPTIONS, "-c|--call": { value: "command" }, "--package": { value: "text", category: "network", ask: "downloads that package" } },
        check: run_package("npm exec", true),
      }),
    ),
    config: npm("config", "read_only", {
      operands: undefined,
      subcommands: {
        get: npm("config get", "read_only", { operands: { rest: { judge: CONFIG_KEY.judge } } }),
        ...by_names(["list|ls"], () => npm("config list", "read_only")),
        ...by_names(["set", "delete", "edit", "fix"], (name) =>
          asking(npm(`config ${name}`, "read_only"), "changes npm's configuration, which can make every script run other code"),
        ),
      },
    }),
    pkg: npm("pkg", "read_only", {
      operands: undefined,
      subcommands: {
        get: npm("pkg get", "read_only"),
        ...by_names(["set", "delete", "fix"], (name) => asking(npm(`pkg ${name}`, "read_only"), "edits package.json, scripts included")),
      },
    }),
    version: npm("version", "read_only", {
      check: (matched, _seen, operands) => {
        if (operands.length > 0) matched.ask("npm version bumps the version: it writes package.json, runs the version scripts, commits and tags");
      },
    }),
  },
};

// npx(1): `npx [options] <command>[@version] [args...]`, `npx -c '<command line>'`; options end at the command.
const NPX: ProgramSpec = {
  rule: "npx",
  manual: NPM_MANUAL,
  category: "build",
  options_first: true,
  options: {
    ...NPM_OPTIONS,
    "-c|--call": { value: "command" },
    "-p|--package": { value: "text", category: "network", ask: "downloads that package" },
    "--no-install|--no": {},
  },
  operands: { rest: "text" },
  check: run_package("npx", true),
};

/** pnpm's options shared by its commands (pnpm 9 "Filtering", "Recursive", "run" and global options). */
const PNPM_OPTIONS: Record<string, OptionSpec> = {
  ...flags(
    "-r|--recursive",
    "-w|--workspace-root",
    "-s|--silent",
    "--if-present",
    "--parallel",
    "--stream",
    "--aggregate-output",
    "--no-bail",
    "--bail",
    "--sort",
    "--no-sort",
    "--reverse",
    "--use-stderr",
    "--color",
    "--no-color",
    "--include-workspace-root",
    "--fail-if-no-match",
    "-h|--help",
    "-v|--version",
  ),
  "-F|--filter|--filter-prod|--test-pattern|--changed-files-ignore-pattern": { value: "text" },
  "--workspace-concurrency": { value: "number" },
  "--resume-from": { value: "text" },
  "--reporter": { value: { one_of: ["silent", "default", "append-only", "ndjson"] } },
  "--loglevel": { value: { one_of: ["debug", "info", "warn", "error"] } },
  "-C|--dir": OTHER_PACKAGE,
  ...SCRIPT_ENVIRONMENT,
};

const pnpm = (rule: string, category: CommandCategory, extra: Partial<ProgramSpec> = {}): ProgramSpec => ({
  rule: `pnpm ${rule}`,
  manual: PNPM_MANUAL,
  category,
  options: PNPM_OPTIONS,
  // pnpm passes every word after the script name to the script
  options_first: true,
  operands: { rest: "text" },
  ...extra,
});

const PNPM_NETWORK = [
  "install|i|add|update|up|upgrade|remove|rm|uninstall|un",
  "link|ln|unlink|import|rebuild|rb|prune|fetch|install-test|it|dedupe",
  "audit|outdated|publish|pack|patch|patch-commit|patch-remove",
  "dlx|create|env|setup|deploy|store|server|self-update|init",
];

// pnpm(1): `pnpm [options] <command> [args]`; `pnpm NAME` runs the script NAME, or else the installed program NAME.
const PNPM: ProgramSpec = {
  rule: "pnpm",
  manual: PNPM_MANUAL,
  category: "build",
  options: PNPM_OPTIONS,
  options_first: true,
  operands: { rest: "text" },
  check: script_or_program("pnpm"),
  subcommands: {
    ...by_names(["test|t|tst"], () => pnpm("test", "test")),
    ...by_names(["start"], () => pnpm("start", "build")),
    ...by_names(["run|run-script"], () => pnpm("run", "build", { operands: { first: ["text"], rest: "text" }, check: run_script })),
    ...by_names(["ls|list|ll|la", "why", "root", "bin"], (name) => pnpm(name, "read_only")),
    ...by_names(PNPM_NETWORK, (name) => pnpm(name, "network")),
    exec: pnpm("exec", "build", {
      options: { ...PNPM_OPTIONS, "-c|--shell-mode": {} },
      check: exec_command("pnpm exec", (seen) => seen.has("-c")),
    }),
  },
};

// pnpx: `pnpx <package> [args]`, the old name of `pnpm dlx`, which always downloads.
const PNPX: ProgramSpec = { ...pnpm("dlx", "network"), rule: "pnpx" };

const YARN_INFO: Record<string, OptionSpec> = flags("-h|--help", "-v|--version");

const yarn = (rule: string, category: CommandCategory, extra: Partial<ProgramSpec> = {}): ProgramSpec => ({
  rule: `yarn ${rule}`,
  manual: YARN_MANUAL,
  category,
  options: YARN_INFO,
  options_first: true,
  operands: { rest: "text" },
  ...extra,
});

const YARN_NETWORK = [
  "install|add|up|remove|dedupe|rebuild|link|unlink|unplug",
  "dlx|npm|patch|patch-commit|plugin|set|version|init|pack|constraints|stage|workspaces|workspace|cache",
];

// yarn(1), Yarn 4: `yarn [command] [args]`; `yarn` alone installs; `yarn NAME` is `yarn run NAME`, a script or a bin.
const YARN: ProgramSpec = {
  rule: "yarn",
  manual: YARN_MANUAL,
  category: "build",
  options: { ...YARN_INFO, "--cwd": OTHER_PACKAGE },
  options_first: true,
  operands: { rest: "text" },
  check: (matched, seen, operands) => {
    const [first, ...rest] = operands;
    if (first === undefined && seen.size === 0) {
      matched.categories.add("network");
      matched.ask("yarn with no command installs the dependencies", "network");
    } else if (first === undefined) categorize(matched, "build", "read_only");
    else if (first.literal && first.value === "node") {
      // `yarn node` and `yarn exec` hand every later word, options included, to node or to the shell
      matched.rule = "yarn node";
      matched.argv.push({ words: [literal_word("node"), ...rest], via: "yarn node" });
    } else if (first.literal && first.value === "exec") {
      matched.rule = "yarn exec";
      exec_command("yarn exec", () => true)(matched, seen, rest);
    } else script_or_program("yarn")(matched, seen, operands);
  },
  subcommands: {
    run: yarn("run", "build", {
      options: {
        ...YARN_INFO,
        "-T|--top-level|-B|--binaries-only": {},
        "--inspect|--inspect-brk": {
          value: address_kind("yarn run --inspect", false),
          optional_value: true,
          category: "network",
          ask: "opens a debugger socket: whoever connects runs code as the user",
        },
      },
      check: script_or_program("yarn run"),
    }),
    ...by_names(["why", "bin"], (name) => yarn(name, "read_only", { options: { ...YARN_INFO, "-R|--recursive|--json|--peers": {} } })),
    config: yarn("config", "read_only", {
      options: { ...YARN_INFO, "--json": {} },
      operands: undefined,
      subcommands: { get: yarn("config get", "read_only", { options: { ...YARN_INFO, "--json": {} } }) },
    }),
    ...by_names(YARN_NETWORK, (name) => yarn(name, "network")),
  },
};

/** Bun's runtime options (Bun 1.1 `bun run`), given before the file or script. */
const BUN_RUNTIME: Record<string, OptionSpec> = {
  ...flags("--watch", "--hot", "--smol", "-b|--bun", "--silent", "--if-present", "--no-install", "-v|--version", "--revision", "-h|--help"),
  "-r|--preload": { value: module_kind("bun --preload") },
  "-e|--eval|-p|--print": { value: "code" },
  "--env-file": { value: config_file_kind("bun --env-file") },
  "--conditions": { value: "text" },
  "--cwd": OTHER_PACKAGE,
  "--inspect|--inspect-brk|--inspect-wait": {
    value: address_kind("bun --inspect", false),
    optional_value: true,
    category: "network",
    ask: "opens a debugger socket (by default on localhost:6499): whoever connects runs code as the user",
  },
};

/** `bun FILE` and `bun run FILE` run a file; `bun NAME` a package script or an installed program. */
function bun_target(via: string) {
  const by_name = script_or_program(via);
  return (matched: Matched, seen: Seen, operands: readonly ShellWord[]): void => {
    const target = operands[0];
    if (seen.has("-e")) return;
    if (target === undefined) categorize(matched, "build", "read_only");
    else if (target.value.includes("/") || /\.[cm]?[jt]sx?$/.test(target.value)) judge_script(target, via, matched);
    else by_name(matched, seen, operands);
  };
}

const bun = (rule: string, category: CommandCategory, extra: Partial<ProgramSpec> = {}): ProgramSpec => ({
  rule: `bun ${rule}`,
  manual: BUN_MANUAL,
  category,
  options: flags("-h|--help"),
  operands: { rest: "text" },
  ...extra,
});

const BUN_NETWORK = ["install|i|add|a|remove|rm|update|link|unlink|pm|publish|patch|create|c|init|upgrade|outdated|audit"];

/** `bunx` and `bun x`: a local dev tool is judged by its grammar, any other package is downloaded and run. */
const BUNX = (rule: string): ProgramSpec => ({
  rule,
  manual: BUN_MANUAL,
  category: "build",
  options_first: true,
  options: { "--bun": {}, "-p|--package": { value: "text", category: "network", ask: "downloads that package" } },
  operands: { rest: "text" },
  check: run_package(rule, true),
});

// bun(1): `bun [runtime options] <file | script | command> [args]`; options end at the file or script.
const BUN: ProgramSpec = {
  rule: "bun",
  manual: BUN_MANUAL,
  category: "build",
  options: BUN_RUNTIME,
  options_first: true,
  operands: { rest: "text" },
  check: bun_target("bun"),
  subcommands: {
    run: bun("run", "build", { options: BUN_RUNTIME, options_first: true, check: bun_target("bun run") }),
    test: bun("test", "test", {
      options: {
        ...flags("--bail", "--coverage", "--watch", "-u|--update-snapshots", "--only", "--todo", "-h|--help"),
        "-t|--test-name-pattern": { value: "text" },
        "--timeout|--rerun-each": { value: "number" },
        "--coverage-reporter": { value: { one_of: ["text", "lcov"] } },
        "--coverage-dir|--reporter-outfile": { value: "write" },
        "--reporter": { value: { one_of: ["junit"] } },
        "--preload": { value: module_kind("bun test --preload") },
      },
    }),
    build: bun("build", "build", {
      options: {
        ...flags("--minify", "--splitting", "--watch", "--compile", "-h|--help"),
        "--outfile|--outdir": { value: "write" },
        "--target": { value: { one_of: ["browser", "bun", "node"] } },
        "--format": { value: { one_of: ["esm", "cjs", "iife"] } },
        "--sourcemap": { value: { one_of: ["none", "linked", "inline", "external"] }, optional_value: true },
        "-e|--external": { value: "text" },
      },
      operands: { rest: "read" },
    }),
    x: BUNX("bun x"),
    ...by_names(BUN_NETWORK, (name) => bun(name, "network")),
  },
};

/** The package managers Corepack runs, at the version the project's `packageManager` field pins. */
const COREPACK_MANAGERS = new Set(["npm", "npx", "pnpm", "pnpx", "yarn", "yarnpkg"]);

// corepack(1): `corepack <package manager> [args]` runs it; `corepack enable|install|use|prepare …` set them up.
const COREPACK: ProgramSpec = {
  rule: "corepack",
  manual: COREPACK_MANUAL,
  category: "build",
  options_first: true,
  options: flags("-v|--version", "-h|--help"),
  operands: { rest: "text" },
  check: (matched, _seen, [manager, ...rest]) => {
    if (manager === undefined) categorize(matched, "build", "read_only");
    else if (manager.literal && COREPACK_MANAGERS.has(manager.value)) matched.argv.push({ words: [manager, ...rest], via: "corepack" });
    else matched.ask(`corepack ${manager.value} installs or configures package managers, writing outside the project`);
  },
};

export const PACKAGE_MANAGER_RULES: readonly ProgramRule[] = [
  program_rule(NPM),
  program_rule(NPX),
  program_rule(PNPM),
  program_rule(PNPX),
  program_rule(YARN, ["yarn", "yarnpkg"]),
  program_rule(BUN),
  program_rule(BUNX("bunx")),
  program_rule(COREPACK),
];

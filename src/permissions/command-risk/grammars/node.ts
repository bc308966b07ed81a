import { program_rule } from "../grammar/declarative.js";
import type { Matched } from "../grammar/matched.js";
import type { OptionSpec, Operands, ProgramRule, Seen, ValueKind } from "../grammar/types.js";
import type { ShellWord } from "../types.js";
import { address_kind, built_in_or_module, categorize, config_file_kind, judge_script, module_kind, script_kind } from "./runtime-values.js";
import { flags } from "./common.js";

const NODE_MANUAL = "Node.js 20 command-line API (nodejs.org/docs/latest-v20.x/api/cli.html)";
const TSX_MANUAL = "tsx 4 command-line interface (tsx.is/usage), passing Node.js 20 options through";

/** The built-in reporters of `node --test` (Node.js 20 test runner). */
const TEST_REPORTERS = ["spec", "tap", "dot", "junit", "lcov"];
/** Options that only print something about node itself. */
const INFO = ["-v", "-h", "--v8-options", "--completion-bash"];

/** A debugger socket: asked on loopback (anyone who reaches it runs code as the user), denied anywhere else. */
function inspector(program: string, option: string): OptionSpec {
  return {
    value: address_kind(`${program} ${option}`, false),
    optional_value: true,
    category: "network",
    ask: "opens a debugger socket (by default on 127.0.0.1:9229): whoever connects runs code as the user",
  };
}

/** Where `node --test` reports: its standard streams, or a file it writes. */
const REPORT_DESTINATION: ValueKind = {
  judge: (word, matched) => {
    if (!word.literal || (word.value !== "stdout" && word.value !== "stderr")) matched.write(word);
  },
};

/** The options of the node binary that air knows, as Node.js 20 documents them; `program` names them in reasons. */
function node_options(program: string): Record<string, OptionSpec> {
  return {
    "-e|--eval": { value: "code" },
    "-p|--print": { value: "code" },
    "-r|--require": { value: module_kind(`${program} --require`) },
    "--import": { value: module_kind(`${program} --import`) },
    "--loader|--experimental-loader": { value: module_kind(`${program} --loader`) },
    "-i|--interactive": {},
    "-c|--check": {},
    "-C|--conditions": { value: "text" },
    "--input-type": { value: { one_of: ["module", "commonjs"] } },
    "--experimental-default-type": { value: { one_of: ["module", "commonjs"] } },
    "--env-file|--env-file-if-exists": { value: config_file_kind(`${program} --env-file`) },
    "--inspect": inspector(program, "--inspect"),
    "--inspect-brk": inspector(program, "--inspect-brk"),
    "--inspect-wait": inspector(program, "--inspect-wait"),
    "--inspect-port|--debug-port": {
      value: address_kind(`${program} --inspect-port`, false),
      ask: "sets the debugger's address, opened at once or on SIGUSR1",
    },
    "--test": {},
    "--test-concurrency|--test-timeout": { value: "number" },
    "--test-name-pattern|--test-shard": { value: "text" },
    "--test-reporter": { value: built_in_or_module(`${program} --test-reporter`, TEST_REPORTERS) },
    "--test-reporter-destination": { value: REPORT_DESTINATION },
    "--watch-path": { value: "read" },
    "--max-old-space-size|--max-semi-space-size|--stack-size|--max-http-header-size|--v8-pool-size": { value: "number" },
    "--unhandled-rejections": { value: { one_of: ["strict", "throw", "warn", "none", "warn-with-error-code"] } },
    "--dns-result-order": { value: { one_of: ["ipv4first", "ipv6first", "verbatim"] } },
    "--disable-proto": { value: { one_of: ["delete", "throw"] } },
    "--trace-require-module": { value: { one_of: ["all", "no-node-modules"] } },
    "--disable-warning|--title": { value: "text" },
    ...flags(
      "-v|--version",
      "-h|--help",
      "--v8-options",
      "--completion-bash",
      "--test-only",
      "--test-force-exit",
      "--experimental-test-coverage",
      "--experimental-test-module-mocks",
      "--watch",
      "--watch-preserve-output",
      "--enable-source-maps",
      "--no-warnings",
      "--no-deprecation",
      "--pending-deprecation",
      "--throw-deprecation",
      "--trace-deprecation",
      "--trace-warnings",
      "--trace-uncaught",
      "--trace-exit",
      "--trace-sigint",
      "--trace-sync-io",
      "--abort-on-uncaught-exception",
      "--preserve-symlinks",
      "--preserve-symlinks-main",
      "--experimental-vm-modules",
      "--experimental-wasm-modules",
      "--experimental-import-meta-resolve",
      "--experimental-detect-module",
      "--no-experimental-detect-module",
      "--experimental-require-module",
      "--no-experimental-require-module",
      "--experimental-websocket",
      "--experimental-eventsource",
      "--no-experimental-fetch",
      "--no-experimental-global-webcrypto",
      "--no-addons",
      "--no-global-search-paths",
      "--expose-gc",
      "--frozen-intrinsics",
      "--jitless",
      "--disallow-code-generation-from-strings",
      "--zero-fill-buffers",
      "--use-openssl-ca",
      "--use-bundled-ca",
      "--huge-max-old-generation-size",
    ),
  };
}

/** What the words after node's options are: arguments of inline code, test files, files to check, or a script. */
function node_operands(script: ValueKind): (seen: Seen) => Operands {
  return (seen) => {
    if (seen.has("-e") || seen.has("-p")) return { rest: "text" };
    if (seen.has("--test")) return { rest: "script" };
    if (seen.has("-c")) return { rest: "read" };
    return { first: [script], rest: "text" };
  };
}

/** The category and the standard input node runs, once its options and operands are known. */
function node_check(matched: Matched, seen: Seen, operands: readonly ShellWord[]): void {
  const inline = seen.has("-e") || seen.has("-p");
  const info = [...seen.keys()].every((option) => INFO.includes(option));
  if (seen.has("--test")) categorize(matched, "build", "test");
  else if (seen.has("-c") && !inline) categorize(matched, "build", "read_only");
  else if (operands.length === 0 && !inline && seen.size > 0 && info) categorize(matched, "build", "read_only");
  else if ((operands.length === 0 && !inline) || seen.has("-i")) matched.stdin_code = true;
}

/** The script operand of node: `node inspect` is the debugger client, not a file named inspect. */
const NODE_SCRIPT: ValueKind = {
  judge: (word, matched) => {
    if (word.literal && word.value === "inspect") {
      matched.categories.add("network");
      matched.ask("node inspect starts the script under the debugger, listening on 127.0.0.1:9229", "network");
    } else judge_script(word, "node", matched);
  },
};

/** The tsx watch mode's own options (tsx 4): which files restart the script. */
const TSX_WATCH: Record<string, OptionSpec> = {
  "--clear-screen|--no-clear-screen": {},
  "--include|--exclude|--ignore": { value: "text" },
};

export const NODE_RULES: readonly ProgramRule[] = [
  // node(1): `node [options] [script.js | -e "script" | -] [arguments]`; options end at the script, whose
  // arguments follow; no script (or `-`) reads the program from standard input.
  program_rule(
    {
      rule: "node",
      manual: NODE_MANUAL,
      category: "build",
      style: "single_dash",
      options_first: true,
      options: node_options("node"),
      operands: node_operands(NODE_SCRIPT),
      check: node_check,
    },
    ["node", "nodejs"],
  ),
  // tsx: `tsx [node options] [--tsconfig PATH] [--no-cache] script [arguments]`, `tsx watch [options] script`.
  program_rule({
    rule: "tsx",
    manual: TSX_MANUAL,
    category: "build",
    style: "single_dash",
    options_first: true,
    options: { ...node_options("tsx"), "--tsconfig": { value: "read" }, "--no-cache": {} },
    operands: node_operands(script_kind("tsx")),
    check: node_check,
    subcommands: {
      watch: {
        rule: "tsx watch",
        manual: TSX_MANUAL,
        category: "build",
        style: "single_dash",
        options_first: true,
        options: { ...node_options("tsx watch"), ...TSX_WATCH, "--tsconfig": { value: "read" }, "--no-cache": {} },
        operands: node_operands(script_kind("tsx watch")),
        check: node_check,
      },
    },
  }),
];

import { program_rule } from "../grammar/declarative.js";
import type { Matched } from "../grammar/matched.js";
import type { OptionSpec, ProgramRule, ProgramSpec, Seen, ValueKind } from "../grammar/types.js";
import { address_kind, built_in_or_module, categorize, listening, module_kind, served_folder_kind, unaddressed } from "./runtime-values.js";
import { flags, one_of } from "./common.js";

// A linter's or formatter's folder operands are plain reads, not trees: it opens only the sources of its
// languages below them, never a `.env` or a key, and it prints diagnostics, not file contents.

const INFO = ["-v", "-h"];
/** Only `--version` or `--help` given: the tool prints and runs nothing. */
const only_info = (seen: Seen): boolean => seen.size > 0 && [...seen.keys()].every((option) => INFO.includes(option));

/** A server whose address is not given: asked on the tool's default (loopback), denied when the option is bare. */
function default_server(option: string, via: string) {
  return (matched: Matched, seen: Seen): void => {
    if (!seen.has(option)) listening(undefined, via, matched, false);
    else unaddressed(seen, option, via, matched, true);
  };
}

const TSC_MANUAL = "tsc command-line options, TypeScript 5 (typescriptlang.org/docs/handbook/compiler-options.html)";

// tsc: `tsc [options] [file...]`, `tsc -p PROJECT`, `tsc -b [PROJECT...]`; without -p it reads ./tsconfig.json.
const TSC: ProgramSpec = {
  rule: "tsc",
  manual: TSC_MANUAL,
  category: "build",
  options: {
    ...flags(
      "-v|--version",
      "-h|--help",
      "--all",
      "--noEmit",
      "-b|--build",
      "-w|--watch",
      "--listFiles",
      "--listFilesOnly",
      "--listEmittedFiles",
      "--pretty",
      "--incremental",
      "--composite",
      "--skipLibCheck",
      "--strict",
      "-d|--declaration",
      "--emitDeclarationOnly",
      "--sourceMap",
      "--inlineSourceMap",
      "--noEmitOnError",
      "--esModuleInterop",
      "--allowJs",
      "--checkJs",
      "--resolveJsonModule",
      "--isolatedModules",
      "--verbatimModuleSyntax",
      "--noImplicitAny",
      "--noUnusedLocals",
      "--noUnusedParameters",
      "--noFallthroughCasesInSwitch",
      "--noUncheckedIndexedAccess",
      "--exactOptionalPropertyTypes",
      "--forceConsistentCasingInFileNames",
      "--removeComments",
      "--traceResolution",
      "--diagnostics",
      "--extendedDiagnostics",
      "--explainFiles",
      "--showConfig",
      "--preserveWatchOutput",
      "--noErrorTruncation",
      "-f|--force",
      "--verbose",
      "--clean",
      "--stopBuildOnErrors",
    ),
    "-p|--project": { value: "read" },
    "--outDir|--outFile|--declarationDir|--tsBuildInfoFile|--generateTrace|--generateCpuProfile": { value: "write" },
    "--rootDir|--baseUrl": { value: "folder" },
    "-t|--target|-m|--module|--moduleResolution|--lib|--jsx|--types|--locale|--newLine": { value: "text" },
    "--maxNodeModuleJsDepth": { value: "number" },
  },
  operands: { rest: "read" },
  check: (matched, seen) => {
    if (only_info(seen)) categorize(matched, "build", "read_only");
    else if (seen.has("--noEmit")) categorize(matched, "build", "static_analysis");
  },
};

const VITEST_MANUAL = "Vitest 2 command-line interface (vitest.dev/guide/cli)";
/** Vitest's built-in reporters; any other name is a module it loads. */
const VITEST_REPORTERS = [
  "default",
  "basic",
  "verbose",
  "dot",
  "json",
  "junit",
  "tap",
  "tap-flat",
  "html",
  "hanging-process",
  "github-actions",
  "blob",
  "tree",
];
const COVERAGE_REPORTERS = ["text", "text-summary", "html", "lcov", "lcovonly", "json", "json-summary", "clover", "cobertura", "teamcity", "none"];
const LOCAL_SERVER = "opens a web server on localhost from which tests run and files are edited";

const VITEST_OPTIONS: Record<string, OptionSpec> = {
  ...flags(
    "-v|--version",
    "-h|--help",
    "--run",
    "-w|--watch",
    "--coverage",
    "--coverage.enabled",
    "--coverage.all",
    "--globals",
    "--dom",
    "--silent",
    "--passWithNoTests",
    "--allowOnly",
    "-u|--update",
    "--typecheck",
    "--typecheck.only",
    "--hideSkippedTests",
    "--sequence.shuffle",
    "--sequence.concurrent",
    "--fileParallelism",
    "--no-file-parallelism",
    "--isolate",
    "--no-isolate",
    "--clearScreen",
    "--logHeapUsage",
    "--expandSnapshotDiff",
    "--standalone",
    "--color",
    "--no-color",
    "--printConsoleTrace",
    "--includeTaskLocation",
    "--disableConsoleIntercept",
    "--dangerouslyIgnoreUnhandledErrors",
    "--open",
  ),
  "-t|--testNamePattern|--shard|--project|--mode|--exclude|--coverage.include|--coverage.exclude": { value: "text" },
  "--changed": { value: "text", optional_value: true },
  "--bail|--retry|--maxWorkers|--minWorkers|--testTimeout|--hookTimeout|--teardownTimeout|--slowTestThreshold|--sequence.seed": { value: "number" },
  "--reporter": { value: built_in_or_module("vitest --reporter", VITEST_REPORTERS) },
  "--outputFile|--coverage.reportsDirectory": { value: "write" },
  "--coverage.provider": { value: one_of("v8", "istanbul") },
  "--coverage.reporter": { value: one_of(...COVERAGE_REPORTERS) },
  "--environment": { value: one_of("node", "jsdom", "happy-dom", "edge-runtime") },
  "--pool": { value: one_of("threads", "forks", "vmThreads", "vmForks") },
  "-c|--config|--workspace": { value: "script" },
  "-r|--root|--dir": { value: "folder" },
  "--ui|--api": { category: "network", ask: LOCAL_SERVER },
  "--api.port": { value: "number", category: "network", ask: LOCAL_SERVER },
  "--api.host": { value: address_kind("vitest --api.host", true), category: "network" },
  "--api.strictPort": {},
  "--browser": { category: "network", ask: "starts a browser, and a server it loads the tests from" },
  "--inspect|--inspect-brk": {
    value: address_kind("vitest --inspect", false),
    optional_value: true,
    category: "network",
    ask: "opens a debugger socket: whoever connects runs code as the user",
  },
};

const vitest = (rule: string, operands: ValueKind = "text"): ProgramSpec => ({
  rule,
  manual: VITEST_MANUAL,
  category: "test",
  options: VITEST_OPTIONS,
  operands: { rest: operands },
  check: (matched, seen) => {
    unaddressed(seen, "--api.host", rule, matched, true);
    if (only_info(seen)) categorize(matched, "test", "read_only");
  },
});

// vitest: `vitest [run|watch|dev|bench|list|related] [filters...] [options]`; filters match test file names.
const VITEST: ProgramSpec = {
  ...vitest("vitest"),
  subcommands: {
    run: vitest("vitest run"),
    watch: vitest("vitest watch"),
    dev: vitest("vitest dev"),
    bench: vitest("vitest bench"),
    list: vitest("vitest list"),
    related: vitest("vitest related", "read"),
  },
};

/** A jest configuration: a file (which is code, or JSON naming code), or inline JSON naming modules to load. */
const JEST_CONFIG: ValueKind = {
  judge: (word, matched) => {
    if (word.literal && word.value.trimStart().startsWith("{"))
      matched.ask(`jest --config ${word.value} is inline configuration, which names modules jest loads`);
    else matched.scripts.push(word);
  },
};

// jest: `jest [options] [testPathPattern...]` (Jest 29 CLI, jestjs.io/docs/cli).
const JEST: ProgramSpec = {
  rule: "jest",
  manual: "Jest 29 CLI options (jestjs.io/docs/cli)",
  category: "test",
  options: {
    ...flags(
      "-v|--version",
      "-h|--help",
      "--ci",
      "--coverage|--collectCoverage",
      "--watch",
      "--watchAll",
      "-i|--runInBand",
      "--verbose",
      "--silent",
      "-b|--bail",
      "--passWithNoTests",
      "--detectOpenHandles",
      "--forceExit",
      "--listTests",
      "-o|--onlyChanged",
      "-u|--updateSnapshot",
      "--json",
      "--no-cache",
      "--colors",
      "--debug",
      "--logHeapUsage",
      "--noStackTrace",
      "--randomize",
      "--showConfig",
      "--findRelatedTests",
      "--errorOnDeprecated",
      "--clearMocks",
      "--resetMocks",
      "--restoreMocks",
    ),
    "-t|--testNamePattern|--testPathPattern|--testPathIgnorePatterns|--selectProjects|--shard|--changedSince|--collectCoverageFrom": { value: "text" },
    "-w|--maxWorkers": { value: "text" },
    "--testTimeout|--seed": { value: "number" },
    "-c|--config": { value: JEST_CONFIG },
    "--rootDir|--roots": { value: "folder" },
    "--outputFile|--coverageDirectory|--cacheDirectory": { value: "write" },
    "--coverageProvider": { value: one_of("babel", "v8") },
    "--reporters": { value: built_in_or_module("jest --reporters", ["default", "summary", "github-actions"]) },
    "--env|--testEnvironment": { value: built_in_or_module("jest --testEnvironment", ["node", "jsdom"]) },
  },
  operands: (seen) => ({ rest: seen.has("--findRelatedTests") ? "read" : "text" }),
};

const MOCHA_REPORTERS = ["spec", "dot", "nyan", "tap", "landing", "list", "progress", "json", "json-stream", "min", "doc", "markdown", "xunit", "base"];

// mocha: `mocha [spec..]` (Mocha 10 command-line usage, mochajs.org/#command-line-usage); specs are test files run.
const MOCHA: ProgramSpec = {
  rule: "mocha",
  manual: "Mocha 10 command-line usage (mochajs.org/#command-line-usage)",
  category: "test",
  options: {
    ...flags(
      "-V|--version",
      "-h|--help",
      "-b|--bail",
      "--recursive",
      "-w|--watch",
      "-p|--parallel",
      "--exit",
      "--forbid-only",
      "--forbid-pending",
      "--check-leaks",
      "--full-trace",
      "--inline-diffs",
      "-S|--sort",
      "-c|--color|--colors",
      "-C|--no-colors",
      "--diff",
      "--dry-run",
      "--fail-zero",
      "--allow-uncaught",
      "-A|--async-only",
      "--delay",
      "-i|--invert",
      "--list-interfaces",
      "--list-reporters",
    ),
    "-r|--require": { value: module_kind("mocha --require") },
    "-R|--reporter": { value: built_in_or_module("mocha --reporter", MOCHA_REPORTERS) },
    "-u|--ui": { value: built_in_or_module("mocha --ui", ["bdd", "tdd", "qunit", "exports"]) },
    "-O|--reporter-option|--reporter-options|-g|--grep|-f|--fgrep|--extension|--ignore|--exclude|--watch-files|--watch-ignore": { value: "text" },
    "-t|--timeout|--timeouts|-s|--slow|-j|--jobs|--retries": { value: "number" },
    "--config|--file|--spec": { value: "script" },
    "--package": { value: "read" },
  },
  operands: { rest: "script" },
};

const ESLINT_FORMATTERS = ["stylish", "json", "json-with-metadata", "html"];

// eslint: `eslint [options] [file|dir|glob]*` (ESLint 9 command line interface reference); --fix rewrites them.
const ESLINT: ProgramSpec = {
  rule: "eslint",
  manual: "ESLint 9 command line interface (eslint.org/docs/latest/use/command-line-interface)",
  category: "static_analysis",
  options: {
    ...flags(
      "-v|--version",
      "-h|--help",
      "--no-config-lookup",
      "--fix",
      "--fix-dry-run",
      "--no-ignore",
      "--stdin",
      "--quiet",
      "--color",
      "--no-color",
      "--no-inline-config",
      "--report-unused-disable-directives",
      "--cache",
      "--no-error-on-unmatched-pattern",
      "--exit-on-fatal-error",
      "--no-warn-ignored",
      "--pass-on-no-patterns",
      "--debug",
      "--env-info",
      "--stats",
    ),
    "-c|--config": { value: "script" },
    "--rulesdir": { value: "text", ask: "loads rules from that folder, and rules are code" },
    "--plugin": { value: "text", ask: "loads that plugin, which is code" },
    "-f|--format": { value: built_in_or_module("eslint --format", ESLINT_FORMATTERS) },
    "-o|--output-file|--cache-location|--cache-file": { value: "write" },
    "--ignore-path|--print-config": { value: "read" },
    "--ext|--global|--rule|--fix-type|--ignore-pattern|--stdin-filename|--flag": { value: "text" },
    "--max-warnings": { value: "number" },
    "--cache-strategy": { value: one_of("metadata", "content") },
    "--report-unused-disable-directives-severity": { value: one_of("off", "warn", "error", "0", "1", "2") },
  },
  operands: (seen) => ({ rest: seen.has("--fix") ? "write" : "read" }),
  check: (matched, seen) => {
    if (only_info(seen)) categorize(matched, "static_analysis", "read_only");
  },
};

const PRETTIER_PARSERS = [
  "babel",
  "babel-flow",
  "babel-ts",
  "flow",
  "typescript",
  "espree",
  "meriyah",
  "acorn",
  "css",
  "less",
  "scss",
  "json",
  "json5",
  "jsonc",
  "json-stringify",
  "graphql",
  "markdown",
  "mdx",
  "vue",
  "yaml",
  "glimmer",
  "html",
  "angular",
  "lwc",
];

// prettier: `prettier [options] [file/dir/glob ...]` (Prettier 3 CLI); --write rewrites them, otherwise they are read.
const PRETTIER: ProgramSpec = {
  rule: "prettier",
  manual: "Prettier 3 CLI and options (prettier.io/docs/en/cli, prettier.io/docs/en/options)",
  category: "static_analysis",
  options: {
    ...flags(
      "-v|--version",
      "-h|--help",
      "-c|--check",
      "-l|--list-different",
      "-w|--write",
      "-u|--ignore-unknown",
      "--no-config",
      "--cache",
      "--no-editorconfig",
      "--no-error-on-unmatched-pattern",
      "--use-tabs",
      "--no-semi",
      "--semi",
      "--single-quote",
      "--jsx-single-quote",
      "--bracket-same-line",
      "--no-bracket-spacing",
      "--experimental-ternaries",
      "--single-attribute-per-line",
      "--vue-indent-script-and-style",
      "--insert-pragma",
      "--require-pragma",
      "--support-info",
    ),
    "--config": { value: "script" },
    "--plugin": { value: "text", ask: "loads that plugin, which is code" },
    "--find-config-path|--file-info|--ignore-path": { value: "read" },
    "--cache-location": { value: "write" },
    "--cache-strategy": { value: one_of("metadata", "content") },
    "--config-precedence": { value: one_of("cli-override", "file-override", "prefer-file") },
    "--log-level": { value: one_of("silent", "error", "warn", "log", "debug") },
    "--stdin-filepath": { value: "text" },
    "--parser": { value: one_of(...PRETTIER_PARSERS) },
    "--print-width|--tab-width": { value: "number" },
    "--trailing-comma": { value: one_of("all", "es5", "none") },
    "--arrow-parens": { value: one_of("always", "avoid") },
    "--end-of-line": { value: one_of("lf", "crlf", "cr", "auto") },
    "--quote-props": { value: one_of("as-needed", "consistent", "preserve") },
    "--prose-wrap": { value: one_of("always", "never", "preserve") },
    "--html-whitespace-sensitivity": { value: one_of("css", "strict", "ignore") },
    "--embedded-language-formatting": { value: one_of("auto", "off") },
    "--object-wrap": { value: one_of("preserve", "collapse") },
  },
  operands: (seen) => ({ rest: seen.has("-w") ? "write" : "read" }),
  check: (matched, seen) => {
    if (only_info(seen)) categorize(matched, "static_analysis", "read_only");
  },
};

const BIOME_MANUAL = "Biome 1.9 CLI reference (biomejs.dev/reference/cli)";
const BOOLEAN = one_of("true", "false");
const BIOME_OPTIONS: Record<string, OptionSpec> = {
  ...flags(
    "-h|--help",
    "--write",
    "--fix",
    "--apply",
    "--apply-unsafe",
    "--unsafe",
    "--error-on-warnings",
    "--no-errors-on-unmatched",
    "--changed",
    "--staged",
    "--verbose",
    "--skip-errors",
  ),
  "--config-path": { value: "read" },
  "--reporter": { value: one_of("json", "json-pretty", "github", "junit", "summary", "gitlab") },
  "--max-diagnostics|--since|--stdin-file-path|--only|--skip|--vcs-default-branch": { value: "text" },
  "--diagnostic-level": { value: one_of("info", "warn", "error") },
  "--files-ignore-unknown|--vcs-enabled|--vcs-use-ignore-file|--formatter-enabled|--linter-enabled|--organize-imports-enabled": { value: BOOLEAN },
  "--vcs-client-kind": { value: one_of("git") },
  "--vcs-root": { value: "folder" },
  "--colors": { value: one_of("off", "force") },
  "--log-level": { value: one_of("none", "debug", "info", "warn", "error") },
  "--log-kind": { value: one_of("pretty", "compact", "json") },
  "--indent-style": { value: one_of("tab", "space") },
  "--indent-width|--line-width|--files-max-size": { value: "number" },
  "--line-ending": { value: one_of("lf", "crlf", "cr") },
};
const BIOME_WRITES = ["--write", "--fix", "--apply", "--apply-unsafe"];

const biome = (command: string): ProgramSpec => ({
  rule: `biome ${command}`,
  manual: BIOME_MANUAL,
  category: "static_analysis",
  options: BIOME_OPTIONS,
  operands: (seen) => ({ rest: BIOME_WRITES.some((option) => seen.has(option)) ? "write" : "read" }),
});

// biome: `biome <check|lint|format|ci> [options] [paths...]`, `biome --version`.
const BIOME: ProgramSpec = {
  rule: "biome",
  manual: BIOME_MANUAL,
  category: "read_only",
  options: flags("--version", "-h|--help"),
  subcommands: {
    check: biome("check"),
    lint: biome("lint"),
    format: biome("format"),
    ci: { ...biome("ci"), operands: { rest: "read" } },
    version: { rule: "biome version", manual: BIOME_MANUAL, category: "read_only" },
    explain: { rule: "biome explain", manual: BIOME_MANUAL, category: "read_only", operands: { rest: "text" } },
  },
};

const VITE_MANUAL = "Vite 5 command line interface (vite.dev/guide/cli)";
const VITE_COMMON: Record<string, OptionSpec> = {
  ...flags("-v|--version", "-h|--help", "--clearScreen"),
  "-c|--config": { value: "script" },
  "--base|-f|--filter|-m|--mode": { value: "text" },
  "-l|--logLevel": { value: one_of("info", "warn", "error", "silent") },
  "--configLoader": { value: one_of("bundle", "runner", "native") },
  "-d|--debug": { value: "text", optional_value: true },
};
const VITE_SERVER: Record<string, OptionSpec> = {
  ...VITE_COMMON,
  ...flags("--strictPort", "--cors", "--force"),
  "--host": { value: address_kind("vite --host", true), category: "network" },
  "--port": { value: "number" },
  "--open": { value: "text", optional_value: true },
};

/** `vite`, `vite dev|serve`, `vite preview`: a web server for the project, on localhost unless --host says otherwise. */
const vite_server = (rule: string, extra: Record<string, OptionSpec> = {}): ProgramSpec => ({
  rule,
  manual: VITE_MANUAL,
  category: "build",
  options: { ...VITE_SERVER, ...extra },
  operands: { first: ["folder"] },
  check: (matched, seen) => {
    if (only_info(seen)) categorize(matched, "build", "read_only");
    else default_server("--host", rule)(matched, seen);
  },
});

// vite: `vite [root]` and `vite dev|serve [root]` (dev server), `vite build [root]`, `vite preview [root]`.
const VITE: ProgramSpec = {
  ...vite_server("vite"),
  subcommands: {
    dev: vite_server("vite dev"),
    serve: vite_server("vite serve"),
    preview: vite_server("vite preview", { "--outDir": { value: "folder" } }),
    build: {
      rule: "vite build",
      manual: VITE_MANUAL,
      category: "build",
      options: {
        ...VITE_COMMON,
        ...flags("--emptyOutDir", "-w|--watch", "--app", "--ssrManifest"),
        "--outDir": { value: "write" },
        "--target|--assetsDir": { value: "text" },
        "--assetsInlineLimit": { value: "number" },
        "--ssr|--manifest": { value: "text", optional_value: true },
        "--sourcemap": { value: one_of("true", "false", "inline", "hidden"), optional_value: true },
        "--minify": { value: one_of("true", "false", "esbuild", "terser"), optional_value: true },
      },
      operands: { first: ["folder"] },
      check: (matched, seen) => {
        // --emptyOutDir empties the output folder even outside the project root
        if (seen.has("--emptyOutDir")) for (const folder of seen.get("--outDir") ?? []) matched.write(folder, true);
      },
    },
  },
};

// esbuild: `esbuild [options] [entry points]` (esbuild 0.2x API, CLI spelling `--name=value` and `--name:key=value`).
const ESBUILD: ProgramSpec = {
  rule: "esbuild",
  manual: "esbuild API reference, CLI forms (esbuild.github.io/api)",
  category: "build",
  style: "single_dash",
  options: {
    ...flags(
      "--version",
      "--help|-h",
      "--bundle",
      "--minify",
      "--minify-whitespace",
      "--minify-identifiers",
      "--minify-syntax",
      "--splitting",
      "--keep-names",
      "--allow-overwrite",
      "--ignore-annotations",
    ),
    "--outfile|--outdir|--metafile": { value: "write", optional_value: true },
    "--outbase": { value: "folder", optional_value: true },
    "--tsconfig": { value: "read", optional_value: true },
    "--sourcemap": { value: one_of("inline", "external", "linked", "both"), optional_value: true },
    "--watch": { value: one_of("forever"), optional_value: true },
    "--analyze": { value: one_of("verbose"), optional_value: true },
    "--platform": { value: one_of("browser", "node", "neutral"), optional_value: true },
    "--format": { value: one_of("iife", "cjs", "esm"), optional_value: true },
    "--packages": { value: one_of("bundle", "external"), optional_value: true },
    "--jsx": { value: one_of("transform", "preserve", "automatic"), optional_value: true },
    "--log-level": { value: one_of("verbose", "debug", "info", "warning", "error", "silent"), optional_value: true },
    "--log-limit": { value: "number", optional_value: true },
    "--tree-shaking|--color": { value: BOOLEAN, optional_value: true },
    "--legal-comments": { value: one_of("none", "inline", "eof", "linked", "external"), optional_value: true },
    "--charset": { value: one_of("utf8"), optional_value: true },
    "--target|--main-fields|--conditions|--resolve-extensions|--public-path|--global-name|--jsx-factory|--jsx-fragment|--jsx-import-source": {
      value: "text",
      optional_value: true,
    },
    "--entry-names|--chunk-names|--asset-names|--mangle-props": { value: "text", optional_value: true },
    "--external:|--loader:|--define:|--alias:|--banner:|--footer:|--drop:|--pure:|--supported:": { value: "text", attached: true },
    "--inject:": { value: "read", attached: true },
    "--serve": { value: address_kind("esbuild --serve", true), optional_value: true, category: "network" },
    "--servedir": { value: served_folder_kind("esbuild --servedir"), optional_value: true },
  },
  operands: { rest: "read" },
  check: (matched, seen) => unaddressed(seen, "--serve", "esbuild --serve", matched, true),
};

const WEBPACK_MANUAL = "webpack-cli 5 command line interface (webpack.js.org/api/cli)";
const WEBPACK_OPTIONS: Record<string, OptionSpec> = {
  ...flags("-v|--version", "-h|--help", "-m|--merge", "-w|--watch", "--no-watch", "--fail-on-warnings", "--disable-interpret", "--color", "--no-color"),
  "-c|--config": { value: "script" },
  "--config-name|--env|--node-env|--define-process-env-node-env|--name|-t|--target|-d|--devtool": { value: "text" },
  "--entry": { value: "read" },
  "-o|--output-path": { value: "write" },
  "--mode": { value: one_of("development", "production", "none") },
  "--stats": { value: "text", optional_value: true },
  "--progress": { value: one_of("profile"), optional_value: true },
  "-j|--json": { value: "write", optional_value: true },
};
const webpack = (rule: string, extra: Partial<ProgramSpec> = {}): ProgramSpec => ({
  rule,
  manual: WEBPACK_MANUAL,
  category: "build",
  options: WEBPACK_OPTIONS,
  operands: { rest: "read" },
  ...extra,
});
const WEBPACK_SERVE = webpack("webpack serve", {
  options: {
    ...WEBPACK_OPTIONS,
    ...flags("--live-reload", "--no-live-reload", "--compress", "--history-api-fallback"),
    "--host": { value: address_kind("webpack serve --host", true), category: "network" },
    "--port": { value: "text" },
    "--hot|--open": { value: "text", optional_value: true },
    "--static": { value: served_folder_kind("webpack serve --static") },
    "--server-type": { value: one_of("http", "https") },
  },
  check: default_server("--host", "webpack serve"),
});

// webpack: `webpack [build|watch|serve|info|configtest|version] [entries...] [options]`; build is the default.
const WEBPACK: ProgramSpec = {
  ...webpack("webpack"),
  subcommands: {
    ...Object.fromEntries(["build", "bundle", "b"].map((name) => [name, webpack("webpack build")])),
    ...Object.fromEntries(["watch", "w"].map((name) => [name, webpack("webpack watch")])),
    ...Object.fromEntries(["serve", "server", "s"].map((name) => [name, WEBPACK_SERVE])),
    ...Object.fromEntries(["configtest", "t"].map((name) => [name, webpack("webpack configtest", { operands: { rest: "script" } })])),
    ...Object.fromEntries(["version", "info", "i"].map((name) => [name, webpack(`webpack ${name}`, { category: "read_only", operands: { rest: "text" } })])),
  },
};

// rollup: `rollup [options] [input]`, `rollup -c [config]` (Rollup 4 command line interface); a config file is code.
const ROLLUP: ProgramSpec = {
  rule: "rollup",
  manual: "Rollup 4 command line interface (rollupjs.org/command-line-interface)",
  category: "build",
  options: {
    ...flags(
      "-v|--version",
      "-h|--help",
      "-w|--watch",
      "--silent",
      "-m|--sourcemap",
      "--bundleConfigAsCjs",
      "--failAfterWarnings",
      "--perf",
      "--no-treeshake",
      "--compact",
      "--preserveModules",
      "--strict",
      "--no-strict",
    ),
    "-c|--config": { value: "script", optional_value: true },
    "-i|--input": { value: "read" },
    "-o|--file|-d|--dir": { value: "write" },
    "-f|--format": { value: one_of("amd", "cjs", "commonjs", "es", "esm", "module", "iife", "umd", "system", "systemjs") },
    "-p|--plugin": { value: "text", ask: "loads that plugin, which is code" },
    "--configPlugin": { value: "text", ask: "loads that plugin to read the configuration, which is code" },
    "--environment|-n|--name|-e|--external|-g|--globals|--banner|--footer|--intro|--outro|--filterLogs|--treeshake": { value: "text" },
    "--exports": { value: one_of("auto", "default", "named", "none") },
    "--logLevel": { value: one_of("info", "debug", "warn", "silent") },
  },
  operands: (seen) => ({ rest: seen.has("-c") ? "script" : "read" }),
};

export const JS_TOOL_RULES: readonly ProgramRule[] = [TSC, VITEST, JEST, MOCHA, ESLINT, PRETTIER, BIOME, VITE, ESBUILD, WEBPACK, ROLLUP].map((spec) =>
  program_rule(spec),
);

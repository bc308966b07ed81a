import { program_rule } from "../grammar/declarative.js";
import type { Matched } from "../grammar/matched.js";
import type { CommandCategory, ShellWord } from "../types.js";
import type { OptionSpec, ProgramRule, ProgramSpec, Seen, ValueKind } from "../grammar/types.js";
import { literal_word } from "../words.js";
import { judge_warning_filter } from "./python.js";
import { categorize, config_file_kind } from "./runtime-values.js";
import { flags, one_of } from "./common.js";

// A linter's or formatter's folder operands are plain reads, not trees: it opens only the sources of its
// languages below them, never a `.env` or a key, and it prints diagnostics, not file contents.

/** Only `--version` or `--help` given: the tool prints and runs nothing. */
const only_info = (seen: Seen, info: readonly string[]): boolean => seen.size > 0 && [...seen.keys()].every((option) => info.includes(option));

const PIP_MANUAL = "pip 24 user guide and reference (pip.pypa.io/en/stable/cli)";

/** pip's general options, valid before and after the command (pip 24 "General Options"). */
const PIP_GENERAL: Record<string, OptionSpec> = {
  ...flags(
    "-h|--help",
    "-V|--version",
    "-v|--verbose",
    "-q|--quiet",
    "--debug",
    "--isolated",
    "--require-virtualenv",
    "--no-input",
    "--no-cache-dir",
    "--disable-pip-version-check",
    "--no-color",
    "--no-python-version-warning",
  ),
  "--python": { value: "script", ask: "runs pip under another interpreter" },
  "--log": { value: "write" },
  "--cache-dir": { value: "write" },
  "--cert|--client-cert": { value: "read" },
  "--retries|--timeout": { value: "number" },
  "--root-user-action": { value: one_of("warn", "ignore") },
};

const pip = (rule: string, category: CommandCategory, options: Record<string, OptionSpec> = {}, operands: ValueKind = "text"): ProgramSpec => ({
  rule: `pip ${rule}`,
  manual: PIP_MANUAL,
  category,
  options: { ...PIP_GENERAL, ...options },
  operands: { rest: operands },
});

/** Options that pick and fetch packages: they only matter to commands that already reach the network. */
const PIP_FETCH: Record<string, OptionSpec> = {
  ...flags("--no-deps", "--pre", "--no-index", "--prefer-binary", "--require-hashes", "--no-build-isolation", "--dry-run"),
  "-r|--requirement|-c|--constraint": { value: "read" },
  "-i|--index-url|--extra-index-url|-f|--find-links|--only-binary|--no-binary|--platform|--python-version": { value: "text" },
};

const PIP_LOCAL: Record<string, OptionSpec> = {
  ...flags("-l|--local", "--user", "-e|--editable", "--exclude-editable", "--include-editable"),
  "--path": { value: "read" },
  "--exclude": { value: "text" },
};

// pip(1): `pip <command> [options]`; options may follow the command, as optparse reads them.
const PIP: ProgramSpec = {
  rule: "pip",
  manual: PIP_MANUAL,
  category: "read_only",
  options: PIP_GENERAL,
  subcommands: {
    list: pip("list", "read_only", {
      ...PIP_LOCAL,
      ...flags("--not-required", "--pre"),
      "-o|--outdated|-u|--uptodate": { category: "network" },
      "--format": { value: one_of("columns", "freeze", "json") },
    }),
    show: pip("show", "read_only", flags("-f|--files")),
    freeze: pip("freeze", "read_only", { ...PIP_LOCAL, ...flags("--all"), "-r|--requirement": { value: "read" } }),
    check: pip("check", "read_only"),
    inspect: pip("inspect", "read_only", PIP_LOCAL),
    hash: pip("hash", "read_only", { "-a|--algorithm": { value: one_of("sha256", "sha384", "sha512") } }, "read"),
    debug: pip("debug", "read_only", { "--platform|--python-version|--implementation|--abi": { value: "text" } }),
    help: pip("help", "read_only"),
    install: pip("install", "network", {
      ...PIP_FETCH,
      ...flags("--user", "-U|--upgrade", "--force-reinstall", "-I|--ignore-installed", "--break-system-packages", "--compile", "--no-compile"),
      ...flags("--no-warn-script-location"),
      "-e|--editable": { value: "read", ask: "builds and installs that project, which runs its setup code" },
      "-t|--target|--root|--prefix|--src": { value: "write" },
      "--upgrade-strategy": { value: one_of("eager", "only-if-needed") },
      "--progress-bar": { value: one_of("on", "off") },
    }),
    download: pip("download", "network", { ...PIP_FETCH, "-d|--dest": { value: "write" } }),
    ...Object.fromEntries(
      ["uninstall", "remove"].map((name) => [
        name,
        pip("uninstall", "destructive", { ...flags("-y|--yes", "--break-system-packages"), "-r|--requirement": { value: "read" } }),
      ]),
    ),
    config: {
      rule: "pip config",
      manual: PIP_MANUAL,
      category: "read_only",
      options: { ...PIP_GENERAL, ...flags("--global", "--user", "--site") },
      subcommands: { list: pip("config list", "read_only"), get: pip("config get", "read_only"), debug: pip("config debug", "read_only") },
    },
    cache: {
      rule: "pip cache",
      manual: PIP_MANUAL,
      category: "read_only",
      options: PIP_GENERAL,
      subcommands: { dir: pip("cache dir", "read_only"), info: pip("cache info", "read_only"), list: pip("cache list", "read_only") },
    },
  },
};

/** `pytest -p NAME` loads a plugin (code); `-p no:NAME` only keeps one from loading. */
const PLUGIN: ValueKind = {
  judge: (word, matched) => {
    if (!word.literal || !word.value.startsWith("no:")) matched.ask(`pytest -p ${word.value} loads the plugin ${word.value}, which is code`);
  },
};

const COVERAGE_REPORTS = ["term", "term-missing", "annotate", "html", "xml", "json", "lcov", "markdown", "markdown-append"];
/** `--cov-report TYPE[:DEST]`: a report written to DEST (`term-missing:skip-covered` is only a flag). */
const COVERAGE_REPORT: ValueKind = {
  judge: (word, matched) => {
    const colon = word.value.indexOf(":");
    const type = colon === -1 ? word.value : word.value.slice(0, colon);
    const destination = colon === -1 ? "" : word.value.slice(colon + 1);
    if (!word.literal || !COVERAGE_REPORTS.includes(type)) matched.ask(`pytest --cov-report ${word.value} is not a report this analyzer knows`);
    else if (destination !== "" && destination !== "skip-covered") matched.write(literal_word(destination));
  },
};

// pytest: `pytest [options] [file_or_dir] [file_or_dir] [...]` (pytest 8 command-line flags, with pytest-cov,
// pytest-xdist, pytest-timeout and pytest-rerunfailures); the operands are test files and node ids, which it runs.
const PYTEST: ProgramSpec = {
  rule: "pytest",
  manual: "pytest 8 command-line flags (docs.pytest.org/en/8.0.x/reference/reference.html#command-line-flags)",
  category: "test",
  options: {
    ...flags(
      "-h|--help",
      "-V|--version",
      "-x|--exitfirst",
      "-q|--quiet",
      "-v|--verbose",
      "-l|--showlocals",
      "--no-showlocals",
      "--full-trace",
      "-s",
      "--lf|--last-failed",
      "--ff|--failed-first",
      "--nf|--new-first",
      "--sw|--stepwise",
      "--sw-skip|--stepwise-skip",
      "--cache-clear",
      "--co|--collect-only",
      "--noconftest",
      "--keep-duplicates",
      "--collect-in-virtualenv",
      "--doctest-modules",
      "--doctest-continue-on-failure",
      "--strict-markers",
      "--strict-config",
      "--strict",
      "--trace-config",
      "--setup-only",
      "--setup-show",
      "--setup-plan",
      "--fixtures|--funcargs",
      "--fixtures-per-test",
      "--markers",
      "--disable-warnings|--disable-pytest-warnings",
      "--no-header",
      "--no-summary",
      "--runxfail",
      "--cov-branch",
      "--cov-append",
      "--no-cov",
    ),
    "-k|-m|-r|--deselect|--ignore|--ignore-glob|--doctest-glob|--junit-prefix|--log-level|--log-cli-level|--log-format|--log-date-format|--log-file-level": {
      value: "text",
    },
    "--maxfail|--verbosity|--durations|--durations-min|--cov-fail-under|--timeout|--reruns": { value: "number" },
    "--tb": { value: one_of("auto", "long", "short", "line", "native", "no") },
    "--show-capture": { value: one_of("no", "stdout", "stderr", "log", "all") },
    "--capture": { value: one_of("fd", "sys", "no", "tee-sys") },
    "--color|--code-highlight": { value: one_of("yes", "no", "auto") },
    "--lfnf|--last-failed-no-failures": { value: one_of("all", "none") },
    "--import-mode": { value: one_of("prepend", "append", "importlib") },
    "--assert": { value: one_of("plain", "rewrite") },
    "-c|--config-file|--cov-config": { value: config_file_kind("pytest --config-file") },
    "--rootdir|--confcutdir": { value: "folder" },
    // pytest empties the base temporary folder before the run
    "--basetemp": { value: "delete" },
    "--junitxml|--junit-xml|--log-file": { value: "write" },
    "-p": { value: PLUGIN },
    "-W|--pythonwarnings": { value: { judge: judge_warning_filter } },
    "-o|--override-ini": { value: "text", ask: "overrides the configuration, which may load plugins (addopts, required_plugins)" },
    "--pdb|--trace": { ask: "stops in the debugger, which runs Python typed on its standard input" },
    "--pdbcls": { value: "text", ask: "loads that debugger class, which is code" },
    "-n|--numprocesses": { value: "text" },
    "--dist": { value: one_of("load", "loadscope", "loadfile", "loadgroup", "worksteal", "no") },
    "--cov": { value: "text", optional_value: true },
    "--cov-report": { value: COVERAGE_REPORT },
  },
  operands: { rest: "script" },
  check: (matched, seen) => {
    if (only_info(seen, ["-h", "-V"])) categorize(matched, "test", "read_only");
  },
};

/** A formatter's operands: rewritten in place, unless it only checks (`--check`) or shows the change (`--diff`). */
function formatted(matched: Matched, seen: Seen, operands: readonly ShellWord[], checks: readonly string[]): void {
  const writes = !checks.some((option) => seen.has(option));
  for (const word of operands) {
    if (writes) matched.write(word);
    else matched.read(word);
  }
  if (writes) categorize(matched, "static_analysis", "build");
}

const RUFF_MANUAL = "Ruff 0.6 command-line interface (docs.astral.sh/ruff/configuration/#full-command-line-interface)";
const RUFF_COMMON: Record<string, OptionSpec> = {
  ...flags("-h|--help", "-q|--quiet", "-s|--silent", "-v|--verbose", "--no-cache", "--isolated", "--preview", "--no-preview", "--force-exclude"),
  "--config": { value: "text" },
  "--cache-dir": { value: "write" },
  "--exclude|--extend-exclude|--stdin-filename|--target-version": { value: "text" },
  "--line-length": { value: "number" },
  "--respect-gitignore|--no-respect-gitignore": {},
};

// ruff: `ruff check [options] [files]`, `ruff format [options] [files]`, `ruff version`.
const RUFF: ProgramSpec = {
  rule: "ruff",
  manual: RUFF_MANUAL,
  category: "read_only",
  options: flags("-V|--version", "-h|--help"),
  subcommands: {
    check: {
      rule: "ruff check",
      manual: RUFF_MANUAL,
      category: "static_analysis",
      options: {
        ...RUFF_COMMON,
        ...flags("--fix", "--no-fix", "--unsafe-fixes", "--no-unsafe-fixes", "--show-fixes", "--diff", "--statistics", "--exit-zero", "--exit-non-zero-on-fix"),
        "--select|--ignore|--extend-select|--extend-ignore|--per-file-ignores|--fixable|--unfixable": { value: "text" },
        "--output-format": {
          value: one_of("concise", "full", "json", "json-lines", "junit", "grouped", "github", "gitlab", "pylint", "rdjson", "azure", "sarif"),
        },
        "-o|--output-file": { value: "write" },
      },
      operands: (seen) => ({ rest: seen.has("--fix") && !seen.has("--diff") ? "write" : "read" }),
    },
    format: {
      rule: "ruff format",
      manual: RUFF_MANUAL,
      category: "static_analysis",
      options: { ...RUFF_COMMON, ...flags("--check", "--diff"), "--range": { value: "text" } },
      check: (matched, seen, operands) => formatted(matched, seen, operands, ["--check", "--diff"]),
      operands: { rest: "text" },
    },
    version: { rule: "ruff version", manual: RUFF_MANUAL, category: "read_only" },
  },
};

// black: `black [OPTIONS] SRC ...` (Black 24 usage and configuration); it rewrites SRC unless --check or --diff.
const BLACK: ProgramSpec = {
  rule: "black",
  manual: "Black 24 usage and configuration (black.readthedocs.io/en/stable/usage_and_configuration)",
  category: "static_analysis",
  options: {
    ...flags("-h|--help", "--version", "--check", "--diff", "--color", "--no-color", "--pyi", "--ipynb", "--preview", "--fast", "--safe"),
    ...flags("-S|--skip-string-normalization", "-C|--skip-magic-trailing-comma", "-q|--quiet", "-v|--verbose"),
    "-l|--line-length|-W|--workers": { value: "number" },
    "-t|--target-version|--include|--exclude|--extend-exclude|--force-exclude|--required-version|--stdin-filename": { value: "text" },
    // the code given is formatted, never run
    "-c|--code": { value: "text" },
    "--config": { value: "read" },
  },
  operands: { rest: "text" },
  check: (matched, seen, operands) => formatted(matched, seen, operands, ["--check", "--diff", "-c", "--version", "-h"]),
};

// flake8: `flake8 [options] [filename ...]` (flake8 7 full options list).
const FLAKE8: ProgramSpec = {
  rule: "flake8",
  manual: "flake8 7 full listing of options (flake8.pycqa.org/en/latest/user/options.html)",
  category: "static_analysis",
  options: {
    ...flags("-h|--help", "--version", "-q|--quiet", "-v|--verbose", "--count", "--statistics", "--show-source", "--isolated", "--exit-zero"),
    ...flags("--disable-noqa", "--benchmark", "--tee"),
    "--select|--ignore|--extend-ignore|--extend-select|--per-file-ignores|--exclude|--extend-exclude|--filename|--format": { value: "text" },
    "--max-line-length|--max-doc-length|--max-complexity|-j|--jobs": { value: "number" },
    "--config|--append-config": { value: config_file_kind("flake8 --config") },
    "--output-file": { value: "write" },
    "--color": { value: one_of("auto", "always", "never") },
  },
  operands: { rest: "read" },
};

// mypy: `mypy [options] [files ...]`, `-m MODULE`, `-p PACKAGE`, `-c PROGRAM_TEXT` (mypy 1.x command line).
const MYPY: ProgramSpec = {
  rule: "mypy",
  manual: "mypy 1 command line (mypy.readthedocs.io/en/stable/command_line.html)",
  category: "static_analysis",
  options: {
    ...flags("-h|--help", "-V|--version", "-v|--verbose", "--strict", "--ignore-missing-imports", "--no-error-summary", "--pretty", "--show-error-codes"),
    ...flags("--show-column-numbers", "--no-incremental", "--disallow-untyped-defs", "--check-untyped-defs", "--warn-unused-ignores", "--warn-return-any"),
    ...flags("--explicit-package-bases", "--namespace-packages", "--no-site-packages", "--strict-optional", "--non-interactive", "--show-traceback"),
    "--config-file": { value: config_file_kind("mypy --config-file") },
    "--follow-imports": { value: one_of("normal", "silent", "skip", "error") },
    // the text and modules given are type-checked, never run
    "--python-version|-p|--package|-m|--module|-c|--command|--exclude|--disable-error-code|--enable-error-code": { value: "text" },
    "--cache-dir|--html-report|--txt-report|--junit-xml|--linecount-report|--any-exprs-report": { value: "write" },
    "--install-types": { category: "network", ask: "installs the missing stub packages with pip" },
    "--python-executable": { value: "script", ask: "runs that interpreter to find its installed packages" },
  },
  operands: { rest: "read" },
};

// pylint: `pylint [options] modules_or_packages` (Pylint 3 command-line options).
const PYLINT: ProgramSpec = {
  rule: "pylint",
  manual: "Pylint 3 standard checkers and options (pylint.readthedocs.io/en/stable/user_guide/usage/run.html)",
  category: "static_analysis",
  options: {
    ...flags("-h|--help", "--version", "-E|--errors-only", "--exit-zero", "-v|--verbose", "--generate-rcfile", "--generate-toml-config"),
    "--rcfile": { value: config_file_kind("pylint --rcfile") },
    "--load-plugins": { value: "text", ask: "loads those plugins, which are code" },
    "--init-hook": { value: "code" },
    "-d|--disable|-e|--enable|--ignore|--ignore-patterns|--ignore-paths|--py-version|--msg-template": { value: "text" },
    "-f|--output-format": { value: one_of("text", "parseable", "colorized", "json", "json2", "msvs") },
    "--output": { value: "write" },
    "-j|--jobs|--max-line-length|--fail-under": { value: "number" },
    "--recursive|-r|--reports|--score|-s": { value: one_of("y", "n", "yes", "no") },
    "--source-roots": { value: "read" },
  },
  operands: { rest: "read" },
};

export const PYTHON_TOOL_RULES: readonly ProgramRule[] = [
  program_rule(PIP, ["pip", "pip3", "pip3.9", "pip3.10", "pip3.11", "pip3.12", "pip3.13"]),
  program_rule(PYTEST, ["pytest", "py.test"]),
  program_rule(RUFF),
  program_rule(BLACK),
  program_rule(FLAKE8),
  program_rule(MYPY),
  program_rule(PYLINT),
];

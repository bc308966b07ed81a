import { program_rule } from "../grammar/declarative.js";
import type { Matched } from "../grammar/matched.js";
import type { OptionSpec, Operands, ProgramRule, ProgramSpec, Seen } from "../grammar/types.js";
import type { ShellWord } from "../types.js";
import { literal_word } from "../words.js";
import { address_kind, categorize, config_file_kind, judge_served_folder, listening, served_folder_kind, script_kind } from "./runtime-values.js";
import { flags } from "./common.js";

/**
 * The shape shared by interpreters that run `[options] [script [args]]`: inline code (`code_options`) takes
 * the words after it as arguments, so does a script; with neither (and nothing only printed), the program
 * is read from standard input. `reading` options only check or show the script, never run it.
 */
function interpreter(program: string, code_options: readonly string[], info: readonly string[], reading: readonly string[] = [], in_place?: string) {
  const script = script_kind(program);
  return {
    operands: (seen: Seen): Operands => {
      if (code_options.some((option) => seen.has(option))) return { rest: "text" };
      if (reading.some((option) => seen.has(option))) return { rest: "read" };
      return { first: [script], rest: "text" };
    },
    check: (matched: Matched, seen: Seen, operands: readonly ShellWord[]): void => {
      const only_info = seen.size > 0 && [...seen.keys()].every((option) => info.includes(option));
      if (reading.some((option) => seen.has(option)) || (operands.length === 0 && only_info)) categorize(matched, "build", "read_only");
      else if (operands.length === 0 && !code_options.some((option) => seen.has(option))) matched.stdin_code = true;
      // `-i`: the files after the program are rewritten in place
      const inline = code_options.some((option) => seen.has(option));
      if (in_place !== undefined && seen.has(in_place)) for (const file of operands.slice(inline ? 0 : 1)) matched.write(file);
    },
  };
}

/** `-run -e httpd`: Ruby's un.rb library serving a folder with WEBrick, on every interface unless told otherwise. */
function ruby_httpd(matched: Matched, seen: Seen, operands: readonly ShellWord[]): void {
  const libraries = (seen.get("-r") ?? []).map((word) => word.value);
  const code = (seen.get("-e") ?? []).map((word) => word.value);
  if (!libraries.includes("un") || !code.some((text) => /^\s*httpd\b/.test(text))) return;
  const bind = operands.find((word) => word.value.startsWith("--bind-address="));
  listening(bind?.value.slice("--bind-address=".length), "ruby -run -e httpd", matched, true);
  // its operands are options (`-p PORT`, `--port=PORT`) and the document root it publishes
  operands.forEach((word, index) => {
    if (!word.value.startsWith("-") && operands[index - 1]?.value !== "-p") httpd_document_root(word, matched);
  });
}

const httpd_document_root = judge_served_folder("ruby -run -e httpd");
const RUBY_SHAPE = interpreter("ruby", ["-e"], ["-v", "--version", "-h"], ["-c"], "-i");

// ruby(1): `ruby [switches] [--] [programfile] [arguments]` (Ruby 3.3); switches cluster (`-rsocket`, `-pe`).
const RUBY: ProgramSpec = {
  rule: "ruby",
  manual: "ruby(1), Ruby 3.3",
  category: "build",
  options_first: true,
  options: {
    ...flags("-v", "--version", "-h|--help", "-c", "-w", "-d|--debug", "-s", "-n", "-p", "-a", "-l", "--verbose", "--jit", "--yjit"),
    "-e": { value: "code" },
    "-r": { value: "text", ask: "loads that library, which is code" },
    "-I": { value: "folder", attached: true },
    "-C": { value: "folder" },
    "-W": { value: "number", optional_value: true },
    "-F|-E|--encoding|--enable|--disable": { value: "text" },
    "-i": { value: "text", optional_value: true, ask: "edits the files it is given in place" },
    "-S": { ask: "runs a script found on PATH" },
  },
  operands: RUBY_SHAPE.operands,
  check: (matched, seen, operands) => {
    RUBY_SHAPE.check(matched, seen, operands);
    ruby_httpd(matched, seen, operands);
  },
};

const PERL_SHAPE = interpreter("perl", ["-e", "-E"], ["-v", "-V", "-h"], [], "-i");

// perl(1), perlrun: `perl [switches] [--] [programfile] [arguments]` (Perl 5.38); `-c` still runs BEGIN blocks.
const PERL: ProgramSpec = {
  rule: "perl",
  manual: "perlrun(1), Perl 5.38",
  category: "build",
  options_first: true,
  options: {
    ...flags("-v", "-h", "-c", "-w", "-W", "-X", "-T", "-t", "-s", "-n", "-p", "-a", "-f"),
    "-e|-E": { value: "code" },
    "-M|-m": { value: "text", ask: "loads that module, which is code" },
    "-I": { value: "folder", attached: true },
    "-V|-l|-0|-C": { value: "text", optional_value: true },
    "-F": { value: "text" },
    "-i": { value: "text", optional_value: true, ask: "edits the files it is given in place" },
    "-S": { ask: "runs a script found on PATH" },
    "-d": { value: "text", optional_value: true, ask: "runs the debugger, which reads commands from standard input" },
    "-x": { value: "folder", optional_value: true },
  },
  ...PERL_SHAPE,
};

/** The document root of PHP's built-in server. */
const DOCUMENT_ROOT = served_folder_kind("php -S -t");
const PHP_SHAPE = interpreter("php", ["-r", "-B", "-R", "-E"], ["-v", "-h", "-m", "--ini"], ["-l", "-s", "-w"]);

// php(1): `php [options] [-f] <file> [--] [args...]`, `php -r <code>`, `php -S <addr>:<port> [-t docroot] [router]` (PHP 8.3).
const PHP: ProgramSpec = {
  rule: "php",
  manual: "php(1), PHP 8.3 command line usage (php.net/manual/en/features.commandline.options.php)",
  category: "build",
  options_first: true,
  options: {
    ...flags(
      "-v|--version",
      "-h|--help|-?",
      "-m|--modules",
      "--ini",
      "-l|--syntax-check",
      "-s|--syntax-highlight",
      "-w|--strip",
      "-n|--no-php-ini",
      "-e",
      "-H",
      "-q",
    ),
    "-r|--run|-B|--process-begin|-R|--process-code|-E|--process-end": { value: "code" },
    "-F|--process-file|-f|--file": { value: "script" },
    "-c|--php-ini": { value: "script" },
    "-d|--define": { value: "text", ask: "sets an ini directive, which can make PHP load code (auto_prepend_file, extension)" },
    "-z|--zend-extension": { value: "text", ask: "loads that Zend extension, which is code" },
    "-S|--server": { value: address_kind("php -S", true) },
    "-t|--docroot": { value: DOCUMENT_ROOT },
    "-i|--info": { ask: "prints phpinfo(), the whole environment with it" },
    "-a|--interactive": { ask: "runs PHP typed on its standard input" },
    "--rf|--rc|--re|--rz|--ri": { value: "text" },
  },
  operands: (seen) => (seen.has("-S") ? { first: ["script"] } : seen.has("-f") ? { rest: "text" } : PHP_SHAPE.operands(seen)),
  check: (matched, seen, operands) => {
    if (seen.has("-S") || seen.has("-f") || seen.has("-i") || seen.has("-a")) return;
    PHP_SHAPE.check(matched, seen, operands);
  },
};

const LUA_SHAPE = interpreter("lua", ["-e"], ["-v"]);

// lua(1): `lua [options] [script [args]]` (Lua 5.4); `-` is standard input.
const LUA: ProgramSpec = {
  rule: "lua",
  manual: "lua(1), Lua 5.4",
  category: "build",
  options_first: true,
  options: {
    ...flags("-v", "-E", "-W"),
    "-e": { value: "code" },
    "-l": { value: "text", ask: "loads that library, which is code" },
    "-i": { ask: "runs Lua typed on its standard input" },
  },
  ...LUA_SHAPE,
};

const DENO_MANUAL = "Deno 2 CLI reference (docs.deno.com/runtime/reference/cli)";
/** Deno's permission flags, each with an optional allow list (`--allow-read=src`). */
const DENO_PERMISSIONS: Record<string, OptionSpec> = {
  "-A|--allow-all|--no-prompt": {},
  "--allow-read|--allow-write|--allow-net|--allow-env|--allow-run|--allow-sys|--allow-ffi|--allow-import": { value: "text", optional_value: true },
  "--deny-read|--deny-write|--deny-net|--deny-env|--deny-run|--deny-sys|--deny-ffi": { value: "text", optional_value: true },
};
const DENO_COMMON: Record<string, OptionSpec> = {
  ...flags("-h|--help", "-q|--quiet", "--no-check", "--no-lock", "--no-remote", "--no-config", "--cached-only", "--frozen", "--unstable"),
  "-c|--config|--import-map|--lock|--cert": { value: "read" },
  "--check": { value: "text", optional_value: true },
  "-r|--reload": { value: "text", optional_value: true, category: "network" },
  "--location": { value: "text" },
  "--seed": { value: "number" },
  "--node-modules-dir": { value: { one_of: ["auto", "manual", "none"] }, optional_value: true },
  "--ext": { value: { one_of: ["ts", "tsx", "js", "jsx", "mjs", "cjs"] } },
};
const DENO_RUNTIME: Record<string, OptionSpec> = {
  ...DENO_COMMON,
  ...DENO_PERMISSIONS,
  ...flags("--watch", "--no-clear-screen"),
  "--watch-exclude": { value: "text", optional_value: true },
  "--env-file|--env": { value: config_file_kind("deno --env-file"), optional_value: true },
  "--inspect|--inspect-brk|--inspect-wait": {
    value: address_kind("deno --inspect", false),
    optional_value: true,
    category: "network",
    ask: "opens a debugger socket (by default on 127.0.0.1:9229): whoever connects runs code as the user",
  },
};

/** `deno run --env-file` with no file loads `.env`, which holds secrets. */
function default_env_file(matched: Matched, seen: Seen): void {
  if (seen.get("--env-file")?.length === 0) matched.read(literal_word(".env"));
}

const deno = (rule: string, category: ProgramSpec["category"], extra: Partial<ProgramSpec>): ProgramSpec => ({
  rule: `deno ${rule}`,
  manual: DENO_MANUAL,
  category,
  options: DENO_COMMON,
  ...extra,
});

// deno(1): `deno run [options] <script> [args]`, `deno test|fmt|lint|check|task|eval …`, `deno <script>`.
const DENO: ProgramSpec = {
  rule: "deno",
  manual: DENO_MANUAL,
  category: "build",
  options_first: true,
  options: { ...DENO_RUNTIME, "-V|--version": {} },
  operands: { first: [script_kind("deno")], rest: "text" },
  check: (matched, seen, operands) => {
    default_env_file(matched, seen);
    if (operands.length === 0 && (seen.has("-V") || seen.has("-h"))) categorize(matched, "build", "read_only");
    else if (operands.length === 0) matched.stdin_code = true;
  },
  subcommands: {
    run: deno("run", "build", {
      options: DENO_RUNTIME,
      options_first: true,
      operands: { first: [script_kind("deno run")], rest: "text" },
      check: default_env_file,
    }),
    test: deno("test", "test", {
      options: {
        ...DENO_RUNTIME,
        ...flags("--fail-fast", "--parallel", "--doc", "--no-run", "--trace-leaks"),
        "--filter": { value: "text" },
        "--coverage": { value: "write", optional_value: true },
        "--junit-path": { value: "write" },
        "--reporter": { value: { one_of: ["pretty", "dot", "junit", "tap"] } },
      },
      operands: { rest: "script" },
      check: default_env_file,
    }),
    task: deno("task", "build", { options_first: true, operands: { first: ["text"], rest: "text" } }),
    fmt: deno("fmt", "static_analysis", {
      options: {
        ...DENO_COMMON,
        ...flags("--check", "--use-tabs", "--single-quote", "--no-semicolons", "--watch"),
        "--ignore": { value: "text" },
        "--line-width|--indent-width": { value: "number" },
        "--prose-wrap": { value: { one_of: ["always", "never", "preserve"] } },
      },
      operands: (seen) => ({ rest: seen.has("--check") ? "tree" : "write" }),
    }),
    lint: deno("lint", "static_analysis", {
      options: {
        ...DENO_COMMON,
        ...flags("--fix", "--json", "--compact", "--watch"),
        "--ignore|--rules-tags|--rules-include|--rules-exclude": { value: "text" },
      },
      operands: (seen) => ({ rest: seen.has("--fix") ? "write" : "tree" }),
    }),
    check: deno("check", "static_analysis", { options: { ...DENO_COMMON, "--all": {}, "--doc": {} }, operands: { rest: "read" } }),
    eval: deno("eval", "build", { options: DENO_RUNTIME, operands: { first: ["code"], rest: "text" } }),
  },
};

export const INTERPRETER_RULES: readonly ProgramRule[] = [
  program_rule(RUBY),
  program_rule(PERL),
  program_rule(PHP),
  program_rule(LUA, ["lua", "lua5.1", "lua5.2", "lua5.3", "lua5.4", "luajit"]),
  program_rule(DENO),
];

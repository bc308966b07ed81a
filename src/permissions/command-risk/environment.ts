import type { Variables } from "./variables.js";

/**
 * Variables that make the next program run code of their choosing — directly, or through a configuration
 * file they point it at (`HOME`/`XDG_CONFIG_HOME` move every dotfile, `OPENSSL_CONF` can load a library), or
 * options they add (`MAKEFLAGS`, `CFLAGS`, `TAR_OPTIONS`): a rule judges only its command's arguments.
 */
export const EXECUTING_VARIABLES =
  /^(PATH|HOME|XDG_CONFIG_HOME|ZDOTDIR|CURL_HOME|WGETRC|RSYNC_RSH|RSYNC_CONNECT_PROG|OPENSSL_CONF|OPENSSL_ENGINES|OPENSSL_MODULES|RIPGREP_CONFIG_PATH|MAKEFLAGS|MFLAGS|GNUMAKEFLAGS|MAKEFILES|CC|CXX|CPP|LD|AR|AS|CFLAGS|CXXFLAGS|CPPFLAGS|LDFLAGS|CMAKE_.*|GCC_EXEC_PREFIX|COMPILER_PATH|CCC_OVERRIDE_OPTIONS|TAR_OPTIONS|ZIPOPT|UNZIP|UNZIPOPT|XZ_OPT|XZ_DEFAULTS|GZIP|BZIP2|LD_PRELOAD|LD_LIBRARY_PATH|LD_AUDIT|DYLD_.*|BASH_ENV|ENV|PROMPT_COMMAND|PS4|SHELLOPTS|BASHOPTS|IFS|GIT_.*|PAGER|MANPAGER|EDITOR|VISUAL|NODE_OPTIONS|NODE_PATH|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PYTHONUSERBASE|PYTHONINSPECT|PYTHONWARNINGS|PYTEST_ADDOPTS|PYTEST_PLUGINS|PERL5OPT|PERL5LIB|RUBYOPT|RUBYLIB|PHPRC|PHP_INI_SCAN_DIR|LUA_INIT.*|LUA_C?PATH.*|npm_config_.*|NPM_CONFIG_.*|YARN_.*|COREPACK_.*|LESSOPEN|LESSCLOSE|BROWSER|SSH_ASKPASS|SUDO_ASKPASS)$/;

/**
 * Variables whose values are no secret: where things are, who and what the machine is, the locale, the
 * terminal, CI markers, and what bash sets itself. Printing any other variable of the environment may
 * print a secret the scrubbing missed, so it asks.
 */
const NON_SECRET = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "PWD",
  "OLDPWD",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "LC_MESSAGES",
  "LC_COLLATE",
  "LC_NUMERIC",
  "LC_TIME",
  "TERM",
  "COLORTERM",
  "TMPDIR",
  "TZ",
  "CI",
  "NODE_ENV",
  "HOSTNAME",
  "HOSTTYPE",
  "OSTYPE",
  "MACHTYPE",
  "SHLVL",
  "COLUMNS",
  "LINES",
  "EDITOR",
  "VISUAL",
  "PAGER",
  "IFS",
  "PS1",
  "PS2",
  "PS4",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  "XDG_STATE_HOME",
  "XDG_RUNTIME_DIR",
  "BASH",
  "BASH_VERSION",
  "BASH_VERSINFO",
  "BASHPID",
  "BASH_SUBSHELL",
  "BASH_SOURCE",
  "BASH_LINENO",
  "BASH_REMATCH",
  "BASH_COMMAND",
  "FUNCNAME",
  "PIPESTATUS",
  "REPLY",
  "OPTARG",
  "OPTIND",
  "OPTERR",
  "MAPFILE",
  "RANDOM",
  "SRANDOM",
  "SECONDS",
  "LINENO",
  "EPOCHSECONDS",
  "EPOCHREALTIME",
  "UID",
  "EUID",
  "PPID",
  "GROUPS",
  "DIRSTACK",
]);

/** Well-known, not secret: printing it needs no question (`printenv PATH`, `declare -p HOME`). */
function well_known(name: string): boolean {
  return NON_SECRET.has(name);
}

const REFERENCE = /\$\{?!?([A-Za-z_]\w*)/g;
/** Positional parameters and bash's special parameters (`$1`, `$@`, `$#`, `$?`, `$_` …). */
const SPECIAL = /^([0-9]+|[@*#?$!_-])$/;

/**
 * Whether printing `$name` may print a value of the environment that is not well known: a name the script
 * never sets, or one it sets from such a value (`x=$TOKEN; echo $x`). Values the script reads in
 * (`read l`) or builds from literals are its own.
 */
export function from_environment(name: string, variables: Variables, seen: Set<string> = new Set()): boolean {
  if (SPECIAL.test(name) || well_known(name) || seen.has(name)) return false;
  seen.add(name);
  const values = variables.bindings.get(name);
  if (values === undefined) return true;
  return values.some((value) => !value.literal && [...value.value.matchAll(REFERENCE)].some((match) => from_environment(match[1] ?? "", variables, seen)));
}

/** The variable names a word expands (`$X`, `${X:-d}`, `"$X/y"`), not counting command substitutions. */
export function expanded_names(text: string): string[] {
  return [...text.replace(/\$\((?!\()([^()]|\([^()]*\))*\)|`[^`]*`/g, " ").matchAll(REFERENCE)].map((match) => match[1] ?? "");
}

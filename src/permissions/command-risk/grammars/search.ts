import { program_rule } from "../grammar/declarative.js";
import type { Matched, ReadDepth } from "../grammar/matched.js";
import type { OptionSpec, ProgramRule, ProgramSpec, Seen } from "../grammar/types.js";
import type { ShellWord } from "../types.js";
import { literal_word } from "../words.js";
import { one_of } from "./common.js";
import { run_on_found } from "./find.js";

/** How a search walks the folders it is given; grep without `-r` reads only the files named. */
type Walk = "tree" | "linked_tree" | "visible_tree";
type Depth = "read" | Walk;

/**
 * Reads the folder a recursive search walks when it is given no path (`grep -r foo`, `rg foo`). `patterns`:
 * whether the first operand is the pattern rather than a path.
 */
function search_here(matched: Matched, operands: readonly ShellWord[], patterns: boolean, depth: Depth): void {
  if (depth !== "read" && operands.length === (patterns ? 1 : 0)) matched.read(literal_word("."), depth);
}

function grep_depth(seen: Seen): Depth {
  if (seen.has("-R")) return "linked_tree";
  return seen.has("-r") || seen.get("-d")?.some((word) => word.value === "recurse") === true ? "tree" : "read";
}

/** The first operand is the pattern unless patterns come from options. */
const pattern_first = (seen: Seen, ...sources: string[]): boolean => !sources.some((option) => seen.has(option));

// grep(1), GNU grep 3.11: `grep [OPTION...] PATTERNS [FILE...]`, `grep [OPTION...] -e PATTERNS ... [FILE...]`,
// `grep [OPTION...] -f PATTERN_FILE ... [FILE...]`; `-r` reads every file below its folders (`.` when none) and
// follows the symlinks inside with `-R`
const GREP: ProgramSpec = {
  rule: "grep",
  manual: "grep(1), GNU grep 3.11",
  category: "read_only",
  number_option: "-C",
  options: {
    "-E|--extended-regexp": {},
    "-F|--fixed-strings": {},
    "-G|--basic-regexp": {},
    "-P|--perl-regexp": {},
    "-e|--regexp": { value: "text" },
    "-f|--file": { value: "read" },
    "-i|-y|--ignore-case": {},
    "--no-ignore-case": {},
    "-w|--word-regexp": {},
    "-x|--line-regexp": {},
    "-z|--null-data": {},
    "-s|--no-messages": {},
    "-v|--invert-match": {},
    "-V|--version": {},
    "--help": {},
    "-m|--max-count": { value: "number" },
    "-b|--byte-offset": {},
    "-n|--line-number": {},
    "--line-buffered": {},
    "-H|--with-filename": {},
    "-h|--no-filename": {},
    "--label": { value: "text" },
    "-o|--only-matching": {},
    "-q|--quiet|--silent": {},
    "--binary-files": { value: one_of("binary", "text", "without-match") },
    "-a|--text": {},
    "-I": {},
    "-d|--directories": { value: one_of("read", "recurse", "skip") },
    "-D|--devices": { value: one_of("read", "skip") },
    "-r|--recursive": {},
    "-R|--dereference-recursive": {},
    "--include": { value: "text" },
    "--exclude": { value: "text" },
    "--exclude-from": { value: "read" },
    "--exclude-dir": { value: "text" },
    "-L|--files-without-match": {},
    "-l|--files-with-matches": {},
    "-c|--count": {},
    "-T|--initial-tab": {},
    "-Z|--null": {},
    "-B|--before-context": { value: "number" },
    "-A|--after-context": { value: "number" },
    "-C|--context": { value: "number" },
    "--group-separator": { value: "text" },
    "--no-group-separator": {},
    "--color|--colour": { value: one_of("never", "always", "auto"), optional_value: true },
    "-U|--binary": {},
  },
  operands: (seen) => (pattern_first(seen, "-e", "-f") ? { first: ["text"], rest: grep_depth(seen) } : { rest: grep_depth(seen) }),
  check: (matched, seen, operands) => search_here(matched, operands, pattern_first(seen, "-e", "-f"), grep_depth(seen)),
};

/** `-u` once still skips hidden files, but it is not counted here: any `-u` is read as `-uu`, which does not. */
function rg_depth(seen: Seen): Walk {
  if (seen.has("-L")) return "linked_tree";
  return seen.has("--hidden") || seen.has("-u") ? "tree" : "visible_tree";
}

const rg_patterns = (seen: Seen): boolean => pattern_first(seen, "-e", "-f", "--files", "--type-list");

// rg(1), ripgrep 14: `rg [OPTIONS] PATTERN [PATH ...]`, `rg [OPTIONS] -e PATTERN ... [PATH ...]`,
// `rg [OPTIONS] -f PATTERNFILE ... [PATH ...]`, `rg [OPTIONS] --files [PATH ...]`, `rg [OPTIONS] --type-list`. It
// walks every path (`.` when none) skipping hidden and ignored files; `--pre` and `--hostname-bin` run programs,
// `-z` runs decompression programs
const RG: ProgramSpec = {
  rule: "rg",
  manual: "rg(1), ripgrep 14.1",
  category: "read_only",
  options: {
    "-A|--after-context": { value: "number" },
    "-B|--before-context": { value: "number" },
    "-C|--context": { value: "number" },
    "--binary": {},
    "--no-binary": {},
    "--block-buffered": {},
    "-b|--byte-offset": {},
    "-s|--case-sensitive": {},
    "--color": { value: one_of("never", "auto", "always", "ansi") },
    "--colors": { value: "text" },
    "--column": {},
    "--no-column": {},
    "--context-separator": { value: "text" },
    "--no-context-separator": {},
    "-c|--count": {},
    "--count-matches": {},
    "--crlf": {},
    "--debug": {},
    "--trace": {},
    "--dfa-size-limit": { value: "number" },
    "-E|--encoding": { value: "text" },
    "--engine": { value: one_of("default", "pcre2", "auto") },
    "--field-context-separator": { value: "text" },
    "--field-match-separator": { value: "text" },
    "-f|--file": { value: "read" },
    "--files": {},
    "-l|--files-with-matches": {},
    "--files-without-match": {},
    "-F|--fixed-strings": {},
    "--no-fixed-strings": {},
    "-L|--follow": {},
    "--no-follow": {},
    "-g|--glob": { value: "text" },
    "--glob-case-insensitive": {},
    "--iglob": { value: "text" },
    "-h|--help": {},
    "--heading": {},
    "--no-heading": {},
    "--hidden|-.": {},
    "--no-hidden": {},
    "--hostname-bin": { value: "command" },
    "--hyperlink-format": { value: "text" },
    "-i|--ignore-case": {},
    "--ignore-file": { value: "read" },
    "--ignore-file-case-insensitive": {},
    "--include-zero": {},
    "-v|--invert-match": {},
    "--json": {},
    "--no-json": {},
    "--line-buffered": {},
    "-n|--line-number": {},
    "-N|--no-line-number": {},
    "-x|--line-regexp": {},
    "-M|--max-columns": { value: "number" },
    "--max-columns-preview": {},
    "-m|--max-count": { value: "number" },
    "-d|--max-depth|--maxdepth": { value: "number" },
    "--max-filesize": { value: "number" },
    "--mmap": {},
    "--no-mmap": {},
    "-U|--multiline": {},
    "--multiline-dotall": {},
    "--no-config": {},
    "-I|--no-filename": {},
    "-H|--with-filename": {},
    "--no-ignore": {},
    "--no-ignore-dot": {},
    "--no-ignore-exclude": {},
    "--no-ignore-files": {},
    "--no-ignore-global": {},
    "--no-ignore-parent": {},
    "--no-ignore-vcs": {},
    "--no-messages": {},
    "--no-pcre2-unicode": {},
    "--no-require-git": {},
    "--no-unicode": {},
    "-0|--null": {},
    "--null-data": {},
    "--one-file-system": {},
    "-o|--only-matching": {},
    "--passthru": {},
    "--path-separator": { value: "text" },
    "-P|--pcre2": {},
    "--no-pcre2": {},
    "--pcre2-version": {},
    "--pre": { value: "command" },
    "--no-pre": {},
    "--pre-glob": { value: "text" },
    "-p|--pretty": {},
    "-q|--quiet": {},
    "--regex-size-limit": { value: "number" },
    "-e|--regexp": { value: "text" },
    "-r|--replace": { value: "text" },
    "-z|--search-zip": { ask: "runs decompression programs on the files it searches" },
    "--no-search-zip": {},
    "-S|--smart-case": {},
    "--sort": { value: one_of("none", "path", "modified", "accessed", "created") },
    "--sortr": { value: one_of("none", "path", "modified", "accessed", "created") },
    "--stats": {},
    "--stop-on-nonmatch": {},
    "-a|--text": {},
    "-j|--threads": { value: "number" },
    "--trim": {},
    "-t|--type": { value: "text" },
    "--type-add": { value: "text" },
    "--type-clear": { value: "text" },
    "--type-list": {},
    "-T|--type-not": { value: "text" },
    "-u|--unrestricted": {},
    "-V|--version": {},
    "--vimgrep": {},
    "-w|--word-regexp": {},
  },
  operands: (seen) => (rg_patterns(seen) ? { first: ["text"], rest: rg_depth(seen) } : { rest: rg_depth(seen) }),
  check: (matched, seen, operands) => {
    if (!seen.has("--type-list")) search_here(matched, operands, rg_patterns(seen), rg_depth(seen));
  },
};

function ag_depth(seen: Seen): Walk {
  if (seen.has("-f")) return "linked_tree";
  return seen.has("--hidden") || seen.has("-u") ? "tree" : "visible_tree";
}

// ag(1), the_silver_searcher 2.2: `ag [options] pattern [path ...]`, `ag -g pattern [path ...]`: it walks every
// path (`.` when none) skipping hidden and ignored files, following symlinks with `-f`; `--pager` runs a program
const AG: ProgramSpec = {
  rule: "ag",
  manual: "ag(1), the_silver_searcher 2.2",
  category: "read_only",
  options: {
    "--ackmate": {},
    "-a|--all-types": {},
    "-A|--after": { value: "number" },
    "-B|--before": { value: "number" },
    "-C|--context": { value: "number" },
    "--break": {},
    "--nobreak": {},
    "-c|--count": {},
    "--color": {},
    "--nocolor": {},
    "--color-line-number|--color-match|--color-path": { value: "text" },
    "--column": {},
    "-D|--debug": {},
    "--depth": { value: "number" },
    "-f|--follow": {},
    "-F|-Q|--fixed-strings|--literal": {},
    "--filename": {},
    "--nofilename": {},
    "-g": { value: "text" },
    "-G|--file-search-regex": { value: "text" },
    "--group": {},
    "--nogroup": {},
    "--heading": {},
    "--noheading": {},
    "--hidden": {},
    "-i|--ignore-case": {},
    "--ignore": { value: "text" },
    "--ignore-dir": { value: "text" },
    "-l|--files-with-matches": {},
    "-L|--files-without-matches": {},
    "--list-file-types": {},
    "-m|--max-count": { value: "number" },
    "--numbers": {},
    "--nonumbers": {},
    "-n|--norecurse": {},
    "-o|--only-matching": {},
    "-p|--path-to-ignore": { value: "read" },
    "--pager": { value: "command" },
    "--passthrough|--passthru": {},
    "--print-long-lines": {},
    "-0|--null|--print0": {},
    "-r|--recurse": {},
    "-s|--case-sensitive": {},
    "-S|--smart-case": {},
    "--search-binary": {},
    "--silent": {},
    "--stats": {},
    "-t|--all-text": {},
    "-u|--unrestricted": {},
    "-U|--skip-vcs-ignores": {},
    "-v|--invert-match": {},
    "--vimgrep": {},
    "-w|--word-regexp": {},
    "--workers": { value: "number" },
    "-z|--search-zip": {},
    "-h|--help": {},
    "-V|--version": {},
  },
  operands: (seen) => (pattern_first(seen, "-g", "--list-file-types") ? { first: ["text"], rest: ag_depth(seen) } : { rest: ag_depth(seen) }),
  check: (matched, seen, operands) => search_here(matched, operands, pattern_first(seen, "-g", "--list-file-types"), ag_depth(seen)),
};

function fd_depth(seen: Seen): Walk {
  if (seen.has("-L")) return "linked_tree";
  return seen.has("-H") || seen.has("-u") ? "tree" : "visible_tree";
}

const FD_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  "-H|--hidden": {},
  "-I|--no-ignore": {},
  "--no-ignore-vcs": {},
  "--no-ignore-parent": {},
  "--no-require-git": {},
  "-u|--unrestricted": {},
  "-s|--case-sensitive": {},
  "-i|--ignore-case": {},
  "-g|--glob": {},
  "--regex": {},
  "-F|--fixed-strings": {},
  "--and": { value: "text" },
  "-a|--absolute-path": {},
  "-l|--list-details": {},
  "-L|--follow": {},
  "-p|--full-path": {},
  "-0|--print0": {},
  "-d|--max-depth|--maxdepth": { value: "number" },
  "--min-depth": { value: "number" },
  "--exact-depth": { value: "number" },
  "-E|--exclude": { value: "text" },
  "--prune": {},
  "-t|--type": { value: "text" },
  "-e|--extension": { value: "text" },
  "-S|--size": { value: "text" },
  "--changed-within|--changed-before|--newer|--older": { value: "text" },
  "-o|--owner": { value: "text" },
  "--format": { value: "text" },
  "--batch-size": { value: "number" },
  "--ignore-file": { value: "read" },
  "-c|--color": { value: one_of("never", "auto", "always") },
  "--hyperlink": { value: one_of("never", "auto", "always"), optional_value: true },
  "-j|--threads": { value: "number" },
  "--max-results": { value: "number" },
  "-1": {},
  "-q|--quiet": {},
  "--show-errors": {},
  "--path-separator": { value: "text" },
  "--search-path": { value: "text" },
  "--strip-cwd-prefix": { value: one_of("never", "always", "auto"), optional_value: true },
  "--one-file-system|--mount|--xdev": {},
  "-h|--help": {},
  "-V|--version": {},
};

/**
 * The paths an fd command searches (`.` when none), as its grammar found them, and how they are read: only
 * listed, or opened by an `--exec` command, which follows the symlinks found unless `--type` keeps them out.
 */
const FD_SEARCH = new WeakMap<Matched, { readonly paths: readonly ShellWord[]; readonly listed: ReadDepth; readonly opened: ReadDepth }>();
const NOT_LINKS = new Set(["f", "file", "d", "dir", "directory"]);

// fd(1), fd 10: `fd [OPTIONS] [pattern] [path...]`: it lists the entries below every path (`.` when none),
// skipping hidden and ignored ones; `-x`/`--exec` and `-X`/`--exec-batch` take the arguments up to a `;` as a
// command run on the entries found, which is cut out before the grammar reads the rest
const FD = program_rule(
  {
    rule: "fd",
    manual: "fd(1), fd 10.1",
    category: "read_only",
    options: FD_OPTIONS,
    operands: { first: ["text"], rest: "text" },
    check: (matched, seen, operands) => {
      const paths = [...operands.slice(1), ...(seen.get("--search-path") ?? [])];
      const walk = fd_depth(seen);
      const types = seen.get("-t") ?? [];
      const no_links = types.length > 0 && types.every((type) => NOT_LINKS.has(type.value));
      FD_SEARCH.set(matched, {
        paths: paths.length === 0 ? [literal_word(".")] : paths,
        listed: walk === "linked_tree" ? walk : "path",
        opened: no_links ? walk : "linked_tree",
      });
    },
  },
  ["fd", "fdfind"],
);

const FD_EXEC = new Set(["-x", "--exec", "-X", "--exec-batch"]);
const FD_PLACEHOLDER = { whole: /^\{(|\.|\/\/)\}$/, inside: /\{(|\/|\/\/|\.|\/\.)\}/ };

/**
 * fd with its `--exec` commands read apart: one per search path, `{}`, `{.}` and `{//}` standing for the
 * entries found there; a command without a placeholder gets `{}` at its end, as fd gives it.
 */
const FD_RULE: ProgramRule = {
  names: FD.names,
  match(args) {
    const rest: ShellWord[] = [];
    const commands: { via: string; words: readonly ShellWord[] }[] = [];
    for (let index = 0; index < args.length; index += 1) {
      // biome-ignore lint/style/noNonNullAssertion: index < args.length
      const word = args[index]!;
      if (!word.literal || !FD_EXEC.has(word.value)) {
        rest.push(word);
        continue;
      }
      const end = args.findIndex((next, at) => at > index && next.literal && next.value === ";");
      commands.push({ via: `fd ${word.value}`, words: args.slice(index + 1, end === -1 ? undefined : end) });
      index = end === -1 ? args.length : end;
    }
    const matched = FD.match(rest);
    for (const word of rest) if (!word.literal) matched.ask(`${word.value} is only known at run time, and may be an fd option that runs a command`);
    const { paths, listed, opened } = FD_SEARCH.get(matched) ?? { paths: [literal_word(".")], listed: "path", opened: "linked_tree" };
    for (const path of paths) matched.read(path, commands.length > 0 ? opened : listed);
    for (const { via, words } of commands) {
      if (words.length === 0) matched.ask(`${via} is missing its command`);
      const placed = words.some((word) => FD_PLACEHOLDER.inside.test(word.value)) ? words : [...words, literal_word("{}")];
      run_on_found(matched, placed, paths, via, FD_PLACEHOLDER);
    }
    return matched;
  },
};

/** Programs that search file contents and names: grep, ripgrep, the silver searcher, fd. */
export const SEARCH_RULES: readonly ProgramRule[] = [program_rule(GREP, ["grep", "egrep", "fgrep"]), program_rule(RG), program_rule(AG), FD_RULE];

import type { ShellWord } from "./types.js";
import { literal_word, split_option } from "./words.js";

/**
 * The file arguments of `sed`, `awk` and `git`, which the generic path check cannot read because one
 * of their words is a script or program rather than a path. Everything else they are given is judged
 * as a path: read, or written (`sed -i`, `git diff --output`, `git format-patch -o`).
 */
export type FileArguments = {
  /** Script or program texts (sed scripts, the awk program); never judged as paths. */
  readonly scripts: ShellWord[];
  /** Files holding a script or program (`sed -f`, `awk -f`): read, and code this analyzer does not read. */
  readonly program_files: ShellWord[];
  readonly reads: ShellWord[];
  readonly writes: ShellWord[];
};

const empty = (): FileArguments => ({ scripts: [], program_files: [], reads: [], writes: [] });

/** sed options that take a value as the next word (or attached). */
const SED_VALUED_LONG = new Set(["--expression", "--file", "--line-length"]);

/**
 * `sed [-n] [-i[SUF]] [-e SCRIPT | -f FILE]… [SCRIPT] FILE…`. Short options may be clustered, and `i`
 * takes the rest of its cluster as a suffix (`-ie` is in place with suffix `e`, not `-i -e`).
 * `sed -i '' …` (the BSD idiom) is read both ways: `''` as the suffix and as the script.
 */
export function sed_arguments(args: readonly ShellWord[]): FileArguments {
  const out = empty();
  let in_place = false;
  let explicit = false;
  let bsd_suffix = false;
  const operands: ShellWord[] = [];
  let options_done = false;
  for (let index = 0; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const arg = args[index]!;
    const value = arg.value;
    if (options_done || !arg.literal || !value.startsWith("-") || value === "-") {
      operands.push(arg);
      continue;
    }
    if (value === "--") {
      options_done = true;
      continue;
    }
    if (value.startsWith("--")) {
      const { option, attached } = split_option(value);
      const next = () => {
        if (attached !== undefined) return attached;
        index += 1;
        return args[index];
      };
      if (option === "--in-place") in_place = true;
      else if (option === "--expression") {
        explicit = true;
        const script = next();
        if (script !== undefined) out.scripts.push(script);
      } else if (option === "--file") {
        explicit = true;
        const file = next();
        if (file !== undefined) out.program_files.push(file);
      } else if (SED_VALUED_LONG.has(option)) next();
      continue;
    }
    for (let at = 1; at < value.length; at += 1) {
      const flag = value.charAt(at);
      const rest = value.slice(at + 1);
      if (flag === "i") {
        in_place = true;
        const following = args[index + 1];
        if (rest === "" && following?.literal === true && following.value === "") bsd_suffix = true;
        break;
      }
      if (flag === "e" || flag === "f" || flag === "l") {
        const taken = rest !== "" ? literal_word(rest) : args[index + 1];
        if (rest === "") index += 1;
        if (flag === "e") {
          explicit = true;
          if (taken !== undefined) out.scripts.push(taken);
        } else if (flag === "f") {
          explicit = true;
          if (taken !== undefined) out.program_files.push(taken);
        }
        break;
      }
    }
  }
  let files = operands;
  const [first, ...others] = operands;
  if (!explicit && first !== undefined) {
    out.scripts.push(first);
    files = others;
    // BSD `sed -i '' SCRIPT FILE…`: the word after '' is the script there and a file for GNU sed.
    if (bsd_suffix && first.value === "" && others[0] !== undefined) out.scripts.push(others[0]);
  }
  for (const file of files) (in_place ? out.writes : out.reads).push(file);
  return out;
}

/** awk options that take a value as the next word (or attached to the short form). */
const AWK_VALUED_SHORT = new Set(["F", "v", "f", "i", "l", "E", "W"]);
const AWK_VALUED_LONG = new Set(["--field-separator", "--assign", "--file", "--include", "--load", "--exec"]);

/** `awk [-F SEP] [-v VAR=VAL]… (-f FILE… | PROGRAM) FILE…`; `VAR=VAL` operands are assignments. */
export function awk_arguments(args: readonly ShellWord[]): FileArguments {
  const out = empty();
  let program_files = false;
  const operands: ShellWord[] = [];
  let options_done = false;
  for (let index = 0; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const arg = args[index]!;
    const value = arg.value;
    if (options_done || operands.length > 0 || !arg.literal || !value.startsWith("-") || value === "-") {
      operands.push(arg);
      continue;
    }
    if (value === "--") {
      options_done = true;
      continue;
    }
    if (value.startsWith("--")) {
      const { option, attached } = split_option(value);
      let taken: ShellWord | undefined;
      if (AWK_VALUED_LONG.has(option)) {
        taken = attached ?? args[++index];
      }
      if ((option === "--file" || option === "--exec" || option === "--include") && taken !== undefined) {
        if (option !== "--include") program_files = true;
        out.program_files.push(taken);
      }
      continue;
    }
    const flag = value.charAt(1);
    if (!AWK_VALUED_SHORT.has(flag)) continue;
    const taken = value.length > 2 ? literal_word(value.slice(2)) : args[++index];
    if ((flag === "f" || flag === "E" || flag === "i") && taken !== undefined) {
      if (flag !== "i") program_files = true;
      out.program_files.push(taken);
    }
  }
  let files = operands;
  const [program, ...others] = operands;
  if (!program_files && program !== undefined) {
    out.scripts.push(program);
    files = others;
  }
  for (const file of files) {
    if (file.literal && /^[A-Za-z_][A-Za-z0-9_]*=/.test(file.value)) continue;
    out.reads.push(file);
  }
  return out;
}

const GIT_GLOBAL_PATHS = new Set(["-C", "--git-dir", "--work-tree", "--exec-path"]);
const GIT_GLOBAL_VALUED = new Set(["-c", "--namespace", "--config-env", "--super-prefix", "--list-cmds"]);

/**
 * `git [global options] SUBCOMMAND ARGS…`: `-C`, `--git-dir`, `--work-tree`, `--exec-path` are paths;
 * every later word is judged as a path too (revisions such as `HEAD~1` resolve inside the project and
 * pass), except the values of `--output`/`-o`, which are written.
 */
export function git_arguments(args: readonly ShellWord[]): FileArguments {
  const out = empty();
  let index = 0;
  for (; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const arg = args[index]!;
    const value = arg.value;
    if (!arg.literal || !value.startsWith("-")) break;
    const { option, attached } = split_option(value);
    if (GIT_GLOBAL_PATHS.has(option)) {
      const taken = attached ?? args[++index];
      if (taken !== undefined) out.reads.push(taken);
    } else if (GIT_GLOBAL_VALUED.has(option) && attached === undefined) index += 1;
  }
  const subcommand = args[index]?.value;
  for (index += 1; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const arg = args[index]!;
    const value = arg.value;
    if (arg.literal && (value === "--output" || (value === "-o" && subcommand === "format-patch") || value === "--output-directory")) {
      const taken = args[++index];
      if (taken !== undefined) out.writes.push(taken);
    } else if (arg.literal && (value.startsWith("--output=") || value.startsWith("--output-directory="))) {
      out.writes.push(literal_word(value.slice(value.indexOf("=") + 1)));
    } else if (arg.literal && value.startsWith("-")) continue;
    else out.reads.push(arg);
  }
  return out;
}

import { judge_value, program_rule } from "../grammar/declarative.js";
import type { Matched } from "../grammar/matched.js";
import type { ProgramRule, Seen, ValueKind } from "../grammar/types.js";
import type { ShellWord } from "../types.js";
import { one_of } from "./common.js";

/** A name in a jq or yq filter, by how it is used: called (`env`), a variable (`$ENV`), a field (`.env`) or an object key (`{env: 1}`). */
type Name = { readonly name: string; readonly use: "call" | "variable" | "field" | "key" };

/**
 * The names a jq filter (jq 1.7 manual, "jq language") uses, strings' interpolations (`"\(env)"`) included
 * and comments dropped. A name right after `.` is a field; after `$`, a variable; at a key's place in an
 * object (after `{` or `,` there) and followed by `:`, a key. Anything else is a call, which is what an
 * unsure reading falls back to (`. env`, with a blank after the dot, is not a field). `undefined` when a
 * string or interpolation does not end.
 */
function filter_names(filter: string): Name[] | undefined {
  const names: Name[] = [];
  /** Open brackets: `{`, `(`, `[`, and `\(` for an interpolation (closed by `)`, after which the string goes on). */
  const open: string[] = [];
  let i = 0;
  const n = filter.length;
  let previous = "";
  /** Whether blanks or a comment came between the previous token and this one. */
  let gap = false;
  const string = (): boolean => {
    i += 1;
    while (i < n) {
      const c = filter[i];
      if (c === '"') {
        i += 1;
        return true;
      }
      if (c === "\\" && filter[i + 1] === "(") {
        open.push("\\(");
        i += 2;
        return true;
      }
      i += c === "\\" ? 2 : 1;
    }
    return false;
  };
  while (i < n) {
    const c = filter.charAt(i);
    if (/\s/.test(c)) {
      i += 1;
      gap = true;
      continue;
    }
    if (c === "#") {
      while (i < n && filter[i] !== "\n" && filter[i] !== "\r") i += 1;
      gap = true;
      continue;
    }
    const spaced = gap;
    gap = false;
    if (c === '"') {
      if (!string()) return undefined;
      previous = '"';
      continue;
    }
    if (c === ")" && open.at(-1) === "\\(") {
      open.pop();
      i -= 1;
      if (!string()) return undefined;
      previous = '"';
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*/.exec(filter.slice(i))?.[0];
    if (word !== undefined) {
      const after = filter.slice(i + word.length).trimStart();
      const at_key = open.at(-1) === "{" && (previous === "{" || previous === ",");
      const field = previous === "." && !spaced;
      const use = field ? "field" : previous === "$" ? "variable" : at_key && /^[:,}]/.test(after) && !after.startsWith("::") ? "key" : "call";
      names.push({ name: word, use });
      previous = "name";
      i += word.length;
      continue;
    }
    if (c === "{" || c === "(" || c === "[") open.push(c);
    else if (c === "}" || c === ")" || c === "]") open.pop();
    // `..` (recurse) is not a field access: the name after it is read as a call
    previous = c === "." && filter[i + 1] === "." ? ".." : c;
    i += c === "." && filter[i + 1] === "." ? 2 : 1;
  }
  return open.includes("\\(") ? undefined : names;
}

/** jq builtins and keywords that reach outside the input: the environment, and modules read from files. */
function jq_findings(names: readonly Name[], matched: Matched, via: string): void {
  if (names.some(({ name, use }) => (name === "env" && use === "call") || (name === "ENV" && use === "variable")))
    matched.ask(`${via} reads the environment (env, $ENV), which may hold secrets`, "credential_sensitive");
  if (names.some(({ name, use }) => use === "call" && (name === "import" || name === "include" || name === "modulemeta")))
    matched.ask(`${via} loads modules from files this analyzer does not read`);
}

/** yq operators that reach outside the input: the environment, files, other expressions, commands. */
function yq_findings(names: readonly Name[], matched: Matched): void {
  const calls = names.filter(({ use }) => use === "call").map(({ name }) => name);
  if (calls.some((name) => name === "strenv" || name === "envsubst"))
    matched.ask("the yq expression reads the environment (env, strenv, envsubst), which may hold secrets", "credential_sensitive");
  if (calls.some((name) => name.startsWith("load") || name === "strload")) matched.ask("the yq expression loads a file (load, load_str …)");
  if (calls.includes("eval")) matched.ask("the yq expression evaluates an expression built at run time (eval)");
  if (calls.includes("system")) matched.ask("the yq expression runs a command (system)");
}

/** A filter or expression given on the command line, read for the names it uses; `findings` judges them. */
function judge_filter(word: ShellWord, matched: Matched, via: string, findings: (names: readonly Name[]) => void): void {
  if (!word.literal) {
    matched.ask(`the ${via} ${word.value} is only known at run time`);
    return;
  }
  const names = filter_names(word.value);
  if (names === undefined) matched.ask(`the ${via} cannot be read: a string or interpolation does not end`);
  else findings(names);
}

const JQ_FILTER: ValueKind = { judge: (word, matched) => judge_filter(word, matched, "jq filter", (names) => jq_findings(names, matched, "the jq filter")) };

/** `jq -f FILE`, `yq --from-file FILE`: the filter is in a file, read but not judged. */
const FILTER_FILE: ValueKind = {
  judge: (word: ShellWord, matched: Matched) => {
    matched.read(word);
    matched.ask(`the filter in ${word.value} is not read by this analyzer`);
  },
};

/** jq's options that take two words (`--arg NAME VALUE`), by the kind of the second. */
const PAIRS: Readonly<Record<string, ValueKind>> = { "--arg": "text", "--argjson": "text", "--slurpfile": "read", "--rawfile": "read" };
/** jq's options taking one value, which the pairs' scan must step over. */
const SINGLE = new Set(["--indent", "-L", "--library-path"]);

const jq_filter_operand = (seen: Seen): ValueKind => (seen.has("-f") ? FILTER_FILE : JQ_FILTER);

// jq(1), jq 1.7: `jq [options...] filter [files...]`, `jq [options...] --args filter [strings...]`,
// `jq [options...] --jsonargs filter [JSON_TEXTS...]`; `-f` makes the first operand the file holding the filter
const JQ = program_rule({
  rule: "jq",
  manual: "jq(1), jq 1.7",
  category: "read_only",
  options: {
    "-n|--null-input": {},
    "-R|--raw-input": {},
    "-s|--slurp": {},
    "-c|--compact-output": {},
    "-r|--raw-output": {},
    "--raw-output0": {},
    "-j|--join-output": {},
    "-a|--ascii-output": {},
    "-S|--sort-keys": {},
    "-C|--color-output": {},
    "-M|--monochrome-output": {},
    "--tab": {},
    "--indent": { value: "number" },
    "--unbuffered": {},
    "--stream": {},
    "--stream-errors": {},
    "--seq": {},
    "-e|--exit-status": {},
    "-f|--from-file": {},
    "-L|--library-path": { value: "read", ask: "loads jq modules from that folder, which this analyzer does not read" },
    "--args": {},
    "--jsonargs": {},
    "-h|--help": {},
    "-V|--version": {},
    "--build-configuration": {},
  },
  operands: (seen) => ({ first: [jq_filter_operand(seen)], rest: seen.has("--args") || seen.has("--jsonargs") ? "text" : "read" }),
});

/** jq with its two-word options (`--arg NAME VALUE`, `--rawfile NAME FILE`) taken out before the grammar reads the rest. */
const JQ_RULE: ProgramRule = {
  names: ["jq"],
  match(args) {
    const rest: ShellWord[] = [];
    const pairs: { option: string; kind: ValueKind; value: ShellWord | undefined }[] = [];
    for (let index = 0; index < args.length; index += 1) {
      // biome-ignore lint/style/noNonNullAssertion: index < args.length
      const word = args[index]!;
      const pair = word.literal ? PAIRS[word.value] : undefined;
      if (word.literal && word.value === "--") {
        rest.push(...args.slice(index));
        break;
      }
      if (pair === undefined) {
        rest.push(word);
        if (word.literal && SINGLE.has(word.value) && args[index + 1] !== undefined) rest.push(args[++index] as ShellWord);
        continue;
      }
      pairs.push({ option: word.value, kind: pair, value: args[index + 2] });
      index += 2;
    }
    const matched = JQ.match(rest);
    for (const { option, kind, value } of pairs) {
      if (value === undefined) matched.ask(`jq ${option} takes a name and a value`);
      else judge_value(kind, value, `jq ${option}`, matched);
    }
    return matched;
  },
};

function judge_yq_expression(word: ShellWord, matched: Matched): void {
  judge_filter(word, matched, "yq expression", (names) => {
    yq_findings(names, matched);
    // a `yq` that is the jq wrapper (kislyuk's yq) reads the same words as jq
    jq_findings(names, matched, "the yq expression");
  });
}

/**
 * yq's operands after its options: a leading `eval`/`e`/`eval-all`/`ea` command word, the expression unless
 * `--expression` gives it, then the files (written with `-i`). yq takes a first operand naming an existing
 * file for a file, so it is judged both as the expression and as a file read.
 */
function yq_operands(matched: Matched, seen: Seen, operands: readonly ShellWord[]): void {
  const commands = ["eval", "e", "eval-all", "ea"];
  const rest = operands[0]?.literal === true && commands.includes(operands[0].value) ? operands.slice(1) : operands;
  const [first, ...files] = rest;
  for (const expression of seen.get("--expression") ?? []) judge_yq_expression(expression, matched);
  if (first === undefined) return;
  if (!seen.has("--expression") && !seen.has("--from-file")) {
    judge_yq_expression(first, matched);
    matched.read(first);
  } else files.unshift(first);
  for (const file of files) {
    if (seen.has("-i")) matched.write(file);
    else matched.read(file);
  }
}

/** A flag that may be spelt with its value (`--unwrapScalar=false`). */
const BOOLEAN = one_of("true", "false");

// yq(1), mikefarah yq 4: `yq [eval|eval-all] [flags] [expression] [file...]`
const YQ_RULE = program_rule({
  rule: "yq",
  manual: "yq(1), mikefarah yq 4.44",
  category: "read_only",
  options: {
    "-C|--colors": {},
    "-M|--no-colors": {},
    "-e|--exit-status": {},
    "--expression": { value: "text" },
    "--from-file": { value: FILTER_FILE },
    "-f|--front-matter": { value: one_of("extract", "process") },
    "--header-preprocess": { value: BOOLEAN, optional_value: true },
    "-h|--help": {},
    "-I|--indent": { value: "number" },
    "-i|--inplace": {},
    "-p|--input-format": { value: "text" },
    "-o|--output-format": { value: "text" },
    "-P|--prettyPrint": {},
    "-n|--null-input": {},
    "-N|--no-doc": {},
    "-0|--nul-output": {},
    "-r": {},
    "--unwrapScalar": { value: BOOLEAN, optional_value: true },
    "-s|--split-exp": { value: "text", ask: "writes a file for every document, named by an expression" },
    "--split-exp-file": { value: "read", ask: "writes a file for every document, named by an expression" },
    "-v|--verbose": {},
    "-V|--version": {},
    "--csv-auto-parse|--tsv-auto-parse": { value: BOOLEAN, optional_value: true },
    "--csv-separator|--properties-separator": { value: "text" },
    "--xml-attribute-prefix|--xml-content-name|--xml-directive-name|--xml-proc-inst-prefix": { value: "text" },
    "--xml-keep-namespace|--xml-raw-token|--xml-skip-directives|--xml-skip-proc-inst|--xml-strict-mode": {
      value: BOOLEAN,
      optional_value: true,
    },
    "--security-disable-env-ops|--security-disable-file-ops": {},
  },
  operands: { rest: "text" },
  check: yq_operands,
});

/** JSON and YAML processors: their filters are a language that can read the environment and files. */
export const JSON_RULES: readonly ProgramRule[] = [JQ_RULE, YQ_RULE];

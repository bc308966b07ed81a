import type { SyntaxNode, Word } from "unbash";
import type { ShellWord } from "./types.js";
import { literal_word, shell_word } from "./words.js";

/**
 * What a script does with its variables, as far as the analyzer needs it: the values each name may hold
 * (literal assignments, `for` lists; a non-literal word for values only known at run time), and the names
 * bash *evaluates* — arithmetic (`$((x))`, `(( ))`, `let`, `[[ x -eq 1 ]]`, `declare -i`, array subscripts,
 * substring offsets) and variable-name contexts (`${!x}`, `printf -v "$x"`, `read "$x"`, `unset "$x"`,
 * `[[ -v $x ]]`). Evaluating `x='a[$(cmd)]'` in any of those runs `cmd`.
 */
export type Variables = {
  readonly bindings: Map<string, ShellWord[]>;
  readonly evaluated: Set<string>;
};

const UNKNOWN = (text: string): ShellWord => ({ value: text, literal: false, glob: false });
const REFERENCE = /\$\{?!?([A-Za-z_]\w*|[0-9@*#?$!-])/g;
const NUMBER = /\b(?:\d+#[0-9A-Za-z@_]+|0[xX][0-9A-Fa-f]+|\d+)\b/g;
const ARITHMETIC_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
const ASSIGNING = /^(?:[-+*/%&|^]|<<|>>)?=$/;
/** Builtins that take variable names: a `$x` among their arguments names a variable by x's value. */
const NAME_TAKING = new Set(["read", "unset", "printf", "declare", "typeset", "local", "export", "readonly", "mapfile", "readarray", "wait", "getopts"]);
/** Builtins that store into the variables named by their literal arguments values only known at run time. */
const STORING = new Set(["read", "mapfile", "readarray", "getopts"]);

/** Names an arithmetic expression reads: bare identifiers and `$x` / `${x}` references (numbers and substitutions aside). */
export function arithmetic_names(text: string): string[] {
  const stripped = text.replace(/\$\((?!\()[^)]*\)|`[^`]*`/g, " ");
  const bare = stripped.replace(REFERENCE, " ").replace(NUMBER, " ");
  return [...referenced_names(stripped), ...[...bare.matchAll(/[A-Za-z_]\w*/g)].map((match) => match[0])];
}

/** Names referenced with `$`: `$x`, `${x}`, `${x[0]}`, `${!x}`. */
function referenced_names(text: string): string[] {
  // biome-ignore lint/style/noNonNullAssertion: REFERENCE's one group is not optional
  return [...text.matchAll(REFERENCE)].map((match) => match[1]!);
}

export function new_variables(): Variables {
  return { bindings: new Map(), evaluated: new Set() };
}

function bind(variables: Variables, name: string, value: ShellWord): void {
  const values = variables.bindings.get(name) ?? [];
  values.push(value);
  variables.bindings.set(name, values);
}

function evaluate(variables: Variables, names: readonly string[]): void {
  for (const name of names) variables.evaluated.add(name);
}

/** `x=$((…))`: the value is a number, whatever the expression (whose own names are evaluated where it stands). */
function arithmetic_value(value: Word): boolean {
  return value.parts?.length === 1 && value.parts[0]?.type === "ArithmeticExpansion";
}

/** The names a `let` expression assigns: `x=…`, `x+=…`, `x++`, `++x`; they then hold numbers. */
const LET_ASSIGNED = /([A-Za-z_]\w*)\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|([A-Za-z_]\w*)\s*(?:\+\+|--)|(?:\+\+|--)\s*([A-Za-z_]\w*)/g;

/** Assignments, arithmetic and name-taking builtins of one simple command. */
function command_variables(variables: Variables, node: Extract<SyntaxNode, { type: "Command" }>): void {
  const name = node.name?.value ?? "";
  const words = node.args.filter((arg): arg is Word => arg.type === "Word");
  const integer = ["declare", "typeset", "local", "export", "readonly"].includes(name) && words.some((word) => /^-[a-zA-Z]*i/.test(word.value));
  for (const arg of [...node.prefix, ...node.args]) {
    if (arg.type !== "Assignment") continue;
    const values = arg.value.type === "Word" ? [arg.value] : arg.value.elements;
    for (const value of values) bind(variables, arg.name, arithmetic_value(value) ? literal_word("0") : shell_word(value));
    if (integer && arg.value.type === "Word") evaluate(variables, arithmetic_names(arg.value.text));
  }
  if (name === "let") {
    for (const word of words) {
      evaluate(variables, arithmetic_names(word.text));
      for (const match of word.value.matchAll(LET_ASSIGNED)) bind(variables, match[1] ?? match[2] ?? match[3] ?? "", literal_word("0"));
    }
  }
  if (!NAME_TAKING.has(name)) return;
  // printf takes a name only after -v: its other arguments are printed, never evaluated
  const names = name === "printf" ? words.filter((_, index) => words[index - 1]?.value === "-v") : words;
  for (const word of names) if (!shell_word(word).literal) evaluate(variables, referenced_names(word.text));
  const stores = STORING.has(name) || name === "printf";
  if (!stores) return;
  words.forEach((word, index) => {
    const taken = name === "printf" ? words[index - 1]?.value === "-v" : !word.value.startsWith("-");
    if (taken && /^[A-Za-z_]\w*$/.test(word.value)) bind(variables, word.value, UNKNOWN(`$${word.value}`));
  });
}

/** Records what `node` (one node of the syntax tree, visited once) binds and evaluates. */
export function visit_variables(variables: Variables, node: SyntaxNode): void {
  switch (node.type) {
    case "Command":
      command_variables(variables, node);
      break;
    case "For":
    case "Select":
      if (node.wordlist === undefined) bind(variables, node.name.value, UNKNOWN("$@"));
      else for (const word of node.wordlist) bind(variables, node.name.value, shell_word(word));
      break;
    case "Assignment":
      if (node.index !== undefined) evaluate(variables, arithmetic_names(node.index.text));
      break;
    case "ArithmeticWord":
      evaluate(variables, arithmetic_names(node.value));
      break;
    case "ArithmeticBinary":
      if (ASSIGNING.test(node.operator) && node.left.type === "ArithmeticWord" && /^[A-Za-z_]\w*$/.test(node.left.value))
        bind(variables, node.left.value, literal_word("0"));
      break;
    case "ArithmeticUnary":
      if ((node.operator === "++" || node.operator === "--") && node.operand.type === "ArithmeticWord") bind(variables, node.operand.value, literal_word("0"));
      break;
    case "ArithmeticCommand":
      if (node.expression === undefined) evaluate(variables, arithmetic_names(node.body));
      break;
    case "ArithmeticExpansion":
      if (node.expression === undefined) evaluate(variables, arithmetic_names(node.text));
      break;
    case "ParameterExpansion":
      if (node.index !== undefined) evaluate(variables, arithmetic_names(node.index.text));
      if (node.prefix === "!") evaluate(variables, [node.parameter]);
      if (node.operation?.type === "Slice") {
        evaluate(variables, arithmetic_names(node.operation.offset.text));
        evaluate(variables, arithmetic_names(node.operation.length?.text ?? ""));
      }
      break;
    case "TestBinary":
      if (ARITHMETIC_TESTS.has(node.operator)) evaluate(variables, [...arithmetic_names(node.left.text), ...arithmetic_names(node.right.text)]);
      break;
    case "TestUnary":
      if (node.operator === "-v")
        evaluate(variables, [...referenced_names(node.operand.text), ...arithmetic_names(/\[(.*)\]/s.exec(node.operand.text)?.[1] ?? "")]);
      break;
    default:
      break;
  }
}

/** Variables bash sets itself to numbers or to values of no one else's choosing. */
const SAFE_SPECIALS = new Set([
  "RANDOM",
  "SRANDOM",
  "SECONDS",
  "LINENO",
  "BASHPID",
  "PPID",
  "UID",
  "EUID",
  "EPOCHSECONDS",
  "EPOCHREALTIME",
  "BASH_SUBSHELL",
  "SHLVL",
  "OPTIND",
  "#",
  "?",
  "$",
  "!",
  "-",
  "0",
]);
const RUNS_CODE = /\$\(|`|\$\{|<\(|>\(/;

export type Evaluation = {
  /** Literal values that would run substitutions when evaluated: `a[$(cmd)]`, with the name they are evaluated through. */
  readonly code: { readonly name: string; readonly value: string }[];
  /** Evaluated names whose value comes from the environment, input or a substitution. */
  readonly unknown: string[];
};

/**
 * Follows every evaluated name through the values it may hold (`x=y; y='a[$(cmd)]'; echo $((x))` reaches
 * y): values with substitutions are code, values known only at run time are unknown.
 */
export function evaluation(variables: Variables): Evaluation {
  const out: Evaluation = { code: [], unknown: [] };
  const queue = [...variables.evaluated];
  const seen = new Set<string>();
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    if (seen.has(name) || SAFE_SPECIALS.has(name)) continue;
    seen.add(name);
    const values = variables.bindings.get(name);
    if (values === undefined || values.some((value) => !value.literal)) {
      out.unknown.push(name);
      continue;
    }
    for (const { value } of values) {
      if (RUNS_CODE.test(value)) out.code.push({ name, value });
      queue.push(...arithmetic_names(value));
    }
  }
  return out;
}

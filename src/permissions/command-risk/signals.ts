import { type ArithmeticFor, type Command, forEachChild, type SyntaxNode, type While } from "unbash";
import type { ShellWord } from "./types.js";
import { arithmetic_names } from "./variables.js";

/**
 * Risk signals of resource exhaustion (issue 11): functions that call themselves, loops with no end in
 * sight, and endless streams. Whether a loop or a recursion ends cannot be decided without running it, so
 * these follow the positive model too: a loop counts as bounded only when the analyzer sees why it ends
 * (its condition reads input, or tests a variable the loop changes); a circle of calls counts whether or
 * not it is called. What the analyzer asks about is what such code does each turn: write files or start
 * background jobs. An endless loop that only prints or sleeps is left to the shell tool's timeout and
 * output cap.
 */

/** The script's function definitions by name, whose bodies run where they are called. */
export type Functions = { get(name: string): SyntaxNode | undefined };

/**
 * The circles in the call graph of the script's functions (`f → f`, `a → b → a`), one per set of functions,
 * each as the path of calls that closes it.
 */
export function call_cycles(calls: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const cycles: string[][] = [];
  const reported = new Set<string>();
  for (const start of calls.keys()) {
    const path = path_back(start, calls);
    if (path === undefined) continue;
    const members = [...new Set(path)].sort().join(" ");
    if (reported.has(members)) continue;
    reported.add(members);
    cycles.push(path);
  }
  return cycles;
}

/** The shortest path of calls from `start` back to itself, breadth first. */
function path_back(start: string, calls: ReadonlyMap<string, ReadonlySet<string>>): string[] | undefined {
  const queue: string[][] = [[start]];
  const seen = new Set<string>();
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    for (const next of calls.get(path.at(-1) ?? "") ?? []) {
      if (next === start) return [...path, next];
      if (seen.has(next) || !calls.has(next)) continue;
      seen.add(next);
      queue.push([...path, next]);
    }
  }
  return undefined;
}

const NAME = /^[A-Za-z_]\w*$/;
const ASSIGNING = /^(?:[-+*/%&|^]|<<|>>)?=$/;
const REFERENCE = /\$\{?!?([A-Za-z_]\w*|[0-9@*#?$!-])/g;
const POSITIONAL = /^([0-9]+|[@*#])$/;
/** Builtins that consume their input, so a loop on them ends with it. */
const READERS = new Set(["read", "mapfile", "readarray", "getopts"]);
const ARITHMETIC_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
/** Builtins that run code the analyzer does not see here: after them, any variable may have changed. */
const OPAQUE = new Set(["eval", "source", ".", "trap"]);

/** Variable names a part of the script sets ("@" for the positional parameters), or `undefined` for "any". */
type Names = Set<string> | undefined;

function word_values(command: Command): string[] {
  return command.args.flatMap((arg) => (arg.type === "Word" ? [arg.value] : []));
}

/** What one simple command sets in the shell it runs in. */
function command_sets(command: Command, functions: Functions, visiting: Set<string>, names: Set<string>): boolean {
  const name = command.name?.value ?? "";
  const words = word_values(command);
  if (OPAQUE.has(name)) return false;
  if (READERS.has(name)) for (const word of [...words, "REPLY", "MAPFILE", "OPTIND", "OPTARG"]) if (NAME.test(word)) names.add(word);
  if (name === "printf" || name === "wait") for (const [index, word] of words.entries()) if (word === "-v" || word === "-p") names.add(words[index + 1] ?? "");
  if (name === "unset") for (const word of words) names.add(word);
  if (name === "shift" || name === "set") names.add("@");
  if (name === "let") for (const word of words) for (const set of arithmetic_names(word)) names.add(set);
  if (name === "cd" || name === "pushd" || name === "popd") for (const set of ["PWD", "OLDPWD"]) names.add(set);
  const body = functions.get(name);
  if (body !== undefined && !visiting.has(name)) {
    visiting.add(name);
    const inner = sets(body, functions, visiting);
    if (inner === undefined) return false;
    for (const set of inner) names.add(set);
  }
  return true;
}

/** The variables a part of the script can change: assignments, arithmetic, the builtins that set names, the functions it calls. */
function sets(node: SyntaxNode, functions: Functions, visiting: Set<string> = new Set()): Names {
  const names = new Set<string>();
  let known = true;
  const walk = (current: SyntaxNode): void => {
    if (!known) return;
    if (current.type === "Assignment") names.add(current.name);
    else if (current.type === "For" || current.type === "Select") names.add(current.name.value);
    else if (current.type === "ArithmeticBinary" && ASSIGNING.test(current.operator) && current.left.type === "ArithmeticWord")
      names.add(current.left.value.replace(/^\$/, ""));
    else if (current.type === "ArithmeticUnary" && /^(\+\+|--)$/.test(current.operator) && current.operand.type === "ArithmeticWord")
      names.add(current.operand.value.replace(/^\$/, ""));
    else if (current.type === "ArithmeticCommand" && current.expression === undefined) for (const name of arithmetic_names(current.body)) names.add(name);
    else if (current.type === "Command") known = command_sets(current, functions, visiting, names);
    forEachChild(current, walk);
  };
  walk(node);
  return known ? names : undefined;
}

/** The variables a condition reads: `$x` in its words, and bare names in its arithmetic. */
function reads(node: SyntaxNode): Set<string> {
  const names = new Set<string>();
  const walk = (current: SyntaxNode): void => {
    if (current.type === "Word") for (const match of current.text.matchAll(REFERENCE)) names.add(match[1] ?? "");
    else if (current.type === "ArithmeticWord") for (const name of arithmetic_names(current.value)) names.add(name);
    else if (current.type === "ArithmeticCommand" && current.expression === undefined) for (const name of arithmetic_names(current.body)) names.add(name);
    else if (current.type === "Command" && current.name?.value === "let")
      for (const word of word_values(current)) for (const name of arithmetic_names(word)) names.add(name);
    else if (current.type === "TestBinary" && ARITHMETIC_TESTS.has(current.operator))
      for (const name of [...arithmetic_names(current.left.text), ...arithmetic_names(current.right.text)]) names.add(name);
    forEachChild(current, walk);
  };
  walk(node);
  return names;
}

/** A condition reads a variable the loop changes, so a later turn may end it. */
function counts(condition: SyntaxNode, changed: Names): boolean {
  if (changed === undefined) return false;
  return [...reads(condition)].some((name) => changed.has(name) || (POSITIONAL.test(name) && changed.has("@")));
}

/** Whether a loop's condition shows why the loop ends: it consumes input, or it tests what the loop changes. */
function ends(condition: SyntaxNode, changed: Names): boolean {
  switch (condition.type) {
    case "Statement":
      return ends(condition.command, changed);
    case "Pipeline":
      return condition.commands.some((command) => ends(command, changed));
    case "AndOr":
      return condition.operators.every((operator) => operator === "&&")
        ? condition.commands.some((command) => ends(command, changed))
        : condition.commands.every((command) => ends(command, changed));
    case "BraceGroup":
    case "Subshell": {
      const last = condition.body.commands.at(-1);
      return last !== undefined && ends(last, changed);
    }
    case "Command": {
      const name = condition.name?.value ?? "";
      if (READERS.has(name)) return true;
      return (name === "[" || name === "test" || name === "let") && counts(condition, changed);
    }
    case "TestCommand":
    case "ArithmeticCommand":
      return counts(condition, changed);
    default:
      return false;
  }
}

/** A `break`, `exit` or `return` among the body's own statements: the loop runs at most once. */
function leaves_at_once(body: readonly SyntaxNode[]): boolean {
  return body.some(
    (statement) => statement.type === "Statement" && statement.command.type === "Command" && /^(break|exit|return)$/.test(statement.command.name?.value ?? ""),
  );
}

/** How a loop's condition reads in a reason: `true`, `[ $x = 1 ]`, `! false`, `[[ … ]]`. */
function condition_text(condition: SyntaxNode | undefined): string {
  if (condition === undefined) return "";
  if (condition.type === "Statement") return condition_text(condition.command);
  if (condition.type === "Pipeline")
    return `${condition.prefixes.some((prefix) => prefix.type === "Negation") ? "! " : ""}${condition.commands.map(condition_text).join(" | ")}`;
  if (condition.type === "Command") return [condition.name?.text ?? "", ...condition.args.map((arg) => arg.text)].join(" ");
  if (condition.type === "TestCommand") return "[[ … ]]";
  if (condition.type === "ArithmeticCommand") return `((${condition.body}))`;
  return "…";
}

/** How a loop reads in a reason: `while true`, `until [ $x = 1 ]`, `for ((;;))`. */
export function spelled(
  node: While | ArithmeticFor,
  condition: SyntaxNode | undefined = node.type === "While" ? node.clause.commands.at(-1) : undefined,
): string {
  if (node.type === "ArithmeticFor") return node.test === undefined ? "for ((;;))" : "for (( … ))";
  const text = condition_text(condition);
  return `${node.kind} ${text.length > 40 ? `${text.slice(0, 40)}…` : text}`;
}

/**
 * The loop, spelled, when nothing in it shows why it ends: `while`/`until` whose condition neither
 * consumes input nor tests a variable the loop changes, `for ((;;))` or a `for ((…))` whose test reads
 * nothing its update or body changes. `undefined` for a loop that ends.
 */
export function endless_loop(node: While | ArithmeticFor, functions: Functions): string | undefined {
  if (leaves_at_once(node.body.commands)) return undefined;
  const changed = sets(node, functions);
  if (node.type === "ArithmeticFor") return node.test !== undefined && counts(node.test, changed) ? undefined : spelled(node, undefined);
  const condition = node.clause.commands.at(-1);
  return condition !== undefined && ends(condition, changed) ? undefined : spelled(node, condition);
}

const ENDLESS_DEVICES = new Set(["/dev/zero", "/dev/urandom", "/dev/random"]);

/** More bytes or lines than this are no bound: they fill a disk all the same. */
const MOST = 100_000_000;
const UNITS: Readonly<Record<string, number>> = { "": 1, c: 1, w: 2, b: 512, kB: 1e3, K: 1024, KiB: 1024, MB: 1e6, M: 2 ** 20, MiB: 2 ** 20 };

/** A count or size as head, dd and od write them (`20`, `4K`, `1M`, `+5`); `undefined` when unreadable or in units above mebibytes. */
function size_of(text: string | undefined): number | undefined {
  const [, digits, unit] = /^\+?(\d+)([A-Za-z]*)$/.exec(text ?? "") ?? [];
  const scale = UNITS[unit ?? ""];
  return digits === undefined || scale === undefined ? undefined : Number(digits) * scale;
}

/** The value of an option in any spelling: `-n 5`, `-n5`, `--lines=5`, `count=5` (`spellings` ending in `=` are attached only). */
function option_value(args: readonly ShellWord[], spellings: readonly string[]): string | undefined {
  for (const [index, arg] of args.entries()) {
    for (const spelling of spellings) {
      if (spelling.endsWith("=") && arg.value.startsWith(spelling)) return arg.value.slice(spelling.length);
      if (arg.value === spelling) return args[index + 1]?.value;
      if (!spelling.startsWith("--") && !spelling.endsWith("=") && arg.value.startsWith(spelling)) return arg.value.slice(spelling.length);
    }
  }
  return undefined;
}

const small = (size: number | undefined): boolean => size !== undefined && size <= MOST;

/**
 * Programs that stop after a small part of their input (or of an endless device they read): `head`
 * (ten lines, `-n N`, `-c N`; not `-n -N`, all but the last), `dd count=N`, `od -N`, `xxd -l`, `read`.
 */
function bounded(name: string, args: readonly ShellWord[]): boolean {
  if (name === "head") {
    const count = option_value(args, ["--lines=", "--bytes=", "-n", "-c"]) ?? args.find((arg) => /^-\d+$/.test(arg.value))?.value.slice(1) ?? "10";
    return small(size_of(count));
  }
  if (name === "dd") {
    const block = size_of(option_value(args, ["bs="]) ?? option_value(args, ["ibs="]) ?? "512");
    const count = size_of(option_value(args, ["count="]));
    return block !== undefined && count !== undefined && small(block * count);
  }
  if (name === "od") return small(size_of(option_value(args, ["--read-bytes=", "-N"])));
  if (name === "xxd") return small(size_of(option_value(args, ["-len", "-l"])));
  return name === "read";
}

/** How many numbers `seq [FIRST [INCREMENT]] LAST` prints; `undefined` when its operands are not plain numbers. */
function seq_length(args: readonly ShellWord[]): number | undefined {
  const operands = args.filter((arg, index) => !/^-[^\d]/.test(arg.value) && !/^(-[fs]|--format|--separator)$/.test(args[index - 1]?.value ?? ""));
  const numbers = operands.map((arg) => Number(arg.value));
  if (numbers.length === 0 || numbers.length > 3 || numbers.some((number) => !Number.isFinite(number))) return undefined;
  const [first, step, last] = numbers.length === 1 ? [1, 1, numbers[0] ?? 0] : numbers.length === 2 ? [numbers[0] ?? 0, 1, numbers[1] ?? 0] : numbers;
  return step === 0 ? Number.POSITIVE_INFINITY : Math.max(0, Math.floor(((last ?? 0) - (first ?? 0)) / (step ?? 1)) + 1);
}

/** Whether a pipeline stage stops reading after a bounded part of what flows in: `… | head -n 3`. */
export function bounds_stream(words: readonly ShellWord[]): boolean {
  const [head, ...args] = words;
  return head?.literal === true && bounded(head.value, args);
}

/**
 * The endless stream a command writes, spelled, when it writes one: `yes`, or a program reading
 * /dev/zero or /dev/urandom (as an operand, `if=`, or `< file`) without a bound; `undefined` otherwise.
 * `words` are the command's after its wrappers, `inputs` the files it reads with `<`.
 */
export function endless_source(words: readonly ShellWord[], inputs: readonly ShellWord[]): string | undefined {
  const [head, ...args] = words;
  if (head === undefined || !head.literal) return undefined;
  if (head.value === "yes") return "yes";
  if (head.value === "seq" && !small(seq_length(args))) return `seq ${args.map((arg) => arg.value).join(" ")}`;
  if (bounded(head.value, args)) return undefined;
  const device = [...args.map((arg) => (arg.literal ? arg.value.replace(/^if=/, "") : "")), ...inputs.map((input) => input.value)].find((path) =>
    ENDLESS_DEVICES.has(path),
  );
  return device === undefined ? undefined : `${head.value} reading ${device}`;
}

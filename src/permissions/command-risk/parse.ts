import { type Assignment, type Command, forEachChild, type ParsedScript, parse, type SyntaxNode } from "unbash";
import { called, moved, type Places, START, union } from "./folders.js";
import { BINARY_FILE_TESTS, UNARY_FILE_TESTS } from "./shells.js";
import { bounds_stream, endless_loop, endless_source, type Functions, spelled } from "./signals.js";
import type { ShellWord } from "./types.js";
import { new_variables, visit_variables, type Variables } from "./variables.js";
import { part_literal, shell_word } from "./words.js";
import { unwrap } from "./wrappers.js";

/** A redirection of one simple command (or of a compound command around it). */
export type ShellRedirect =
  | { readonly kind: "file"; readonly operator: string; readonly fd: number | undefined; readonly target: ShellWord | undefined }
  | { readonly kind: "heredoc"; readonly body: string; readonly literal: boolean }
  | { readonly kind: "herestring"; readonly target: ShellWord | undefined };

/** One simple command bash runs, flattened out of lists, pipelines, compounds and substitutions. */
export type SimpleCommand = {
  readonly words: readonly ShellWord[];
  readonly assignments: readonly { readonly name: string; readonly value: ShellWord }[];
  readonly redirects: readonly ShellRedirect[];
  /** Reads its standard input from an earlier command of a pipeline. */
  readonly piped_stdin: boolean;
  /** The simple command right before it in the pipeline, when that is one (`echo … | sh`, `cat <<EOF | sh`). */
  readonly producer?: SimpleCommand;
  /** The loop it runs in, spelled (`while true`), when nothing in that loop shows why it ends. */
  readonly loop?: string;
  /** The endless stream an earlier stage of its pipeline writes into it (`yes`), when no stage between bounds it. */
  readonly stream?: string;
  /** The loop it runs in, spelled, when that loop may run it many times (anything but a short literal `for` list). */
  readonly repeated?: string;
  /** It runs in a background job (`cmd &`, a coprocess). */
  readonly background?: true;
  /** Its output is kept by a command substitution (`x=$(cmd)`). */
  readonly captured?: true;
  /** The folders it may run in, after the `cd`s before it; the script's own folder when not set. */
  readonly places?: Places;
};

export type Flattened = {
  readonly commands: SimpleCommand[];
  readonly errors: string[];
  /** Expansions that run code bash builds at run time (`${x@P}`). */
  readonly dynamic_code: string[];
  readonly functions: Set<string>;
  /** The command names each function's body calls. */
  readonly calls: Map<string, Set<string>>;
  /** The operands of the file tests of `[[ … ]]` (`-f x`, `a -nt b`): paths whose metadata is read. */
  readonly file_tests: ShellWord[];
  readonly variables: Variables;
};

/** Where a node runs: what feeds it, what repeats it, who keeps its output. */
type Context = {
  readonly piped: boolean;
  readonly producer?: SimpleCommand;
  readonly loop?: string;
  readonly repeated?: string;
  readonly stream?: string;
  readonly background?: true;
  readonly captured?: true;
  /** The function whose body it is in. */
  readonly owner?: string;
  readonly places: Places;
};

/** The folders a node leaves the shell in when it succeeds, and when it fails (`cd x && …`, `cd x || …`). */
type Outcome = { readonly ok: Places; readonly failed: Places };
/** One outcome per set of places: most nodes leave the places as they found them, and are visited by the thousand. */
const outcomes = new WeakMap<Places, Outcome>();
function same(places: Places): Outcome {
  const known = outcomes.get(places);
  if (known !== undefined) return known;
  const outcome = { ok: places, failed: places };
  outcomes.set(places, outcome);
  return outcome;
}
const either = (outcome: Outcome): Places => union(outcome.ok, outcome.failed);

type Made = { -readonly [K in keyof SimpleCommand]: SimpleCommand[K] };

/** Most turns a `for` list may have and still count as a few: its words, with brace ranges counted out. */
const FEW_TURNS = 64;

/** A `for NAME in WORDS` over a few literal words, no globs, no substitutions: each turn known before it runs. */
function few_turns(node: Extract<SyntaxNode, { type: "For" | "Select" }>): boolean {
  if (node.type === "Select" || node.wordlist === undefined) return false;
  let turns = 0;
  for (const word of node.wordlist) {
    const spelled = shell_word(word);
    if (!spelled.literal || spelled.glob) return false;
    turns += [...word.text.matchAll(/\{(-?\d+)\.\.(-?\d+)(?:\.\.-?\d+)?\}|\{([^{}]*,[^{}]*)\}/g)].reduce(
      (product, match) => product * (match[3] === undefined ? Math.abs(Number(match[2]) - Number(match[1])) + 1 : match[3].split(",").length),
      1,
    );
    if (turns > FEW_TURNS) return false;
  }
  return true;
}

/** Every function definition of a script, by name (the last one wins, as in bash). */
function function_nodes(script: ParsedScript): Map<string, SyntaxNode> {
  const found = new Map<string, SyntaxNode>();
  const walk = (node: SyntaxNode): void => {
    if (node.type === "Function") found.set(node.name.value, node.body);
    forEachChild(node, walk);
  };
  walk(script);
  return found;
}

/** `NAME=value` as an argument (`export X='a b'`): a literal value without its quotes, as bash passes it; else its text. */
function assignment_word(arg: Assignment): ShellWord {
  const value = arg.value.type === "Word" ? shell_word(arg.value) : undefined;
  if (value === undefined || !value.literal) return { value: arg.text, literal: false, glob: false };
  const name = arg.text.slice(0, arg.text.indexOf("="));
  return { value: `${name}=${value.value}`, literal: true, glob: false };
}

function words_of(node: Command): ShellWord[] {
  const words: ShellWord[] = [];
  if (node.name !== undefined) words.push(shell_word(node.name));
  for (const arg of node.args) {
    if (arg.type === "Word") words.push(shell_word(arg));
    else words.push(assignment_word(arg));
  }
  return words;
}

/** The files a command reads with `<`. */
function inputs_of(command: SimpleCommand): ShellWord[] {
  return command.redirects.flatMap((redirect) =>
    redirect.kind === "file" && redirect.operator === "<" && redirect.target !== undefined ? [redirect.target] : [],
  );
}

/**
 * The endless stream a pipeline stage writes into the next one, spelled: an endless loop, or a command
 * writing one (`yes`, `cat /dev/zero`); `made` is the stage's simple command when it is one.
 */
function stage_output(stage: SyntaxNode, made: SimpleCommand | undefined, functions: Functions): string | undefined {
  if (stage.type === "While" || stage.type === "ArithmeticFor") return endless_loop(stage, functions);
  if (stage.type === "Redirected") return stage_output(stage.command, made, functions);
  if (stage.type === "BraceGroup" || stage.type === "Subshell")
    return stage.body.commands.map((statement) => stage_output(statement.command, undefined, functions)).find((spelled) => spelled !== undefined);
  if (stage.type === "Command" && made !== undefined) return endless_source(unwrap(made.words).words, inputs_of(made));
  return undefined;
}

/**
 * A function's body runs where it is called: its commands take the loop, stream, background and capture
 * of every place that calls it, through calls of calls.
 */
function called_contexts(commands: readonly Made[], owners: ReadonlyMap<Made, string>): void {
  const bodies = new Map<string, Made[]>();
  for (const [command, owner] of owners) bodies.set(owner, [...(bodies.get(owner) ?? []), command]);
  for (let changed = true; changed; ) {
    changed = false;
    for (const site of commands) {
      const callee = site.words[0]?.literal === true ? site.words[0].value : undefined;
      for (const body of bodies.get(callee ?? "") ?? []) {
        for (const key of ["loop", "repeated", "stream", "background", "captured"] as const) {
          if (site[key] !== undefined && body[key] === undefined) {
            Object.assign(body, { [key]: site[key] });
            changed = true;
          }
        }
      }
    }
  }
}

/** Parses and flattens; never throws. Errors of nested scripts ($(), <(), backticks) are collected too. */
export function flatten(source: string): Flattened {
  const out: Flattened = { commands: [], errors: [], dynamic_code: [], functions: new Set(), calls: new Map(), file_tests: [], variables: new_variables() };
  let script: ParsedScript;
  try {
    script = parse(source);
  } catch (error) {
    out.errors.push(`the parser failed: ${error instanceof Error ? error.message : String(error)}`);
    return out;
  }
  // found on first use: most commands define no function and run no loop
  let definitions: Map<string, SyntaxNode> | undefined;
  const functions: Functions = { get: (name) => (definitions ??= function_nodes(script)).get(name) };
  const owners = new Map<Made, string>();
  const pending_redirects: ShellRedirect[][] = [];
  /** `exec > file` with no command redirects every command after it (a subshell's too, as far as this reading goes). */
  const exec_redirects: ShellRedirect[] = [];
  /** Visits the children in order, each in the folders the ones before may have left the shell in. */
  const children = (node: SyntaxNode, context: Context): Outcome => {
    let current = context;
    forEachChild(node, (child) => {
      const places = union(current.places, either(visit(child, current)));
      if (places !== current.places) current = { ...context, places };
    });
    return same(current.places);
  };
  /** Visits the children of a node whose folder changes stay inside it (a subshell, a substitution, a background job). */
  const inside = (node: SyntaxNode, context: Context): Outcome => {
    children(node, context);
    return same(context.places);
  };
  const visit = (node: SyntaxNode, context: Context): Outcome => {
    visit_variables(out.variables, node);
    if (node.type === "Script" && node.errors !== undefined) for (const error of node.errors) out.errors.push(error.message);
    const inner: Context = context.producer === undefined ? context : { ...context, producer: undefined };
    switch (node.type) {
      case "Script":
      case "CompoundList":
        return node.commands.reduce<Outcome>((outcome, statement) => {
          const places = either(outcome);
          return same(either(visit(statement, places === inner.places ? inner : { ...inner, places })));
        }, same(context.places));
      case "Pipeline": {
        const outcome = pipeline(node.commands, context);
        return node.commands.length === 1 ? outcome : same(context.places);
      }
      case "AndOr":
        return and_or(node.commands, node.operators, inner);
      case "Function":
        // the body runs where the function is called, not where it is defined
        out.functions.add(node.name.value);
        return inside(node, { piped: context.piped, owner: node.name.value, places: context.places });
      case "Statement":
        if (node.background === true) return inside(node, { ...inner, background: true });
        return visit(node.command, inner);
      case "Coproc":
        return inside(node, { ...inner, background: true });
      case "Subshell":
        return inside(node, inner);
      case "While":
      case "ArithmeticFor": {
        const loop = context.loop ?? endless_loop(node, functions);
        return children(node, { ...inner, loop, repeated: context.repeated ?? loop ?? spelled(node) });
      }
      case "For":
      case "Select":
        return children(
          node,
          few_turns(node) ? inner : { ...inner, repeated: context.repeated ?? `${node.type === "For" ? "for" : "select"} ${node.name.value} in …` },
        );
      case "Redirected": {
        pending_redirects.push(node.redirects.map(to_redirect));
        const outcome = visit(node.command, inner);
        pending_redirects.pop();
        for (const redirect of node.redirects) inside(redirect, { ...inner, piped: false, stream: undefined });
        return outcome;
      }
      case "Command":
        return command(node, context);
      case "CommandExpansion":
        return inside(node, { ...inner, piped: false, stream: undefined, captured: true });
      case "ProcessSubstitution":
      case "ArithmeticCommandExpansion":
        return inside(node, { ...inner, piped: false, stream: undefined, captured: undefined });
      case "TestUnary":
        if (UNARY_FILE_TESTS.has(node.operator)) out.file_tests.push(shell_word(node.operand));
        break;
      case "TestBinary":
        if (BINARY_FILE_TESTS.has(node.operator)) out.file_tests.push(shell_word(node.left), shell_word(node.right));
        break;
      case "ParameterExpansion":
        if (node.operation?.type === "Transform" && /[PE]/.test(node.operation.operand.value)) out.dynamic_code.push(node.text);
        break;
      default:
        break;
    }
    // a compound command inside a pipeline reads the pipe too
    return children(node, inner);
  };
  const command = (node: Command, context: Context): Outcome => {
    const made = simple_command(node, context);
    out.commands.push(made);
    if (context.owner !== undefined) {
      owners.set(made, context.owner);
      const calls = out.calls.get(context.owner) ?? new Set<string>();
      if (made.words[0]?.literal === true) calls.add(made.words[0].value);
      out.calls.set(context.owner, calls);
    }
    inside(node, { ...context, producer: undefined, piped: false, stream: undefined });
    const run = unwrap(made.words).words;
    if (made.words.length === 1 && made.words[0]?.value === "exec")
      exec_redirects.push(...node.redirects.map(to_redirect).filter((redirect) => redirect.kind === "file"));
    const body = run[0]?.literal === true && out.functions.has(run[0].value) ? functions.get(run[0].value) : undefined;
    const ok = moved(run, context.places) ?? (body === undefined ? context.places : called(body, context.places));
    return { ok, failed: context.places };
  };
  /** `a && b || c`, left to right: `&&` runs on when the group so far succeeded, `||` when it failed. */
  const and_or = (parts: readonly SyntaxNode[], operators: readonly string[], context: Context): Outcome => {
    let group: Outcome | undefined;
    parts.forEach((part, index) => {
      if (group === undefined) {
        group = visit(part, context);
        return;
      }
      const after_success = operators[index - 1] === "&&";
      const outcome = visit(part, { ...context, places: after_success ? group.ok : group.failed });
      group = after_success ? { ok: outcome.ok, failed: union(group.failed, outcome.failed) } : { ok: union(group.ok, outcome.ok), failed: outcome.failed };
    });
    return group ?? same(context.places);
  };
  const pipeline = (stages: readonly SyntaxNode[], context: Context): Outcome => {
    let previous: SimpleCommand | undefined;
    let stream = context.stream;
    let outcome = same(context.places);
    stages.forEach((stage, index) => {
      const at = out.commands.length;
      // only the last stage's output is what a command substitution keeps
      const captured = index === stages.length - 1 ? context.captured : undefined;
      outcome = visit(stage, { ...context, piped: context.piped || index > 0, producer: previous, stream, captured });
      const made = stage.type === "Command" ? out.commands[at] : undefined;
      if (made !== undefined && bounds_stream(unwrap(made.words).words)) {
        (made as Made).stream = undefined;
        stream = undefined;
      } else stream = stage_output(stage, made, functions) ?? stream;
      previous = made;
    });
    return outcome;
  };
  const simple_command = (node: Command, context: Context): Made => {
    const assignments: { name: string; value: ShellWord }[] = [];
    for (const prefix of node.prefix) {
      if (prefix.type === "Assignment") {
        const value = prefix.value.type === "Word" ? shell_word(prefix.value) : { value: prefix.text, literal: false, glob: false };
        assignments.push({ name: prefix.name, value });
      }
    }
    const redirects = [...node.redirects.map(to_redirect), ...pending_redirects.flat(), ...exec_redirects];
    return {
      words: words_of(node),
      assignments,
      redirects,
      piped_stdin: context.piped,
      ...(context.producer === undefined ? {} : { producer: context.producer }),
      ...(context.loop === undefined ? {} : { loop: context.loop }),
      ...(context.repeated === undefined ? {} : { repeated: context.repeated }),
      ...(context.stream === undefined ? {} : { stream: context.stream }),
      ...(context.background === undefined ? {} : { background: context.background }),
      ...(context.captured === undefined ? {} : { captured: context.captured }),
      ...(context.places === START ? {} : { places: context.places }),
    };
  };
  visit(script, { piped: false, places: START });
  called_contexts(out.commands as Made[], owners);
  return out;
}

function to_redirect(redirect: Command["redirects"][number]): ShellRedirect {
  if (redirect.type === "HereDoc") {
    const literal = redirect.delimiter?.quoted === true || (redirect.body.parts ?? []).every(part_literal);
    return { kind: "heredoc", body: redirect.body.text, literal };
  }
  if (redirect.type === "HereString") return { kind: "herestring", target: redirect.target && shell_word(redirect.target) };
  const fd = redirect.descriptor?.type === "FileDescriptor" ? redirect.descriptor.value : undefined;
  return { kind: "file", operator: redirect.operator, fd, target: redirect.target && shell_word(redirect.target) };
}

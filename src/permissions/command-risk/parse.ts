import { forEachChild, parse, type Command, type ParsedScript, type SyntaxNode, type Word, type WordPart } from "unbash";
import type { ShellWord } from "./types.js";

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
};

export type Flattened = {
  readonly commands: SimpleCommand[];
  readonly errors: string[];
  /** Expansions that run code bash builds at run time (`${x@P}`). */
  readonly dynamic_code: string[];
  readonly functions: Set<string>;
};

const LITERAL_PARTS = new Set(["Literal", "SingleQuoted", "AnsiCQuoted", "Glob", "BraceExpansion", "ExtendedGlob"]);

function part_literal(part: WordPart): boolean {
  if (LITERAL_PARTS.has(part.type)) return part.type === "Glob" || part.type === "BraceExpansion" || part.type === "ExtendedGlob" ? !/[$`]/.test(part.text) : true;
  if (part.type === "DoubleQuoted" || part.type === "LocaleString") return part.parts.every((child) => child.type === "Literal");
  return false;
}

export function shell_word(word: Word): ShellWord {
  const parts = word.parts ?? [];
  const literal = parts.every(part_literal) && !(parts.length === 0 && /[$`]/.test(word.text) && word.value === word.text && /\$[({A-Za-z_@*#?!$0-9]|`/.test(word.text));
  const glob = parts.some((part) => part.type === "Glob" || part.type === "ExtendedGlob");
  return { value: literal ? word.value : word.text, literal, glob };
}

/** Parses and flattens; never throws. Errors of nested scripts ($(), <(), backticks) are collected too. */
export function flatten(source: string): Flattened {
  const out: Flattened = { commands: [], errors: [], dynamic_code: [], functions: new Set() };
  let script: ParsedScript;
  try {
    script = parse(source);
  } catch (error) {
    out.errors.push(`the parser failed: ${error instanceof Error ? error.message : String(error)}`);
    return out;
  }
  const pending_redirects: ShellRedirect[][] = [];
  const visit = (node: SyntaxNode, piped: boolean): void => {
    if (node.type === "Script" && node.errors !== undefined) for (const error of node.errors) out.errors.push(error.message);
    if (node.type === "Pipeline") {
      node.commands.forEach((child, index) => visit(child, piped || index > 0));
      return;
    }
    if (node.type === "Function") out.functions.add(node.name.value);
    if (node.type === "ParameterExpansion" && node.operation?.type === "Transform" && /[PE]/.test(node.operation.operand.value)) {
      out.dynamic_code.push(node.text);
    }
    if (node.type === "Redirected") {
      pending_redirects.push(node.redirects.map(to_redirect));
      visit(node.command, piped);
      pending_redirects.pop();
      for (const redirect of node.redirects) forEachChild(redirect, (child) => visit(child, false));
      return;
    }
    if (node.type === "Command") {
      out.commands.push(simple_command(node, piped));
      forEachChild(node, (child) => visit(child, false));
      return;
    }
    // a compound command inside a pipeline reads the pipe too; a substitution's script does not
    const through = piped && node.type !== "CommandExpansion" && node.type !== "ProcessSubstitution" && node.type !== "ArithmeticCommandExpansion";
    forEachChild(node, (child) => visit(child, through));
  };
  const simple_command = (node: Command, piped: boolean): SimpleCommand => {
    const words: ShellWord[] = [];
    if (node.name !== undefined) words.push(shell_word(node.name));
    const assignments: { name: string; value: ShellWord }[] = [];
    for (const prefix of node.prefix) {
      if (prefix.type === "Assignment") {
        const value = prefix.value.type === "Word" ? shell_word(prefix.value) : { value: prefix.text, literal: false, glob: false };
        assignments.push({ name: prefix.name, value });
      }
    }
    for (const arg of node.args) {
      if (arg.type === "Word") words.push(shell_word(arg));
      else words.push({ value: arg.text, literal: arg.value.type === "Word" && shell_word(arg.value).literal, glob: false });
    }
    const redirects = [...node.redirects.map(to_redirect), ...pending_redirects.flat()];
    return { words, assignments, redirects, piped_stdin: piped };
  };
  visit(script, false);
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

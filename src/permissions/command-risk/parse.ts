import { forEachChild, parse, type Command, type ParsedScript, type SyntaxNode } from "unbash";
import type { ShellWord } from "./types.js";
import { new_variables, visit_variables, type Variables } from "./variables.js";
import { part_literal, shell_word } from "./words.js";

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
};

export type Flattened = {
  readonly commands: SimpleCommand[];
  readonly errors: string[];
  /** Expansions that run code bash builds at run time (`${x@P}`). */
  readonly dynamic_code: string[];
  readonly functions: Set<string>;
  readonly variables: Variables;
};

/** Parses and flattens; never throws. Errors of nested scripts ($(), <(), backticks) are collected too. */
export function flatten(source: string): Flattened {
  const out: Flattened = { commands: [], errors: [], dynamic_code: [], functions: new Set(), variables: new_variables() };
  let script: ParsedScript;
  try {
    script = parse(source);
  } catch (error) {
    out.errors.push(`the parser failed: ${error instanceof Error ? error.message : String(error)}`);
    return out;
  }
  const pending_redirects: ShellRedirect[][] = [];
  const visit = (node: SyntaxNode, piped: boolean, producer?: SimpleCommand): void => {
    visit_variables(out.variables, node);
    if (node.type === "Script" && node.errors !== undefined) for (const error of node.errors) out.errors.push(error.message);
    if (node.type === "Pipeline") {
      let previous: SimpleCommand | undefined;
      node.commands.forEach((child, index) => {
        const at = out.commands.length;
        visit(child, piped || index > 0, previous);
        previous = child.type === "Command" ? out.commands[at] : undefined;
      });
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
      out.commands.push(simple_command(node, piped, producer));
      forEachChild(node, (child) => visit(child, false));
      return;
    }
    // a compound command inside a pipeline reads the pipe too; a substitution's script does not
    const through = piped && node.type !== "CommandExpansion" && node.type !== "ProcessSubstitution" && node.type !== "ArithmeticCommandExpansion";
    forEachChild(node, (child) => visit(child, through));
  };
  const simple_command = (node: Command, piped: boolean, producer: SimpleCommand | undefined): SimpleCommand => {
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
    return { words, assignments, redirects, piped_stdin: piped, ...(producer === undefined ? {} : { producer }) };
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

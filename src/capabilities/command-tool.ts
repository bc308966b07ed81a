import fs from "node:fs";
import * as v from "valibot";
import { define_tool, type AnyToolDefinition, type ToolCapability } from "../tools/define.js";
import { shell_quote } from "../tools/git/output.js";
import { run_shell_command, ShellRunOutput } from "../tools/shell/command.js";
import type { ToolDeclaration, ToolImplementation } from "./manifest.js";

type CommandImplementation = Extract<ToolImplementation, { kind: "command" }>;
type CommandParameter = CommandImplementation["parameters"][string];
type CommandInput = Readonly<Record<string, string | number | boolean | undefined>>;

/** A string argument: any text bash can carry in one word, which excludes NUL. */
const ArgumentText = v.pipe(v.string(), v.maxLength(100_000), v.regex(/^[^\0]*$/, "an argument cannot contain a NUL character"));

function parameter_schema(parameter: CommandParameter) {
  const { description } = parameter;
  if (parameter.enum !== undefined) return v.pipe(v.picklist(parameter.enum), v.description(description));
  switch (parameter.type) {
    case "string":
      return v.pipe(ArgumentText, v.description(description));
    case "integer":
      return v.pipe(v.number(), v.integer(), v.safeInteger(), v.description(description));
    case "boolean":
      return v.pipe(v.boolean(), v.description(description));
  }
}

/** The input schema of a command tool, from its declared parameters: validated like any tool's, exported as JSON Schema. */
function input_schema(implementation: CommandImplementation) {
  const required = new Set(implementation.required);
  const entries: Record<string, v.GenericSchema<unknown, string | number | boolean | undefined>> = {};
  for (const [name, parameter] of Object.entries(implementation.parameters)) {
    const schema = parameter_schema(parameter);
    entries[name] = required.has(name) ? schema : v.optional(schema);
  }
  return v.strictObject(entries);
}

/**
 * The bash command line of one call: each argv element with its `{name}` placeholders replaced by the call's values,
 * then quoted as one word — so a value is one literal argument whatever it holds. An element naming an optional
 * parameter the call left out is left out whole.
 */
export function command_line(argv: readonly string[], input: CommandInput): string {
  const words: string[] = [];
  for (const element of argv) {
    let absent = false;
    // A replacement function, so `$&` or `{other}` in a value stays literal and is never expanded again.
    const word = element.replace(/\{([^{}]*)\}/g, (_, name: string) => {
      const value = input[name];
      if (value === undefined) absent = true;
      return String(value ?? "");
    });
    if (!absent) words.push(shell_quote(word));
  }
  return words.join(" ");
}

/**
 * A capability's `command` tool as a real tool: its parameters validated, its command line declared in
 * `permissions.executes` so the PermissionEngine judges exactly what runs, and run like `shell.run` (sandbox,
 * `command.*` events, output artifacts, evidence) in the caller's project or workspace.
 */
export function command_tool(declaration: ToolDeclaration, implementation: CommandImplementation, capability: ToolCapability): AnyToolDefinition {
  const command_of = (input: CommandInput) => command_line(implementation.argv, input);
  return define_tool({
    name: declaration.name,
    version: 1,
    description: declaration.description,
    category: declaration.category,
    capability,
    input: input_schema(implementation),
    output: ShellRunOutput,
    permissions: { executes: (input) => ({ command: command_of(input), cwd: "." }) },
    async execute(input, execution) {
      const cwd = fs.realpathSync.native(execution.project_root);
      const { output } = await run_shell_command(execution, { command: command_of(input), cwd, timeout_ms: implementation.timeout_ms });
      return output;
    },
  });
}

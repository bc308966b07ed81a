import { air_failure } from "../contracts/errors.js";

/** What the Anthropic API accepts as a tool name; our registry names (`fs.read`) contain dots, which it rejects. */
export const WIRE_TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

/**
 * The name a tool goes by on the wire. Registry names are dotted lowercase segments of `[a-z0-9_]`, so
 * turning "." into "-" is reversible for them; the reverse lookup still goes through `ToolNameMap`,
 * because only the names offered in a request may come back.
 */
export function wire_tool_name(name: string): string {
  return name.replaceAll(".", "-");
}

/** The tool names of one request, both ways. */
export class ToolNameMap {
  readonly #to_canonical = new Map<string, string>();

  constructor(canonical_names: readonly string[]) {
    for (const name of canonical_names) {
      const wire = wire_tool_name(name);
      if (!WIRE_TOOL_NAME.test(wire)) {
        throw air_failure({
          kind: "model_capability_error",
          message: `tool name "${name}" cannot be sent to the model: after replacing "." with "-" it must match ${WIRE_TOOL_NAME.source}`,
          retryability: "not_retryable",
          user_action: "Rename the tool to dotted lowercase segments of letters, digits and underscores (e.g. fs.read).",
        });
      }
      const clash = this.#to_canonical.get(wire);
      if (clash !== undefined && clash !== name) {
        throw air_failure({
          kind: "model_capability_error",
          message: `tools "${clash}" and "${name}" would both be sent to the model as "${wire}"`,
          retryability: "not_retryable",
          user_action: "Rename one of the two tools.",
        });
      }
      this.#to_canonical.set(wire, name);
    }
  }

  to_wire(name: string): string {
    return wire_tool_name(name);
  }

  /** The registry name of a tool the model called; a name that was never offered comes back unchanged. */
  to_canonical(wire: string): string {
    return this.#to_canonical.get(wire) ?? wire;
  }
}

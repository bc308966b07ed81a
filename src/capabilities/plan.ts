import type { AnyToolDefinition } from "../tools/define.js";
import { applies_to } from "./applies.js";
import type { CapabilityTools } from "./builtin.js";
import type { CapabilityChoices } from "./choices.js";
import { command_tool } from "./command-tool.js";
import type { DiscoveredCapability } from "./discover.js";
import { check_builtin_tools } from "./validate.js";

/** Whether a capability is on for a project, and if not why: the user's choice, trust, or nothing to apply to. */
export type Verdict = { readonly on: true } | { readonly on: false; readonly status: "disabled" | "does_not_apply"; readonly reason: string };

/**
 * Trust sets the default (built-in, user-installed, verified and project-local capabilities on; untrusted off), the
 * project's choices override it, and a capability none of whose triggers fires is off whatever was chosen.
 */
export function verdict_of(capability: DiscoveredCapability, project_root: string, choices: CapabilityChoices): Verdict {
  const { id } = capability.manifest;
  if (choices.disabled.includes(id)) return { on: false, status: "disabled", reason: `disabled for this project (air capability enable ${id} turns it on)` };
  if (capability.trust === "untrusted" && !choices.enabled.includes(id)) {
    return { on: false, status: "disabled", reason: `untrusted capabilities are off until enabled (air capability enable ${id})` };
  }
  if (!applies_to(capability.manifest, project_root))
    return { on: false, status: "does_not_apply", reason: "does not apply to this project: no trigger matched" };
  return { on: true };
}

const NO_TOOLS: CapabilityTools = { definitions: [], close: async () => undefined };

/**
 * The tools of an enabled capability, made for one runtime: a built-in's from its code (which must define exactly
 * the tools it declares), every `command` tool from its declaration. Closed again when the check fails.
 */
export function make_tools(capability: DiscoveredCapability): CapabilityTools {
  const { manifest } = capability;
  const code = capability.builtin?.create_tools() ?? NO_TOOLS;
  try {
    check_builtin_tools(manifest, code);
  } catch (error) {
    // The mismatch is what the user must see; a failure to close on top of it would only hide it.
    code.close().catch(() => undefined);
    throw error;
  }
  const commands: AnyToolDefinition[] = [];
  for (const tool of manifest.tools) {
    if (tool.implementation.kind === "command") commands.push(command_tool(tool, tool.implementation, { id: manifest.id, trust: capability.trust }));
  }
  return { definitions: [...code.definitions, ...commands], close: () => code.close() };
}

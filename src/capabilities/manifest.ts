import * as v from "valibot";
import { EvidenceKind } from "../contracts/artifact.js";
import { CapabilityTrust } from "../contracts/events/capability.js";
import { ToolCategory } from "../contracts/tool.js";

/**
 * A capability manifest (seeds 000 §9.5, 003 §6, 001 D-045): what a capability registers, what it needs from
 * the machine, when it applies to a project and what evidence it produces. Built-in capabilities declare theirs
 * in code; others are `capability.json` files under `~/.air/capabilities/<id>/` or `.air/shared/capabilities/<id>/`.
 */

const Text = v.pipe(v.string(), v.minLength(1), v.maxLength(2000));

/** `toolchain-cpp`: lower case, digits and dashes; it prefixes nothing, tools carry their own dotted names. */
export const CapabilityName = v.pipe(v.string(), v.regex(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/, "expected a lower-case id such as toolchain-cpp"));
export type CapabilityName = v.InferOutput<typeof CapabilityName>;

const Version = v.pipe(v.string(), v.regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/, "expected a version such as 1.0.0"));

const ToolName = v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/, "expected a dotted tool name such as cpp.build"));

/** How doctor finds a dependency on this machine (D-045 `DependencyDetectSpec`), read-only. */
export const DependencyDetect = v.variant("by", [
  v.strictObject({
    by: v.literal("executable"),
    /** Alternatives in order of preference (`clangd`, `clangd-14`): the first on PATH wins. */
    names: v.pipe(v.array(v.pipe(v.string(), v.regex(/^[A-Za-z0-9._+-]+$/, "expected a program name"))), v.minLength(1)),
    /** What prints the version (default `--version`); its first line is recorded. */
    version_args: v.optional(v.array(v.string()), ["--version"]),
    /** The oldest version that works, compared with the first dotted number the version line holds. */
    min_version: v.optional(v.pipe(v.string(), v.regex(/^\d+(\.\d+)*$/, "expected a dotted number such as 3.21"))),
  }),
  v.strictObject({ by: v.literal("env_var"), name: v.pipe(v.string(), v.regex(/^[A-Z_][A-Z0-9_]*$/, "expected an environment variable name")) }),
  /** Any of these files exists (absolute, or relative to the project); for headers and libraries such as GoogleTest. */
  v.strictObject({ by: v.literal("file"), paths: v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1)) }),
]);
export type DependencyDetect = v.InferOutput<typeof DependencyDetect>;

/** One command doctor may run to install a dependency: a bash command line judged by the PermissionEngine. */
const InstallCommand = v.strictObject({
  command: v.pipe(v.string(), v.minLength(1), v.maxLength(4000)),
  /** Where it applies; doctor skips commands for other systems. */
  platform: v.optional(v.picklist(["debian", "any"]), "any"),
});

const LowPermissionInstall = v.picklist(["never", "prompt", "safe_cache"]);
const HighPermissionInstall = v.picklist(["never", "announce_then_run", "safe_cache", "prompt"]);

export const DependencyRisk = v.picklist(["none", "downloads_code", "needs_root", "network_capture", "credentials", "system_sensitive"]);
export type DependencyRisk = v.InferOutput<typeof DependencyRisk>;

/** What a capability needs (D-045 `DependencySpec`); it never installs it itself — only `air doctor --fix` does. */
export const DependencySpec = v.strictObject({
  id: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_.-]*$/, "expected a lower-case dependency id")),
  kind: v.picklist([
    "executable",
    "system_package",
    "npm_package",
    "pip_package",
    "lsp_server",
    "formatter",
    "mcp_server",
    "env_var",
    "permission",
    "service",
    "network_port",
  ]),
  /** The tools that cannot work without it. */
  required_for: v.array(ToolName),
  severity: v.picklist(["required", "optional", "degraded"]),
  detect: DependencyDetect,
  install: v.optional(
    v.strictObject({
      low_permission: LowPermissionInstall,
      high_permission: HighPermissionInstall,
      commands: v.optional(v.array(InstallCommand), []),
      docs: v.optional(Text),
    }),
  ),
  risk: DependencyRisk,
});
export type DependencySpec = v.InferOutput<typeof DependencySpec>;

/** What makes a capability apply to a project; any one trigger is enough. */
export const Trigger = v.variant("kind", [
  /** A file at this project-relative path exists (`CMakeLists.txt`). */
  v.strictObject({ kind: v.literal("file"), path: v.pipe(v.string(), v.minLength(1)) }),
  /** A file with one of these extensions within `max_depth` folders of the root (`.cpp` in `src/`). */
  v.strictObject({
    kind: v.literal("extension"),
    extensions: v.pipe(v.array(v.pipe(v.string(), v.regex(/^\.[A-Za-z0-9+]+$/, "expected an extension such as .cpp"))), v.minLength(1)),
    max_depth: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(8)), 3),
  }),
  /** Always applies (a general-purpose capability). */
  v.strictObject({ kind: v.literal("always") }),
]);
export type Trigger = v.InferOutput<typeof Trigger>;

/** One parameter of a command tool: a string, integer or boolean the command line receives as one argument. */
const CommandParameter = v.strictObject({
  type: v.picklist(["string", "integer", "boolean"]),
  description: Text,
  enum: v.optional(v.pipe(v.array(v.string()), v.minLength(1))),
});

/**
 * How a tool runs. `builtin`: TypeScript shipped with air (only a built-in capability may say so). `command`:
 * an argv whose `{name}` placeholders are replaced by the call's parameters, each one whole argument (never
 * re-split or re-parsed by a shell), run like `shell.run` in the project or the task's workspace.
 */
export const ToolImplementation = v.variant("kind", [
  v.strictObject({ kind: v.literal("builtin") }),
  v.strictObject({
    kind: v.literal("command"),
    argv: v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1)),
    parameters: v.optional(v.record(v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]*$/, "expected a parameter name")), CommandParameter), {}),
    required: v.optional(v.array(v.string()), []),
    timeout_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(30 * 60_000)), 120_000),
  }),
]);
export type ToolImplementation = v.InferOutput<typeof ToolImplementation>;

export const ToolDeclaration = v.strictObject({
  name: ToolName,
  description: Text,
  category: ToolCategory,
  implementation: ToolImplementation,
});
export type ToolDeclaration = v.InferOutput<typeof ToolDeclaration>;

export const CapabilityManifest = v.strictObject({
  schema_version: v.literal(1),
  id: CapabilityName,
  version: Version,
  description: Text,
  /** The trust it claims; the place it was found caps it (a project's capability is never `built_in`). */
  trust: CapabilityTrust,
  tools: v.array(ToolDeclaration),
  dependencies: v.optional(v.array(DependencySpec), []),
  triggers: v.pipe(v.array(Trigger), v.minLength(1)),
  evidence: v.optional(v.array(EvidenceKind), []),
});
export type CapabilityManifest = v.InferOutput<typeof CapabilityManifest>;

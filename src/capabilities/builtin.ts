import type { AnyToolDefinition } from "../tools/define.js";
import { toolchain_cpp } from "../cpp/capability.js";
import type { CapabilityManifest } from "./manifest.js";

/**
 * The tools of a built-in capability, made once per session runtime: some hold processes (one clangd per
 * workspace), which `close` stops with the session.
 */
export type CapabilityTools = {
  readonly definitions: readonly AnyToolDefinition[];
  close(): Promise<void>;
};

/** A capability shipped with air: its manifest, and the code of every tool the manifest declares `builtin`. */
export type BuiltinCapability = {
  readonly manifest: CapabilityManifest;
  create_tools(): CapabilityTools;
};

/** Every built-in capability of this version. */
export const BUILTIN_CAPABILITIES: readonly BuiltinCapability[] = [toolchain_cpp];

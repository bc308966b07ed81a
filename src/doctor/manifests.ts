import { BUILTIN_CAPABILITIES } from "../capabilities/builtin.js";
import type { CapabilityManifest } from "../capabilities/manifest.js";

/** The capabilities doctor checks and fixes: the built-ins, until discovery (`discover_capabilities`) lands here. */
export function doctor_manifests(): CapabilityManifest[] {
  return BUILTIN_CAPABILITIES.map((capability) => capability.manifest);
}

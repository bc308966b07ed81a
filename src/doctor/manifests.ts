import { CapabilityRegistry } from "../capabilities/registry.js";
import type { CapabilityManifest } from "../capabilities/manifest.js";
import { air_home as default_air_home } from "../project/layout.js";

/** The capabilities doctor checks and fixes: those a session in this project would enable. */
export function doctor_manifests(project_root: string, air_home: string = default_air_home()): CapabilityManifest[] {
  return new CapabilityRegistry({ project_root, air_home }).enabled_manifests();
}

import * as v from "valibot";
import { AirError } from "../errors.js";
import { CapabilityId } from "../ids.js";
import { durable } from "./define.js";
import { Count, NonEmpty, Reason } from "./common.js";

export const CapabilityTrust = v.picklist(["built_in", "project_local", "user_installed", "verified_publisher", "untrusted"]);
export type CapabilityTrust = v.InferOutput<typeof CapabilityTrust>;

const Subject = { capability_id: CapabilityId };

/** The seeds name the capability lifecycle (000 §20.6) but no events; these carry its transitions. */
export const capability_events = {
  "capability.discovered": durable(
    v.strictObject({ ...Subject, name: NonEmpty, version: NonEmpty, trust_level: CapabilityTrust }),
    "Inserts capabilities (discovered), or re-discovers an updated or failed one.",
  ),
  "capability.validated": durable(v.strictObject(Subject), "The manifest passed validation."),
  "capability.doctor_checked": durable(v.strictObject({ ...Subject, issues: Count }), "Doctor checked the capability's dependencies."),
  "capability.enabled": durable(v.strictObject(Subject), "Enabled by the user or by trust policy."),
  "capability.tools_registered": durable(v.strictObject({ ...Subject, tool_names: v.array(NonEmpty) }), "Its tools are in the ToolRegistry."),
  "capability.activated": durable(v.strictObject(Subject), "In use."),
  "capability.disabled": durable(v.strictObject({ ...Subject, reason: v.optional(Reason) }), "Disabled."),
  "capability.failed": durable(v.strictObject({ ...Subject, error: AirError }), "Failed validation, checks or use."),
  "capability.updated": durable(v.strictObject({ ...Subject, version: NonEmpty }), "A new version arrived; it must be discovered and validated again."),
} as const;

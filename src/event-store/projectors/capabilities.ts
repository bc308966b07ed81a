import type { CapabilityStatus } from "../../contracts/status.js";
import { capabilities } from "../../db/schema.js";
import { insert_row, update_rows } from "../rows.js";
import { moved_status, type Projection, type ProjectionTarget } from "./projection.js";

export const capability_discovered: Projection<"capability.discovered"> = (event, target) => {
  const { capability_id, name, version, trust_level } = event.payload;
  const status = moved_status<CapabilityStatus>(target);
  const rediscovered = update_rows(
    target.connection,
    capabilities,
    { id: capability_id },
    {
      status,
      name,
      version,
      trust_level,
      error_json: null,
      updated_at: event.timestamp,
    },
  );
  if (rediscovered === 1) return;
  insert_row(target.connection, capabilities, {
    id: capability_id,
    session_id: event.session_id,
    name,
    version,
    trust_level,
    status,
    created_at: event.timestamp,
    updated_at: event.timestamp,
  });
};

function move_capability(target: ProjectionTarget, id: string, at: string, set: Partial<typeof capabilities.$inferInsert> = {}) {
  update_rows(target.connection, capabilities, { id }, { ...set, status: moved_status<CapabilityStatus>(target), updated_at: at });
}

type SimpleMove = Projection<"capability.validated" | "capability.doctor_checked" | "capability.enabled" | "capability.activated" | "capability.disabled">;

export const capability_moved: SimpleMove = (event, target) => {
  move_capability(target, event.payload.capability_id, event.timestamp);
};

export const capability_tools_registered: Projection<"capability.tools_registered"> = (event, target) => {
  move_capability(target, event.payload.capability_id, event.timestamp, {
    tool_names_json: JSON.stringify(event.payload.tool_names),
  });
};

export const capability_failed: Projection<"capability.failed"> = (event, target) => {
  move_capability(target, event.payload.capability_id, event.timestamp, { error_json: JSON.stringify(event.payload.error) });
};

export const capability_updated: Projection<"capability.updated"> = (event, target) => {
  move_capability(target, event.payload.capability_id, event.timestamp, { version: event.payload.version });
};

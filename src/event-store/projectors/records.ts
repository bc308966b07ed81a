import { artifacts, diagnostics, evidence_refs, summaries } from "../../db/schema.js";
import { insert_row, json } from "../rows.js";
import type { Projection } from "./projection.js";

export const artifact_created: Projection<"artifact.created"> = (event, { connection }) => {
  const { artifact, path, original_name, mime_type, entity, task_id, agent_id, tool_run_id, command_run_id } = event.payload;
  insert_row(connection, artifacts, {
    id: artifact.id,
    session_id: event.session_id,
    type: artifact.type,
    uri: artifact.uri,
    path,
    original_name,
    mime_type,
    size_bytes: artifact.size_bytes ?? 0,
    sha256: artifact.sha256 ?? "",
    task_id,
    agent_id,
    tool_run_id,
    command_run_id,
    entity_type: entity?.type,
    entity_id: entity?.id,
    created_at: artifact.created_at,
  });
};

export const diagnostic_created: Projection<"diagnostic.created"> = (event, { connection }) => {
  const { diagnostic_id, ...diagnostic } = event.payload;
  insert_row(connection, diagnostics, {
    ...diagnostic,
    id: diagnostic_id,
    session_id: event.session_id,
    created_at: event.timestamp,
  });
};

export const evidence_created: Projection<"evidence.created"> = (event, { connection }) => {
  const { evidence, ...links } = event.payload;
  insert_row(connection, evidence_refs, {
    ...links,
    id: evidence.id,
    session_id: event.session_id,
    kind: evidence.kind,
    ref: evidence.ref,
    claim: evidence.claim,
    location_json: json(evidence.location),
    created_at: event.timestamp,
  });
};

export const summary_created: Projection<"summary.created"> = (event, { connection }) => {
  const { summary_id, covered_message_ids, ...summary } = event.payload;
  insert_row(connection, summaries, {
    ...summary,
    id: summary_id,
    session_id: event.session_id,
    covered_message_ids_json: JSON.stringify(covered_message_ids),
    created_at: event.timestamp,
  });
};

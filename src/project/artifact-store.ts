import fs from "node:fs";
import path from "node:path";
import type { ArtifactRef, ArtifactType } from "../contracts/artifact.js";
import type { EntityRef } from "../contracts/entity.js";
import type { EventOrigin } from "../contracts/events/registry.js";
import { make_event } from "../contracts/events/registry.js";
import { new_id, now_iso, type ProjectId, type SessionId } from "../contracts/ids.js";
import type { EventIngestor } from "../actors/event-ingestor.js";
import { write_file_atomic } from "./atomic-write.js";

/** Artifact type → folder under the session's artifacts/ (seeds 001 D-054). */
const FOLDER_OF: Record<ArtifactType, string> = {
  build_log: "builds",
  test_log: "tests",
  command_log: "command-runs",
  screenshot: "screenshots",
  pcap: "pcaps",
  core_dump: "core-dumps",
  terminal_cast: "casts",
  diff: "diffs",
  report: "reports",
  messages: "messages",
  bundle: "bundles",
  other: "other",
};

export type ArtifactInput = {
  type: ArtifactType;
  content: string | Uint8Array;
  original_name?: string;
  mime_type?: string;
  extension?: string;
  entity?: EntityRef;
  task_id?: string;
  agent_id?: string;
  tool_run_id?: string;
  command_run_id?: string;
};

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 40) || "artifact";
}

/**
 * Writes artifact files as temp → sha256 → rename, then records `artifact.created` (seeds 000 §11.1).
 * A crash between rename and the event leaves an unregistered file, which recovery can find; never a row
 * pointing at a missing or partial file.
 */
export class ArtifactStore {
  constructor(
    private readonly root: string,
    private readonly ids: { project_id: ProjectId; session_id: SessionId },
    private readonly ingestor: EventIngestor,
    private readonly origin: EventOrigin,
  ) {}

  create(input: ArtifactInput): ArtifactRef {
    const id = new_id("artifact");
    const created_at = now_iso();
    const stamp = created_at.replace(/[-:.]/g, "");
    const extension = input.extension ?? (input.original_name === undefined ? ".txt" : path.extname(input.original_name));
    const relative = path.posix.join(
      FOLDER_OF[input.type],
      `${stamp}-${id}-${slug(input.original_name ?? input.type)}${extension}`,
    );
    const target = path.join(this.root, relative);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const { sha256, size_bytes } = write_file_atomic(target, input.content);
    const artifact: ArtifactRef = {
      id,
      type: input.type,
      uri: `artifact://project/${this.ids.project_id}/session/${this.ids.session_id}/${id}`,
      size_bytes,
      sha256,
      created_at,
    };
    const { content: _content, extension: _extension, type: _type, ...links } = input;
    this.ingestor.ingest(make_event("artifact.created", { artifact, path: relative, ...links }, this.origin));
    return artifact;
  }

  path_of(relative: string): string {
    return path.join(this.root, relative);
  }
}

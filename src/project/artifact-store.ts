import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import type { ArtifactRef, ArtifactType } from "../contracts/artifact.js";
import type { EntityRef } from "../contracts/entity.js";
import type { EventOrigin } from "../contracts/events/registry.js";
import { make_event } from "../contracts/events/registry.js";
import { ArtifactId, new_id, now_iso, type ProjectId, type SessionId } from "../contracts/ids.js";
import type { EventIngestor } from "../event-store/event-ingestor.js";
import { default_redactor, type SecretRedactor } from "../permissions/secret-redactor.js";
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

const TYPE_OF_FOLDER: ReadonlyMap<string, ArtifactType> = new Map(Object.entries(FOLDER_OF).map(([type, folder]) => [folder, type as ArtifactType]));

/** `#write`'s file name: `<created_at without - : .>-<artifact id>-<slug><extension>`. */
const FILE_NAME = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z-(art_[0-9A-HJKMNP-TV-Z]{26})-[^/]+$/;

/** What an artifact's place under artifacts/ records of it: its type (by folder), id and creation time (by name). */
export type ArtifactPathFacts = { readonly type: ArtifactType; readonly id: ArtifactId; readonly created_at: string };

/**
 * Reads back what `#write` put in a file's path, or undefined when the path is not one `#write` makes: a file
 * whose event was lost (a crash between its rename and `artifact.created`) can still be described truthfully.
 */
export function artifact_path_facts(relative: string): ArtifactPathFacts | undefined {
  const [folder, name, ...deeper] = relative.split("/");
  const type = folder === undefined ? undefined : TYPE_OF_FOLDER.get(folder);
  const match = name === undefined ? null : FILE_NAME.exec(name);
  if (type === undefined || match === null || deeper.length > 0) return undefined;
  const [, year, month, day, hour, minute, second, milli, id] = match;
  const created_at = `${year}-${month}-${day}T${hour}:${minute}:${second}.${milli}Z`;
  const parsed = v.safeParse(ArtifactId, id);
  if (!parsed.success || Number.isNaN(Date.parse(created_at))) return undefined;
  return { type, id: parsed.output, created_at };
}

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

/** Types whose content is text when no MIME type says otherwise: logs, terminal casts, diffs, reports, transcripts. */
const TEXT_TYPES: ReadonlySet<ArtifactType> = new Set(["build_log", "test_log", "command_log", "terminal_cast", "diff", "report", "messages"]);
const TEXT_MIME = /^text\/|[/+](json|xml|yaml|x-diff|x-patch)$/;

function is_text(input: ArtifactInput): boolean {
  if (typeof input.content === "string") return true;
  return input.mime_type === undefined ? TEXT_TYPES.has(input.type) : TEXT_MIME.test(input.mime_type);
}

const strict_utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The bytes to store: text with secrets redacted, binary untouched. Output that is not valid UTF-8 (a
 * command that printed some binary) is redacted as latin1, which maps every byte to one character and
 * back, so the bytes around a redaction survive exactly. Unchanged content keeps its original bytes.
 */
function redacted_content(input: ArtifactInput, redactor: SecretRedactor): string | Uint8Array {
  if (!is_text(input)) return input.content;
  if (typeof input.content === "string") return redactor.redact(input.content);
  const bytes = Buffer.from(input.content.buffer, input.content.byteOffset, input.content.byteLength);
  let text: string;
  let encoding: BufferEncoding = "utf8";
  try {
    text = strict_utf8.decode(bytes);
  } catch {
    text = bytes.toString("latin1");
    encoding = "latin1";
  }
  const redacted = redactor.redact(text);
  return redacted === text ? input.content : Buffer.from(redacted, encoding);
}

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 40) || "artifact"
  );
}

/**
 * Writes artifact files as temp → sha256 → rename, then records `artifact.created` (seeds 000 §11.1).
 * A crash between rename and the event leaves an unregistered file, which recovery can find; never a row
 * pointing at a missing or partial file. Text is redacted before it is written, and the recorded sha256
 * and size are those of the redacted bytes on disk.
 *
 * A `messages` artifact holds a model request, whoever keeps it: the same request kept again (the Main
 * Agent's assembler keeps a large one, then `model.complete` sends it) is the artifact already written.
 */
export class ArtifactStore {
  /** The `messages` artifacts written by this store, by the sha256 of their bytes. */
  readonly #requests = new Map<string, ArtifactRef>();

  constructor(
    private readonly root: string,
    private readonly ids: { project_id: ProjectId; session_id: SessionId },
    private readonly ingestor: EventIngestor,
    private readonly origin: EventOrigin,
    private readonly redactor: SecretRedactor = default_redactor(),
  ) {}

  create(input: ArtifactInput): ArtifactRef {
    const content = redacted_content(input, this.redactor);
    if (input.type !== "messages") return this.#write(input, content);
    const digest = crypto.createHash("sha256").update(content).digest("hex");
    let artifact = this.#requests.get(digest);
    if (artifact === undefined) {
      artifact = this.#write(input, content);
      this.#requests.set(digest, artifact);
    }
    return artifact;
  }

  path_of(relative: string): string {
    return path.join(this.root, relative);
  }

  #write(input: ArtifactInput, content: string | Uint8Array): ArtifactRef {
    const id = new_id("artifact");
    const created_at = now_iso();
    const stamp = created_at.replace(/[-:.]/g, "");
    const extension = input.extension ?? (input.original_name === undefined ? ".txt" : path.extname(input.original_name));
    const relative = path.posix.join(FOLDER_OF[input.type], `${stamp}-${id}-${slug(input.original_name ?? input.type)}${extension}`);
    const target = path.join(this.root, relative);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const { sha256, size_bytes } = write_file_atomic(target, content);
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
}

import * as v from "valibot";
import { ArtifactId, EvidenceId, Timestamp } from "./ids.js";

/** Persistent files and large data objects (seeds 001 D-043, D-054). */
export const ArtifactType = v.picklist([
  "build_log",
  "test_log",
  "command_log",
  "screenshot",
  "pcap",
  "core_dump",
  "terminal_cast",
  "diff",
  "report",
  "messages",
  "bundle",
  "other",
]);
export type ArtifactType = v.InferOutput<typeof ArtifactType>;

const ArtifactUri = v.pipe(v.string(), v.regex(/^artifact:\/\/project\/[^/]+\/session\/[^/]+\/art_[0-9A-HJKMNP-TV-Z]{26}$/, "expected an artifact:// uri"));

export const Sha256 = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, "expected a sha256 hex digest"));

export const ArtifactRef = v.strictObject({
  id: ArtifactId,
  type: ArtifactType,
  uri: ArtifactUri,
  size_bytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  sha256: v.optional(Sha256),
  created_at: Timestamp,
});
export type ArtifactRef = v.InferOutput<typeof ArtifactRef>;

/** A claim-supporting reference: what backs a statement such as "the tests pass" (seeds 001 D-043). */
export const EvidenceKind = v.picklist(["artifact_excerpt", "structured_result", "message", "tool_run", "command_run", "diagnostic"]);
export type EvidenceKind = v.InferOutput<typeof EvidenceKind>;

const Offset = v.pipe(v.number(), v.integer(), v.minValue(0));

const EvidenceLocation = v.strictObject({
  line_start: v.optional(Offset),
  line_end: v.optional(Offset),
  byte_start: v.optional(Offset),
  byte_end: v.optional(Offset),
});

export const EvidenceRef = v.strictObject({
  id: EvidenceId,
  kind: EvidenceKind,
  ref: v.pipe(v.string(), v.minLength(1)),
  location: v.optional(EvidenceLocation),
  claim: v.pipe(v.string(), v.minLength(1)),
});
export type EvidenceRef = v.InferOutput<typeof EvidenceRef>;

import * as v from "valibot";
import { ArtifactRef, EvidenceRef } from "../artifact.js";
import { EntityRef } from "../entity.js";
import { AgentId, ArtifactId, CommandRunId, DiagnosticId, MessageId, TaskId, ToolRunId } from "../ids.js";
import { durable } from "./define.js";
import { NonEmpty } from "./common.js";

export const DiagnosticSeverity = v.picklist(["error", "warning", "note", "info"]);
export type DiagnosticSeverity = v.InferOutput<typeof DiagnosticSeverity>;

const Line = v.pipe(v.number(), v.integer(), v.minValue(0));

const links = {
  task_id: v.optional(TaskId),
  agent_id: v.optional(AgentId),
  tool_run_id: v.optional(ToolRunId),
  command_run_id: v.optional(CommandRunId),
};

export const artifact_events = {
  "artifact.created": durable(
    v.strictObject({
      artifact: ArtifactRef,
      path: v.pipe(
        NonEmpty,
        v.check((p) => !p.startsWith("/") && !p.split("/").includes(".."), "path must stay inside the session's artifacts folder"),
      ),
      original_name: v.optional(NonEmpty),
      mime_type: v.optional(NonEmpty),
      entity: v.optional(EntityRef),
      ...links,
    }),
    "Inserts artifacts; emitted after the file was written to a temp name, hashed and renamed into place.",
  ),
  "diagnostic.created": durable(
    v.strictObject({
      diagnostic_id: DiagnosticId,
      severity: DiagnosticSeverity,
      message: NonEmpty,
      semantic_signature: NonEmpty,
      /** The kind of failure (code and message template); absent on events written before it existed. */
      family_signature: v.optional(NonEmpty),
      source_tool: v.optional(NonEmpty),
      file: v.optional(NonEmpty),
      line: v.optional(Line),
      column: v.optional(Line),
      code: v.optional(NonEmpty),
      artifact_id: v.optional(ArtifactId),
      task_id: v.optional(TaskId),
      command_run_id: v.optional(CommandRunId),
    }),
    "Inserts diagnostics (a compiler error, a failing test) parsed from command output.",
  ),
  "evidence.created": durable(
    v.strictObject({
      evidence: EvidenceRef,
      message_id: v.optional(MessageId),
      artifact_id: v.optional(ArtifactId),
      diagnostic_id: v.optional(DiagnosticId),
      ...links,
    }),
    "Inserts evidence_refs: what backs a claim.",
  ),
} as const;

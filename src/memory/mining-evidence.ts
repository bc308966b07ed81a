import type { EvidenceRef } from "../contracts/artifact.js";
import { make_event } from "../contracts/events/registry.js";
import { new_id } from "../contracts/ids.js";
import { MODEL_COMPLETE_TOOL } from "../contracts/tool.js";
import type { WorkerResult } from "../contracts/worker-result.js";
import type { Session } from "../project/session-manager.js";

/** One piece of verified evidence the miner is handed, under the id it cites. */
type Cited = { readonly id: string; readonly line: string };

/** Verified work since the last mining, as the miner's brief says it, and what it takes to trigger a mining. */
export type EvidenceBatch = {
  /** The last event read: the next mining reads after it. */
  readonly until_seq: number;
  /** Groups of evidence in the order they happened, each a heading line and its cited refs. */
  readonly groups: readonly { readonly heading: string; readonly cited: readonly Cited[]; readonly task_id?: string }[];
  readonly debug_records: readonly {
    readonly debug_record_id: string;
    readonly failure_signature: string;
    readonly summary: string;
    readonly task_id?: string;
  }[];
  /** Tool calls of the session's agents since the last mining (model calls and the miner's own reads not counted). */
  readonly tool_calls: number;
};

/** The ids a batch's evidence can be cited by. */
export function cited_ids(batch: EvidenceBatch): Set<string> {
  return new Set(batch.groups.flatMap((group) => group.cited.map((cited) => cited.id)));
}

export function has_evidence(batch: EvidenceBatch): boolean {
  return batch.groups.length > 0 || batch.debug_records.length > 0;
}

const verified = (result: WorkerResult) => result.verification.length > 0 && result.verification.every((check) => check.passed);

const line_of = (ref: EvidenceRef) => `- ${ref.id}: ${ref.kind} ${ref.ref} — ${ref.claim}`;

/**
 * Reads the session's events after `after_seq`: completed tasks whose verification passed (noting a repair a
 * review's findings led to), debug records created, and the agents' tool calls. `miners`: the agents whose own
 * tool calls do not count.
 */
export function evidence_since(session: Session, after_seq: number, miners: ReadonlySet<string>): EvidenceBatch {
  const stored = session.store.query({ types: ["task.completed", "task.retried", "debug.record.created", "tool.started"], after_seq });
  const reviewed = new Set<string>();
  const groups: EvidenceBatch["groups"][number][] = [];
  const debug_records: EvidenceBatch["debug_records"][number][] = [];
  let tool_calls = 0;
  for (const { event } of stored) {
    switch (event.type) {
      case "task.retried":
        if (event.payload.change === "review_findings") reviewed.add(event.payload.task_id);
        break;
      case "task.completed": {
        const result = event.payload.worker_result;
        if (!verified(result) || result.evidence_refs.length === 0) break;
        const repaired = reviewed.has(event.payload.task_id) ? ", repaired after a review's findings" : "";
        groups.push({
          heading: `Task ${event.payload.task_id} completed, its verification passed${repaired}: ${result.summary}`,
          cited: result.evidence_refs.map((ref) => ({ id: ref.id, line: line_of(ref) })),
          task_id: event.payload.task_id,
        });
        break;
      }
      case "debug.record.created":
        debug_records.push({
          debug_record_id: event.payload.debug_record_id,
          failure_signature: event.payload.failure_signature,
          summary: event.payload.summary,
          ...(event.payload.task_id === undefined ? {} : { task_id: event.payload.task_id }),
        });
        break;
      case "tool.started":
        if (event.payload.tool_name !== MODEL_COMPLETE_TOOL && !(event.payload.agent_id !== undefined && miners.has(event.payload.agent_id))) tool_calls += 1;
        break;
    }
  }
  return { until_seq: stored.at(-1)?.seq ?? after_seq, groups, debug_records, tool_calls };
}

/**
 * Gives each debug record of the batch an evidence ref of its own, recorded as `evidence.created`, so the
 * miner can cite it and a candidate's evidence stays traceable to the record; the groups with them added.
 */
export function with_debug_evidence(session: Session, batch: EvidenceBatch): EvidenceBatch["groups"] {
  const origin = { ...session.origin, route: ["runtime", "memory"] };
  const groups = [...batch.groups];
  for (const record of batch.debug_records) {
    const evidence: EvidenceRef = {
      id: new_id("evidence"),
      kind: "structured_result",
      ref: record.debug_record_id,
      claim: `verified fix of ${record.failure_signature}: ${record.summary}`,
    };
    session.ingestor.ingest(make_event("evidence.created", { evidence, ...(record.task_id === undefined ? {} : { task_id: record.task_id }) }, origin));
    groups.push({
      heading: `Debug record ${record.debug_record_id} (failure signature ${record.failure_signature})`,
      cited: [{ id: evidence.id, line: line_of(evidence) }],
      ...(record.task_id === undefined ? {} : { task_id: record.task_id }),
    });
  }
  return groups;
}

/** The miner's instructions: every piece of evidence under its id. */
export function evidence_brief(groups: EvidenceBatch["groups"]): string {
  const parts = groups.map((group) => [`## ${group.heading}`, ...group.cited.map((cited) => cited.line)].join("\n"));
  return ["# Verified evidence since the last mining", "", "Cite these ids in each candidate's evidence_ref_ids.", "", parts.join("\n\n")].join("\n");
}

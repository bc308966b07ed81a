import { to_air_error, type AirError } from "../contracts/errors.js";
import { make_event } from "../contracts/events/registry.js";
import type { MemoryCandidateDraft } from "../contracts/worker-result.js";
import type { Session } from "../project/session-manager.js";
import { open_memory_desk } from "./desk.js";
import type { LearnedMemory } from "./learned-memory-store.js";
import { auto_promotes } from "./memory-policy.js";
import type { EvidenceBatch } from "./mining-evidence.js";
import { promote } from "./promotion.js";

type Handed = { readonly cited: ReadonlySet<string>; readonly groups: EvidenceBatch["groups"] };

/** Drafts dropped for citing nothing handed over, and candidates the policy let through but whose promotion failed. */
type Recorded = { readonly dropped: MemoryCandidateDraft[]; readonly unpromoted: { memory: LearnedMemory; error: AirError }[] };

/**
 * The miner's drafts as candidates: each one's row in learned-memory.db, then its `memory.candidate.created`
 * (the store's write first, seeds 000 §18.4). A draft keeps only the evidence it was handed; one left with none
 * is dropped. Then the project's policy promotes what it lets air promote by itself; a promotion that fails
 * leaves its candidate waiting for the user.
 */
export async function record_candidates(session: Session, drafts: readonly MemoryCandidateDraft[], handed: Handed): Promise<Recorded> {
  const dropped: MemoryCandidateDraft[] = [];
  const unpromoted: Recorded["unpromoted"] = [];
  const desk = open_memory_desk(session);
  try {
    const created: LearnedMemory[] = [];
    for (const draft of drafts) {
      const evidence_ref_ids = draft.evidence_ref_ids.filter((id) => handed.cited.has(id));
      if (evidence_ref_ids.length === 0) {
        dropped.push(draft);
        continue;
      }
      const source_task_id = handed.groups.find(
        (group) => group.task_id !== undefined && group.cited.some((cited) => cited.id === evidence_ref_ids[0]),
      )?.task_id;
      const memory = desk.store.insert({
        memory_type: draft.memory_type,
        title: draft.title,
        content: draft.content,
        evidence_ref_ids,
        source_session_id: session.id,
        ...(source_task_id === undefined ? {} : { source_task_id }),
      });
      session.ingestor.ingest(
        make_event(
          "memory.candidate.created",
          {
            candidate_id: memory.id,
            memory_type: memory.memory_type,
            content: memory.content,
            evidence_ref_ids,
            ...(source_task_id === undefined ? {} : { source_task_id }),
          },
          { ...session.origin, route: ["runtime", "memory"] },
        ),
      );
      created.push(memory);
    }
    for (const memory of created) {
      if (!auto_promotes(desk.policy, memory)) continue;
      try {
        await promote(desk, memory.id, "policy");
      } catch (error) {
        unpromoted.push({ memory, error: to_air_error(error) });
      }
    }
  } finally {
    desk.store.close();
  }
  return { dropped, unpromoted };
}

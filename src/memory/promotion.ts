import fs from "node:fs";
import path from "node:path";
import { air_failure } from "../contracts/errors.js";
import { make_event, type EventType, type PayloadInputOf } from "../contracts/events/registry.js";
import type { Session } from "../project/session-manager.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { LearnedMemory, LearnedMemoryStore } from "./learned-memory-store.js";
import { DB_TARGET_PREFIX, promoted_file, remove_memory_file, write_memory_file } from "./memory-files.js";
import type { MemoryPolicy } from "./memory-policy.js";

/**
 * What promotion, rejection and archiving work with: the session their tool runs and events are recorded in,
 * the registry whose `fs.*` tools write the rule and skill files, the store, the project's policy.
 */
export type MemoryDesk = {
  readonly session: Session;
  readonly registry: ToolRegistry;
  readonly store: LearnedMemoryStore;
  readonly policy: MemoryPolicy;
};

function record<T extends EventType>(session: Session, type: T, payload: PayloadInputOf<T>): void {
  session.ingestor.ingest(make_event(type, payload, { ...session.origin, route: ["runtime", "memory"] }));
}

function not_a_candidate(memory: LearnedMemory) {
  return air_failure({
    kind: "user_error",
    message: `memory ${memory.id} is ${memory.status}, not a candidate`,
    retryability: "not_retryable",
    user_action: "Only candidates are reviewed; see `air memory list`.",
    metadata: { memory_id: memory.id, status: memory.status },
  });
}

/** The file of a rule or skill is there already with other bytes: a promotion never overwrites someone's file. */
function target_taken(memory: LearnedMemory, relative: string) {
  return air_failure({
    kind: "user_error",
    message: `${relative} already exists; memory ${memory.id} was not promoted over it`,
    retryability: "not_retryable",
    user_action: `Move ${relative} aside or merge the candidate into it by hand, then reject the candidate.`,
    metadata: { memory_id: memory.id, path: relative },
  });
}

/** Whether the candidate has the verified evidence the policy asks of any promotion. */
export function meets_threshold(policy: MemoryPolicy, memory: LearnedMemory): boolean {
  return memory.evidence_ref_ids.length >= policy.evidence_threshold;
}

/**
 * Promotes a candidate (seeds 000 §18.4's order): the owning store's write first — the rule or skill file
 * through the tools, a fact or pitfall by its row — then its status, then one `memory.promoted`. A file already
 * there with the same bytes is a write a crash cut off before the status: it is taken as done.
 */
export async function promote(desk: MemoryDesk, id: string, promoted_by: string): Promise<LearnedMemory> {
  const memory = desk.store.get(id);
  if (memory.status !== "candidate") throw not_a_candidate(memory);
  if (!meets_threshold(desk.policy, memory)) {
    throw air_failure({
      kind: "policy_error",
      message: `memory ${id} rests on ${memory.evidence_ref_ids.length} verified evidence ref(s); promotion needs ${desk.policy.evidence_threshold}`,
      retryability: "not_retryable",
      user_action: "Reject the candidate, or lower evidence_threshold in .air/shared/memory-policy.yaml.",
      metadata: { memory_id: id, evidence: memory.evidence_ref_ids.length, threshold: desk.policy.evidence_threshold },
    });
  }
  const file = promoted_file(memory);
  let target_ref = `${DB_TARGET_PREFIX}${memory.id}`;
  if (file !== undefined) {
    const absolute = path.join(desk.session.project.layout.root, file.path);
    const existing = fs.existsSync(absolute) ? fs.readFileSync(absolute, "utf8") : undefined;
    if (existing !== undefined && existing !== file.content) throw target_taken(memory, file.path);
    if (existing === undefined) await write_memory_file(desk.session, desk.registry, file);
    target_ref = file.path;
  }
  const promoted = desk.store.update_status(id, "promoted", { target_ref });
  record(desk.session, "memory.promoted", {
    candidate_id: promoted.id,
    target_ref,
    promoted_by,
    summary: `${promoted.memory_type} "${promoted.title}" promoted by ${promoted_by}`,
  });
  return promoted;
}

/** A candidate the reviewer turned down: kept, with its reason, so it is not proposed as new again. */
export function reject(desk: MemoryDesk, id: string, reason: string): LearnedMemory {
  const memory = desk.store.get(id);
  if (memory.status !== "candidate") throw not_a_candidate(memory);
  return desk.store.update_status(id, "rejected", { reason });
}

/**
 * Makes a memory inactive (stale or harmful): a promoted file is removed through the tools first, so L3 no
 * longer carries it, then the status, then `memory.archived`.
 */
export async function archive(desk: MemoryDesk, id: string, reason: string): Promise<LearnedMemory> {
  const memory = desk.store.get(id);
  if (memory.status !== "candidate" && memory.status !== "promoted") {
    throw air_failure({
      kind: "user_error",
      message: `memory ${id} is ${memory.status}; only candidates and promoted memories are archived`,
      retryability: "not_retryable",
      user_action: "See `air memory list`.",
      metadata: { memory_id: id, status: memory.status },
    });
  }
  const target = memory.target_ref;
  if (memory.status === "promoted" && target !== undefined && !target.startsWith(DB_TARGET_PREFIX)) {
    await remove_memory_file(desk.session, desk.registry, target);
  }
  const archived = desk.store.update_status(id, "archived", { reason });
  record(desk.session, "memory.archived", { memory_id: archived.id, reason });
  return archived;
}

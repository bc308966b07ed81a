import fs from "node:fs";
import path from "node:path";
import { and, asc, eq, lt, or, isNull, isNotNull } from "drizzle-orm";
import * as v from "valibot";
import { air_failure } from "../contracts/errors.js";
import type { MemoryType } from "../contracts/events/memory.js";
import { EvidenceId, new_id, now_iso, type MemoryId } from "../contracts/ids.js";
import { Connection } from "../db/connection.js";
import { learned_memories, type LearnedMemoryStatus } from "../db/learned-memory-schema.js";
import { migrate } from "../db/migrate.js";
import type { ProjectLayout } from "../project/layout.js";

export type MemoryStatus = v.InferOutput<typeof LearnedMemoryStatus>;

/** One row of learned-memory.db, its evidence ids decoded. */
export type LearnedMemory = {
  readonly id: MemoryId;
  readonly memory_type: MemoryType;
  readonly title: string;
  readonly content: string;
  readonly status: MemoryStatus;
  readonly evidence_ref_ids: readonly string[];
  readonly target_ref: string | undefined;
  readonly source_session_id: string | undefined;
  readonly source_task_id: string | undefined;
  readonly status_reason: string | undefined;
  readonly created_at: string;
  readonly updated_at: string;
  readonly last_used_at: string | undefined;
};

export type NewMemory = {
  readonly memory_type: MemoryType;
  readonly title: string;
  readonly content: string;
  readonly evidence_ref_ids: readonly string[];
  readonly source_session_id?: string;
  readonly source_task_id?: string;
};

/**
 * Where an entry may go from each status: a candidate is decided once (promoted or rejected), a promoted
 * entry can only be archived, and archived or rejected entries stay as they are (their history is the point).
 */
const MOVES: Readonly<Record<MemoryStatus, readonly MemoryStatus[]>> = {
  candidate: ["promoted", "rejected", "archived"],
  promoted: ["archived"],
  rejected: [],
  archived: [],
};

const EvidenceIds = v.array(EvidenceId);

type Row = typeof learned_memories.$inferSelect;

function decoded(row: Row): LearnedMemory {
  return {
    id: row.id as MemoryId,
    memory_type: row.memory_type,
    title: row.title,
    content: row.content,
    status: row.status,
    evidence_ref_ids: v.parse(EvidenceIds, JSON.parse(row.evidence_ref_ids_json)),
    target_ref: row.target_ref ?? undefined,
    source_session_id: row.source_session_id ?? undefined,
    source_task_id: row.source_task_id ?? undefined,
    status_reason: row.status_reason ?? undefined,
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_used_at: row.last_used_at ?? undefined,
  };
}

function no_memory_failure(id: string) {
  return air_failure({
    kind: "user_error",
    message: `no memory ${id} in learned-memory.db`,
    retryability: "not_retryable",
    user_action: "List the memories with `air memory list`.",
    metadata: { memory_id: id },
  });
}

/**
 * `.air/local/learned-memory.db`, the project's memory candidates and their fate (seeds 000 §11.3). This class
 * is the file's only writer (INV-2): every change is one `BEGIN IMMEDIATE` transaction through its connection.
 */
export class LearnedMemoryStore {
  private constructor(private readonly connection: Connection) {}

  static open(layout: Pick<ProjectLayout, "learned_memory_db">): LearnedMemoryStore {
    fs.mkdirSync(path.dirname(layout.learned_memory_db), { recursive: true });
    const connection = Connection.open(layout.learned_memory_db);
    try {
      migrate(connection, "learned_memory");
    } catch (error) {
      connection.close();
      throw error;
    }
    return new LearnedMemoryStore(connection);
  }

  insert(memory: NewMemory): LearnedMemory {
    const at = now_iso();
    const id = new_id("memory");
    this.connection.write(() => {
      this.connection.db
        .insert(learned_memories)
        .values({
          id,
          memory_type: memory.memory_type,
          title: memory.title,
          content: memory.content,
          status: "candidate",
          evidence_ref_ids_json: JSON.stringify(v.parse(EvidenceIds, [...memory.evidence_ref_ids])),
          source_session_id: memory.source_session_id ?? null,
          source_task_id: memory.source_task_id ?? null,
          created_at: at,
          updated_at: at,
        })
        .run();
    });
    return this.get(id);
  }

  find(id: string): LearnedMemory | undefined {
    const row = this.connection.db.select().from(learned_memories).where(eq(learned_memories.id, id)).get();
    return row === undefined ? undefined : decoded(row);
  }

  get(id: string): LearnedMemory {
    const found = this.find(id);
    if (found === undefined) throw no_memory_failure(id);
    return found;
  }

  /** Every entry, oldest first. */
  list(): LearnedMemory[] {
    return this.connection.db.select().from(learned_memories).orderBy(asc(learned_memories.created_at), asc(learned_memories.id)).all().map(decoded);
  }

  lookup_by_type(memory_type: MemoryType, status: MemoryStatus = "promoted"): LearnedMemory[] {
    return this.connection.db
      .select()
      .from(learned_memories)
      .where(and(eq(learned_memories.memory_type, memory_type), eq(learned_memories.status, status)))
      .orderBy(asc(learned_memories.created_at), asc(learned_memories.id))
      .all()
      .map(decoded);
  }

  lookup_by_status(status: MemoryStatus): LearnedMemory[] {
    return this.connection.db
      .select()
      .from(learned_memories)
      .where(eq(learned_memories.status, status))
      .orderBy(asc(learned_memories.created_at), asc(learned_memories.id))
      .all()
      .map(decoded);
  }

  /** Moves an entry on (see MOVES); a move its status does not allow is refused and nothing changes. */
  update_status(id: string, status: MemoryStatus, details: { target_ref?: string; reason?: string } = {}): LearnedMemory {
    this.connection.write(() => {
      const current = this.get(id);
      if (!MOVES[current.status].includes(status)) {
        throw air_failure({
          kind: "user_error",
          message: `memory ${id} is ${current.status}; it cannot become ${status}`,
          retryability: "not_retryable",
          user_action: "Only candidates are promoted or rejected, and only candidates or promoted memories archived.",
          metadata: { memory_id: id, status: current.status, requested: status },
        });
      }
      this.connection.db
        .update(learned_memories)
        .set({
          status,
          updated_at: now_iso(),
          ...(details.target_ref === undefined ? {} : { target_ref: details.target_ref }),
          ...(details.reason === undefined ? {} : { status_reason: details.reason }),
        })
        .where(eq(learned_memories.id, id))
        .run();
    });
    return this.get(id);
  }

  /** Records that a promoted entry was put to use: it is not stale. */
  touch(id: string, at: string = now_iso()): void {
    this.connection.write(() => {
      this.connection.db.update(learned_memories).set({ last_used_at: at }).where(eq(learned_memories.id, id)).run();
    });
  }

  /** Promoted entries not used (or, never used, not changed) since `before`: candidates for archiving. */
  scan_stale(before: string): LearnedMemory[] {
    const { last_used_at, updated_at } = learned_memories;
    return this.connection.db
      .select()
      .from(learned_memories)
      .where(
        and(
          eq(learned_memories.status, "promoted"),
          or(and(isNotNull(last_used_at), lt(last_used_at, before)), and(isNull(last_used_at), lt(updated_at, before))),
        ),
      )
      .orderBy(asc(learned_memories.created_at), asc(learned_memories.id))
      .all()
      .map(decoded);
  }

  close(): void {
    this.connection.close();
  }
}

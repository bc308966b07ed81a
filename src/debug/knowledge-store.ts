import { and, desc, eq, sql } from "drizzle-orm";
import * as v from "valibot";
import { EvidenceRef } from "../contracts/artifact.js";
import { DebugRecordId, now_iso } from "../contracts/ids.js";
import { Connection } from "../db/connection.js";
import { debug_records, DebugRecordStatus } from "../db/debug-records-schema.js";
import { migrate } from "../db/migrate.js";

const Text = v.pipe(v.string(), v.minLength(1));

/** A verified fix of one failure, as the DebugKnowledgeStore keeps it (seeds 000 §11.3). */
export const DebugRecord = v.strictObject({
  id: DebugRecordId,
  failure_signature: Text,
  family_signature: v.optional(Text),
  title: Text,
  symptom: Text,
  root_cause: v.string(),
  fix_summary: Text,
  fix_diff_ref: v.optional(Text),
  changed_files: v.array(v.string()),
  evidence_refs: v.array(EvidenceRef),
  verified: v.boolean(),
  status: DebugRecordStatus,
  source_session_id: v.optional(Text),
  source_task_id: v.optional(Text),
  source_attempt_id: v.optional(Text),
  hit_count: v.pipe(v.number(), v.integer(), v.minValue(0)),
  created_at: Text,
  updated_at: Text,
});
export type DebugRecord = v.InferOutput<typeof DebugRecord>;

/** What a writer supplies; the store stamps the rest (active, no hits yet, the times). */
export type NewDebugRecord = Omit<DebugRecord, "status" | "hit_count" | "created_at" | "updated_at">;

/** A record found for a failure, and by which of its signatures. */
export type KnownFix = { readonly record: DebugRecord; readonly matched_by: "signature" | "family" };

type Row = typeof debug_records.$inferSelect;

function record_of(row: Row): DebugRecord {
  return v.parse(DebugRecord, {
    id: row.id,
    failure_signature: row.failure_signature,
    family_signature: row.family_signature ?? undefined,
    title: row.title,
    symptom: row.symptom,
    root_cause: row.root_cause,
    fix_summary: row.fix_summary,
    fix_diff_ref: row.fix_diff_ref ?? undefined,
    changed_files: JSON.parse(row.changed_files_json),
    evidence_refs: JSON.parse(row.evidence_refs_json),
    verified: row.verified === 1,
    status: row.status,
    source_session_id: row.source_session_id ?? undefined,
    source_task_id: row.source_task_id ?? undefined,
    source_attempt_id: row.source_attempt_id ?? undefined,
    hit_count: row.hit_count,
    created_at: row.created_at,
    updated_at: row.updated_at,
  });
}

/**
 * `.air/local/debug-records.db`, the project's verified failure knowledge (INV-2: this class is its only
 * writer, opened once by the runtime). A lookup returns only active, verified records, the most used first.
 */
export class DebugKnowledgeStore {
  private constructor(readonly connection: Connection) {}

  static open(file: string): DebugKnowledgeStore {
    const connection = Connection.open(file);
    try {
      migrate(connection, "debug_records");
    } catch (error) {
      connection.close();
      throw error;
    }
    return new DebugKnowledgeStore(connection);
  }

  /** Writes the record unless one with its id exists (a repeat of the same write); the stored record either way. */
  insert(record: NewDebugRecord): { readonly record: DebugRecord; readonly inserted: boolean } {
    const checked = v.parse(DebugRecord, { ...record, status: "active", hit_count: 0, created_at: now_iso(), updated_at: now_iso() });
    const inserted = this.connection.write(() => {
      if (this.get(checked.id) !== undefined) return false;
      this.connection.db
        .insert(debug_records)
        .values({
          ...checked,
          family_signature: checked.family_signature ?? null,
          fix_diff_ref: checked.fix_diff_ref ?? null,
          source_session_id: checked.source_session_id ?? null,
          source_task_id: checked.source_task_id ?? null,
          source_attempt_id: checked.source_attempt_id ?? null,
          changed_files_json: JSON.stringify(checked.changed_files),
          evidence_refs_json: JSON.stringify(checked.evidence_refs),
          verified: checked.verified ? 1 : 0,
        })
        .run();
      return true;
    });
    const stored = this.get(checked.id);
    if (stored === undefined) throw new Error(`debug record ${checked.id} is missing right after its write`);
    return { record: stored, inserted };
  }

  get(id: string): DebugRecord | undefined {
    const row = this.connection.db.select().from(debug_records).where(eq(debug_records.id, id)).get();
    return row === undefined ? undefined : record_of(row);
  }

  lookup_by_signature(signature: string): DebugRecord | undefined {
    return this.#best(eq(debug_records.failure_signature, signature));
  }

  lookup_by_family(family_signature: string): DebugRecord | undefined {
    return this.#best(eq(debug_records.family_signature, family_signature));
  }

  /** The known fix of a failure: by its exact signature, else by its family's. */
  lookup(signature: string, family_signature?: string): KnownFix | undefined {
    const exact = this.lookup_by_signature(signature);
    if (exact !== undefined) return { record: exact, matched_by: "signature" };
    const family = family_signature === undefined ? undefined : this.lookup_by_family(family_signature);
    return family === undefined ? undefined : { record: family, matched_by: "family" };
  }

  lookup_by_task(task_id: string): DebugRecord[] {
    return this.connection.db
      .select()
      .from(debug_records)
      .where(eq(debug_records.source_task_id, task_id))
      .orderBy(debug_records.created_at)
      .all()
      .map(record_of);
  }

  /** The records written from one session's debug attempts, for its recovery to reconcile. */
  lookup_by_session(session_id: string): DebugRecord[] {
    return this.connection.db
      .select()
      .from(debug_records)
      .where(eq(debug_records.source_session_id, session_id))
      .orderBy(debug_records.created_at)
      .all()
      .map(record_of);
  }

  /** Counts one more use of a record as a known fix, or changes its status. */
  update(id: string, change: { readonly hit?: true; readonly status?: DebugRecord["status"] }): void {
    this.connection.write(() => {
      this.connection.db
        .update(debug_records)
        .set({
          ...(change.hit === true ? { hit_count: sql`${debug_records.hit_count} + 1` } : {}),
          ...(change.status === undefined ? {} : { status: change.status }),
          updated_at: now_iso(),
        })
        .where(eq(debug_records.id, id))
        .run();
    });
  }

  close(): void {
    this.connection.close();
  }

  #best(condition: ReturnType<typeof eq>): DebugRecord | undefined {
    const row = this.connection.db
      .select()
      .from(debug_records)
      .where(and(condition, eq(debug_records.status, "active"), eq(debug_records.verified, 1)))
      .orderBy(desc(debug_records.hit_count), desc(debug_records.created_at))
      .get();
    return row === undefined ? undefined : record_of(row);
  }
}

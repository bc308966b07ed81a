/** `.air/local/debug-records.db`: verified failure knowledge, written only by DebugKnowledgeStore (INV-2). */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import * as v from "valibot";
import { enum_check, enum_column, flag_check } from "./columns.js";

export const DebugRecordStatus = v.picklist(["active", "superseded", "archived"]);

export const schema_meta = sqliteTable("schema_meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

export const debug_records = sqliteTable(
  "debug_records",
  {
    id: text("id").primaryKey(),
    failure_signature: text("failure_signature").notNull(),
    /** The coarser signature of the failure's family (cpp diagnostics), the fallback of a lookup. */
    family_signature: text("family_signature"),
    title: text("title").notNull(),
    symptom: text("symptom").notNull(),
    root_cause: text("root_cause").notNull(),
    fix_summary: text("fix_summary").notNull(),
    /** The diff artifact of the fix, in the source session's artifacts. */
    fix_diff_ref: text("fix_diff_ref"),
    /** The fix's changed files (JSON array), so a reader knows where it applied. */
    changed_files_json: text("changed_files_json").notNull().default("[]"),
    evidence_refs_json: text("evidence_refs_json").notNull(),
    verified: integer("verified").notNull(),
    status: enum_column("status", DebugRecordStatus.options).notNull(),
    source_session_id: text("source_session_id"),
    source_task_id: text("source_task_id"),
    /** The debug attempt whose landed work the record is of: one record per attempt, whatever recovery repeats. */
    source_attempt_id: text("source_attempt_id"),
    hit_count: integer("hit_count").notNull().default(0),
    created_at: text("created_at").notNull(),
    updated_at: text("updated_at").notNull(),
  },
  (t) => [
    index("debug_records_signature_idx").on(t.failure_signature),
    index("debug_records_task_idx").on(t.source_task_id),
    index("debug_records_family_idx").on(t.family_signature),
    enum_check("debug_records", "status", DebugRecordStatus.options),
    flag_check("debug_records", "verified"),
  ],
);

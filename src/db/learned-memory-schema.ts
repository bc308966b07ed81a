/** `.air/local/learned-memory.db`: memory candidates and their fate, written only by LearnedMemoryStore (INV-2). */
import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import * as v from "valibot";
import { MemoryType } from "../contracts/events/memory.js";
import { enum_check, enum_column } from "./columns.js";

export const LearnedMemoryStatus = v.picklist(["candidate", "promoted", "rejected", "archived"]);

export const schema_meta = sqliteTable("schema_meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

export const learned_memories = sqliteTable(
  "learned_memories",
  {
    id: text("id").primaryKey(),
    memory_type: enum_column("memory_type", MemoryType.options).notNull(),
    /** Names the rule file or the skill folder once promoted. */
    title: text("title").notNull().default(""),
    content: text("content").notNull(),
    status: enum_column("status", LearnedMemoryStatus.options).notNull(),
    evidence_ref_ids_json: text("evidence_ref_ids_json").notNull(),
    target_ref: text("target_ref"),
    source_session_id: text("source_session_id"),
    source_task_id: text("source_task_id"),
    created_at: text("created_at").notNull(),
    updated_at: text("updated_at").notNull(),
    last_used_at: text("last_used_at"),
    /** Why the entry was rejected or archived. */
    status_reason: text("status_reason"),
  },
  (t) => [
    index("learned_memories_status_idx").on(t.status),
    index("learned_memories_type_idx").on(t.memory_type),
    enum_check("learned_memories", "memory_type", MemoryType.options),
    enum_check("learned_memories", "status", LearnedMemoryStatus.options),
  ],
);

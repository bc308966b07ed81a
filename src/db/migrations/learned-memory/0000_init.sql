CREATE TABLE `learned_memories` (
	`id` text PRIMARY KEY NOT NULL,
	`memory_type` text NOT NULL,
	`content` text NOT NULL,
	`status` text NOT NULL,
	`evidence_ref_ids_json` text NOT NULL,
	`target_ref` text,
	`source_session_id` text,
	`source_task_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`last_used_at` text,
	CONSTRAINT "learned_memories_memory_type_enum" CHECK("memory_type" in ('rule', 'skill', 'fact', 'pitfall')),
	CONSTRAINT "learned_memories_status_enum" CHECK("status" in ('candidate', 'promoted', 'rejected', 'archived'))
);
--> statement-breakpoint
CREATE INDEX `learned_memories_status_idx` ON `learned_memories` (`status`);--> statement-breakpoint
CREATE INDEX `learned_memories_type_idx` ON `learned_memories` (`memory_type`);--> statement-breakpoint
CREATE TABLE `schema_meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);

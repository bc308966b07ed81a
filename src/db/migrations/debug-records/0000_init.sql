CREATE TABLE `debug_records` (
	`id` text PRIMARY KEY NOT NULL,
	`failure_signature` text NOT NULL,
	`title` text NOT NULL,
	`symptom` text NOT NULL,
	`root_cause` text NOT NULL,
	`fix_summary` text NOT NULL,
	`evidence_refs_json` text NOT NULL,
	`verified` integer NOT NULL,
	`status` text NOT NULL,
	`source_session_id` text,
	`source_task_id` text,
	`hit_count` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	CONSTRAINT "debug_records_status_enum" CHECK("status" in ('active', 'superseded', 'archived')),
	CONSTRAINT "debug_records_verified_flag" CHECK("verified" in (0, 1))
);
--> statement-breakpoint
CREATE INDEX `debug_records_signature_idx` ON `debug_records` (`failure_signature`);--> statement-breakpoint
CREATE INDEX `debug_records_task_idx` ON `debug_records` (`source_task_id`);--> statement-breakpoint
CREATE TABLE `schema_meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);

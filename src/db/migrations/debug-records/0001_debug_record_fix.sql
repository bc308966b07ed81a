ALTER TABLE `debug_records` ADD `family_signature` text;--> statement-breakpoint
ALTER TABLE `debug_records` ADD `fix_diff_ref` text;--> statement-breakpoint
ALTER TABLE `debug_records` ADD `changed_files_json` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `debug_records` ADD `source_attempt_id` text;--> statement-breakpoint
CREATE INDEX `debug_records_family_idx` ON `debug_records` (`family_signature`);
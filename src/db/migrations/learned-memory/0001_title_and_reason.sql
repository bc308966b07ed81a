ALTER TABLE `learned_memories` ADD `title` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `learned_memories` ADD `status_reason` text;
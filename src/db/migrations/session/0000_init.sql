CREATE TABLE `agents` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`task_id` text,
	`agent_type` text NOT NULL,
	`status` text NOT NULL,
	`pid` integer,
	`model_id` text,
	`exit_code` integer,
	`status_reason` text,
	`error_json` text,
	`started_at` text NOT NULL,
	`ended_at` text,
	`last_heartbeat_at` text,
	CONSTRAINT "agents_agent_type_enum" CHECK("agent_type" in ('executor', 'reviewer', 'debugger', 'compactor', 'experience_miner')),
	CONSTRAINT "agents_status_enum" CHECK("status" in ('starting', 'running', 'completed', 'failed', 'lost', 'cancelled'))
);
--> statement-breakpoint
CREATE INDEX `agents_status_idx` ON `agents` (`status`);--> statement-breakpoint
CREATE TABLE `artifacts` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`type` text NOT NULL,
	`uri` text NOT NULL,
	`path` text NOT NULL,
	`original_name` text,
	`mime_type` text,
	`size_bytes` integer NOT NULL,
	`sha256` text NOT NULL,
	`task_id` text,
	`agent_id` text,
	`tool_run_id` text,
	`command_run_id` text,
	`entity_type` text,
	`entity_id` text,
	`created_at` text NOT NULL,
	CONSTRAINT "artifacts_type_enum" CHECK("type" in ('build_log', 'test_log', 'command_log', 'screenshot', 'pcap', 'core_dump', 'terminal_cast', 'diff', 'report', 'messages', 'bundle', 'other')),
	CONSTRAINT "artifacts_entity_type_enum" CHECK("entity_type" is null or "entity_type" in ('project', 'session', 'message', 'event', 'task', 'attempt', 'agent', 'tool_run', 'command_run', 'artifact', 'diagnostic', 'evidence', 'workspace', 'summary', 'capability', 'permission', 'debug_record', 'memory', 'file'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `artifacts_uri_unique` ON `artifacts` (`uri`);--> statement-breakpoint
CREATE INDEX `artifacts_task_idx` ON `artifacts` (`task_id`);--> statement-breakpoint
CREATE TABLE `capabilities` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`name` text NOT NULL,
	`version` text NOT NULL,
	`trust_level` text NOT NULL,
	`status` text NOT NULL,
	`tool_names_json` text,
	`error_json` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	CONSTRAINT "capabilities_trust_level_enum" CHECK("trust_level" in ('built_in', 'project_local', 'user_installed', 'verified_publisher', 'untrusted')),
	CONSTRAINT "capabilities_status_enum" CHECK("status" in ('discovered', 'validated', 'doctor_checked', 'enabled', 'registered', 'active', 'disabled', 'failed', 'updated'))
);
--> statement-breakpoint
CREATE TABLE `command_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`task_id` text,
	`agent_id` text,
	`tool_run_id` text,
	`origin_message_id` text,
	`command` text NOT NULL,
	`cwd` text NOT NULL,
	`started_at` text NOT NULL,
	`completed_at` text,
	`exit_code` integer,
	`signal` text,
	`duration_ms` integer,
	`stdout_artifact_id` text,
	`stderr_artifact_id` text,
	`diagnostic_ids_json` text,
	`error_json` text,
	`cancelled_at` text,
	`cancel_reason` text
);
--> statement-breakpoint
CREATE INDEX `command_runs_task_idx` ON `command_runs` (`task_id`);--> statement-breakpoint
CREATE INDEX `command_runs_tool_run_idx` ON `command_runs` (`tool_run_id`);--> statement-breakpoint
CREATE TABLE `diagnostics` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`task_id` text,
	`command_run_id` text,
	`artifact_id` text,
	`severity` text NOT NULL,
	`source_tool` text,
	`file` text,
	`line` integer,
	`column` integer,
	`code` text,
	`message` text NOT NULL,
	`semantic_signature` text NOT NULL,
	`created_at` text NOT NULL,
	CONSTRAINT "diagnostics_severity_enum" CHECK("severity" in ('error', 'warning', 'note', 'info'))
);
--> statement-breakpoint
CREATE INDEX `diagnostics_signature_idx` ON `diagnostics` (`semantic_signature`);--> statement-breakpoint
CREATE INDEX `diagnostics_command_run_idx` ON `diagnostics` (`command_run_id`);--> statement-breakpoint
CREATE TABLE `events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`version` integer NOT NULL,
	`timestamp` text NOT NULL,
	`session_id` text NOT NULL,
	`project_id` text,
	`source_kind` text NOT NULL,
	`source_id` text,
	`source_agent_type` text,
	`route_json` text NOT NULL,
	`route_text` text NOT NULL,
	`task_id` text,
	`agent_id` text,
	`tool_run_id` text,
	`command_run_id` text,
	`payload_json` text NOT NULL,
	CONSTRAINT "events_source_kind_enum" CHECK("source_kind" in ('main', 'architecture_designer', 'scheduler', 'agent', 'tool', 'system', 'user')),
	CONSTRAINT "events_source_agent_type_enum" CHECK("source_agent_type" is null or "source_agent_type" in ('executor', 'reviewer', 'debugger', 'compactor', 'experience_miner'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_id_unique` ON `events` (`id`);--> statement-breakpoint
CREATE INDEX `events_type_idx` ON `events` (`type`);--> statement-breakpoint
CREATE INDEX `events_task_idx` ON `events` (`task_id`) WHERE "events"."task_id" is not null;--> statement-breakpoint
CREATE INDEX `events_agent_idx` ON `events` (`agent_id`) WHERE "events"."agent_id" is not null;--> statement-breakpoint
CREATE INDEX `events_tool_run_idx` ON `events` (`tool_run_id`) WHERE "events"."tool_run_id" is not null;--> statement-breakpoint
CREATE INDEX `events_command_run_idx` ON `events` (`command_run_id`) WHERE "events"."command_run_id" is not null;--> statement-breakpoint
CREATE INDEX `events_route_idx` ON `events` (`route_text`);--> statement-breakpoint
CREATE TABLE `evidence_refs` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`kind` text NOT NULL,
	`ref` text NOT NULL,
	`claim` text NOT NULL,
	`location_json` text,
	`task_id` text,
	`agent_id` text,
	`message_id` text,
	`tool_run_id` text,
	`command_run_id` text,
	`artifact_id` text,
	`diagnostic_id` text,
	`created_at` text NOT NULL,
	CONSTRAINT "evidence_refs_kind_enum" CHECK("kind" in ('artifact_excerpt', 'structured_result', 'message', 'tool_run', 'command_run', 'diagnostic'))
);
--> statement-breakpoint
CREATE INDEX `evidence_refs_task_idx` ON `evidence_refs` (`task_id`);--> statement-breakpoint
CREATE TABLE `message_drafts` (
	`message_id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`status` text NOT NULL,
	`content_json` text NOT NULL,
	`task_id` text,
	`agent_id` text,
	`model_id` text,
	`error_json` text,
	`failure_artifact_id` text,
	`started_at` text NOT NULL,
	`updated_at` text NOT NULL,
	CONSTRAINT "message_drafts_status_enum" CHECK("status" in ('streaming', 'error'))
);
--> statement-breakpoint
CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`role` text NOT NULL,
	`content_json` text NOT NULL,
	`canonical_format` text DEFAULT 'anthropic' NOT NULL,
	`task_id` text,
	`agent_id` text,
	`model_id` text,
	`stop_reason` text,
	`usage_json` text,
	`created_at` text NOT NULL,
	CONSTRAINT "messages_role_enum" CHECK("role" in ('user', 'assistant')),
	CONSTRAINT "messages_canonical_format_enum" CHECK("canonical_format" in ('anthropic'))
);
--> statement-breakpoint
CREATE TABLE `schema_meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`title` text NOT NULL,
	`status` text NOT NULL,
	`model_provider_id` text,
	`model_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`archived_at` text,
	`deleted_at` text,
	CONSTRAINT "sessions_status_enum" CHECK("status" in ('active', 'archived', 'deleted'))
);
--> statement-breakpoint
CREATE TABLE `summaries` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`task_id` text,
	`kind` text NOT NULL,
	`content` text NOT NULL,
	`covered_message_ids_json` text NOT NULL,
	`tokens_before` integer,
	`tokens_after` integer,
	`created_at` text NOT NULL,
	CONSTRAINT "summaries_kind_enum" CHECK("kind" in ('compaction', 'session', 'task'))
);
--> statement-breakpoint
CREATE TABLE `task_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`task_id` text NOT NULL,
	`attempt_index` integer NOT NULL,
	`status` text NOT NULL,
	`agent_id` text,
	`workspace_id` text,
	`started_at` text NOT NULL,
	`ended_at` text,
	`failure_kind` text,
	`failure_signature` text,
	`failure_message` text,
	`error_json` text,
	CONSTRAINT "task_attempts_status_enum" CHECK("status" in ('running', 'completed', 'failed', 'blocked', 'cancelled', 'interrupted'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `task_attempts_task_index_unique` ON `task_attempts` (`task_id`,`attempt_index`);--> statement-breakpoint
CREATE TABLE `task_dependencies` (
	`task_id` text NOT NULL,
	`depends_on_task_id` text NOT NULL,
	`kind` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`task_id`, `depends_on_task_id`, `kind`),
	CONSTRAINT "task_dependencies_kind_enum" CHECK("kind" in ('hard', 'soft', 'conflict', 'serialization'))
);
--> statement-breakpoint
CREATE INDEX `task_dependencies_depends_on_idx` ON `task_dependencies` (`depends_on_task_id`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`type` text NOT NULL,
	`title` text NOT NULL,
	`status` text NOT NULL,
	`spec_json` text,
	`priority` integer DEFAULT 0 NOT NULL,
	`attempt_count` integer DEFAULT 0 NOT NULL,
	`retry_budget` integer DEFAULT 0 NOT NULL,
	`agent_id` text,
	`workspace_id` text,
	`worker_result_json` text,
	`summary_id` text,
	`last_error_json` text,
	`status_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`started_at` text,
	`completed_at` text,
	`heartbeat_at` text,
	CONSTRAINT "tasks_type_enum" CHECK("type" in ('execute', 'review', 'debug', 'compact', 'mine_experience', 'docs')),
	CONSTRAINT "tasks_status_enum" CHECK("status" in ('pending', 'running', 'completed', 'failed', 'blocked', 'cancelled', 'interrupted'))
);
--> statement-breakpoint
CREATE INDEX `tasks_status_idx` ON `tasks` (`status`);--> statement-breakpoint
CREATE TABLE `tool_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`task_id` text,
	`agent_id` text,
	`origin_message_id` text,
	`tool_name` text NOT NULL,
	`tool_version` integer NOT NULL,
	`status` text NOT NULL,
	`input_json` text NOT NULL,
	`output_json` text,
	`error_json` text,
	`artifact_ids_json` text,
	`evidence_ids_json` text,
	`started_at` text NOT NULL,
	`completed_at` text,
	`duration_ms` integer,
	CONSTRAINT "tool_runs_status_enum" CHECK("status" in ('running', 'ok', 'error', 'cancelled'))
);
--> statement-breakpoint
CREATE INDEX `tool_runs_task_idx` ON `tool_runs` (`task_id`);--> statement-breakpoint
CREATE INDEX `tool_runs_origin_message_idx` ON `tool_runs` (`origin_message_id`);--> statement-breakpoint
CREATE TABLE `ui_state` (
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`value_json` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`scope`, `key`)
);
--> statement-breakpoint
CREATE TABLE `workspaces` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`task_id` text,
	`agent_id` text,
	`strategy` text NOT NULL,
	`path` text NOT NULL,
	`base_ref` text,
	`status` text NOT NULL,
	`merge_in_progress` integer DEFAULT 0 NOT NULL,
	`merged_ref` text,
	`conflict_json` text,
	`status_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`merge_started_at` text,
	`merged_at` text,
	`cleaned_at` text,
	CONSTRAINT "workspaces_strategy_enum" CHECK("strategy" in ('main', 'worktree', 'isolated_copy')),
	CONSTRAINT "workspaces_status_enum" CHECK("status" in ('active', 'merged', 'conflicted', 'abandoned', 'cleaned')),
	CONSTRAINT "workspaces_merge_in_progress_flag" CHECK("merge_in_progress" in (0, 1))
);
--> statement-breakpoint
CREATE INDEX `workspaces_status_idx` ON `workspaces` (`status`);
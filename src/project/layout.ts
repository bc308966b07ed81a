import os from "node:os";
import path from "node:path";

/** `~/.air`, or `$AIR_HOME` when set (tests and CI point it at a temp folder). */
export function air_home(env: NodeJS.ProcessEnv = process.env): string {
  return env.AIR_HOME !== undefined && env.AIR_HOME !== "" ? path.resolve(env.AIR_HOME) : path.join(os.homedir(), ".air");
}

/** Every path of a project's `.air` tree (seeds 003 §8.1), derived from the project root only. */
export function project_layout(root: string) {
  const air = path.join(root, ".air");
  const shared = path.join(air, "shared");
  const local = path.join(air, "local");
  return {
    root,
    air,
    shared,
    local,
    project_json: path.join(shared, "project.json"),
    shared_permissions: path.join(shared, "permissions.yaml"),
    shared_compaction_rules: path.join(shared, "compaction-rules.md"),
    rules: path.join(shared, "rules"),
    plan: path.join(shared, "plan"),
    sessions: path.join(local, "sessions"),
    purged_sessions: path.join(local, "purged-sessions.jsonl"),
    backups: path.join(local, "backups"),
    workspaces: path.join(local, "workspaces"),
    tmp: path.join(local, "tmp"),
    locks: path.join(local, "locks"),
    debug_records_db: path.join(local, "debug-records.db"),
    learned_memory_db: path.join(local, "learned-memory.db"),
    mcp_tools: path.join(local, "mcp-tools.json"),
  };
}
export type ProjectLayout = ReturnType<typeof project_layout>;

export function session_dir(layout: ProjectLayout, session_id: string): string {
  return path.join(layout.sessions, session_id);
}

export function session_db_path(layout: ProjectLayout, session_id: string): string {
  return path.join(session_dir(layout, session_id), "session.db");
}

export function session_artifacts_dir(layout: ProjectLayout, session_id: string): string {
  return path.join(session_dir(layout, session_id), "artifacts");
}

export function session_lock_path(layout: ProjectLayout, session_id: string): string {
  return path.join(layout.locks, `${session_id}.lock`);
}

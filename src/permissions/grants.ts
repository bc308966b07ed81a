import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import YAML from "yaml";
import { PermissionSubject, type PermissionGrantScope } from "../contracts/events/permission.js";
import { write_file_atomic } from "../project/atomic-write.js";
import { read_yaml_file } from "../project/yaml-file.js";

/** A user's answer that outlives its prompt: it covers exactly the subjects the prompt was about. */
export type Grant = {
  readonly effect: "allow" | "deny";
  readonly scope: PermissionGrantScope;
  readonly subject: PermissionSubject;
};

/** `.air/local/permission-grants.yaml` and `~/.air/permission-grants.yaml`: written by air, readable by people. */
const GrantsFile = v.strictObject({
  version: v.optional(v.literal(1), 1),
  grants: v.optional(v.array(v.strictObject({ subject: PermissionSubject, granted_at: v.string() })), []),
});
type GrantsFile = v.InferOutput<typeof GrantsFile>;

const GRANTS_FILE_EXAMPLE = [
  "version: 1",
  "grants:",
  "  - subject: { kind: command, command: git push origin main }",
  "    granted_at: 2026-11-29T10:00:00.000Z",
].join("\n");

export function grants_file(folder: string): string {
  return path.join(folder, "permission-grants.yaml");
}

function same_subject(a: PermissionSubject, b: PermissionSubject): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case "command":
    case "command_line":
      return a.command === (b as typeof a).command;
    case "path":
      return a.op === (b as typeof a).op && a.path === (b as typeof a).path;
    case "network":
      return a.tool_name === (b as typeof a).tool_name;
    case "capability_tool":
      return a.capability_id === (b as typeof a).capability_id && a.tool_name === (b as typeof a).tool_name;
    case "mcp_server":
      return a.server === (b as typeof a).server && a.fingerprint === (b as typeof a).fingerprint;
  }
}

/**
 * The grants in force for one runtime (seeds 000 §9.2 grant scopes). `once` grants come from prompts asked
 * again after a restart and are used up by the first call they cover; `session` grants live in the session's
 * events (rebuilt on resume); `project` and `global` grants are allow answers kept in files.
 */
export class GrantStore {
  readonly #files: Partial<Record<"project" | "global", string>>;
  #once: Grant[] = [];
  #session: Grant[] = [];
  readonly #persisted: Grant[] = [];

  /** Reads the grant files now; a broken one is an AirError, as for every file a user may edit. */
  constructor(files: Partial<Record<"project" | "global", string>> = {}) {
    this.#files = files;
    for (const scope of ["project", "global"] as const) {
      const file = files[scope];
      if (file === undefined) continue;
      const parsed = read_yaml_file(file, { schema: GrantsFile, example: GRANTS_FILE_EXAMPLE });
      for (const entry of parsed?.grants ?? []) this.#persisted.push({ effect: "allow", scope, subject: entry.subject });
    }
  }

  add(effect: Grant["effect"], scope: PermissionGrantScope, subjects: readonly PermissionSubject[]): void {
    const grants = subjects.map((subject): Grant => ({ effect, scope, subject }));
    if (scope === "once") this.#once.push(...grants);
    else if (scope === "session" || effect === "deny") this.#session.push(...grants);
    else {
      this.#persisted.push(...grants);
      this.#append_to_file(scope, subjects);
    }
  }

  /**
   * The grant covering a subject: a one-time answer first (it was given for this very call), then deny before
   * allow. `once` grants are only looked up, not used up: `consume` does that once the call goes ahead.
   */
  find(subject: PermissionSubject): Grant | undefined {
    const candidates = [...this.#once, ...this.#session, ...this.#persisted].filter((grant) => same_subject(grant.subject, subject));
    return candidates.find((grant) => grant.scope === "once") ?? candidates.find((grant) => grant.effect === "deny") ?? candidates[0];
  }

  /** Uses up the one-time grants of these subjects. */
  consume(subjects: readonly PermissionSubject[]): void {
    this.#once = this.#once.filter((grant) => !subjects.some((subject) => same_subject(grant.subject, subject)));
  }

  #append_to_file(scope: "project" | "global", subjects: readonly PermissionSubject[]): void {
    const file = this.#files[scope];
    if (file === undefined) return;
    const current: GrantsFile = read_yaml_file(file, { schema: GrantsFile, example: GRANTS_FILE_EXAMPLE }) ?? { version: 1, grants: [] };
    const granted_at = new Date().toISOString();
    const fresh = subjects.filter((subject) => !current.grants.some((entry) => same_subject(entry.subject, subject)));
    const next: GrantsFile = { version: 1, grants: [...current.grants, ...fresh.map((subject) => ({ subject, granted_at }))] };
    fs.mkdirSync(path.dirname(file), { recursive: true });
    write_file_atomic(file, `# Written by air when you answer "allow for the ${scope}". Delete an entry to be asked again.\n${YAML.stringify(next)}`);
  }
}

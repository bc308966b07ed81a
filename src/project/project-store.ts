import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";
import { air_failure } from "../contracts/errors.js";
import { new_project_id, ProjectId, Timestamp, now_iso } from "../contracts/ids.js";
import { write_file_atomic } from "./atomic-write.js";
import { air_home, project_layout, type ProjectLayout } from "./layout.js";

/** `.air/shared/project.json`: the project's stable identity, committable. */
const ProjectFile = v.strictObject({
  project_id: ProjectId,
  name: v.pipe(v.string(), v.minLength(1)),
  created_at: Timestamp,
  layout_version: v.literal(1),
});
type ProjectFile = v.InferOutput<typeof ProjectFile>;

export type Project = { readonly file: ProjectFile; readonly layout: ProjectLayout };

/** The nearest folder at or above `start` holding `.air/shared/project.json`. */
export function locate_project_root(start: string): string | undefined {
  let current = path.resolve(start);
  for (;;) {
    if (fs.existsSync(project_layout(current).project_json)) return current;
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

export function read_project(root: string): Project {
  const layout = project_layout(root);
  let text: string;
  try {
    text = fs.readFileSync(layout.project_json, "utf8");
  } catch (error) {
    throw air_failure(
      {
        kind: "project_error",
        message: `cannot read ${layout.project_json}`,
        retryability: "not_retryable",
        user_action: "Run `air init` in the project root.",
      },
      error,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw corrupt(layout.project_json, "it is not valid JSON", error);
  }
  const parsed = v.safeParse(ProjectFile, json);
  if (!parsed.success) throw corrupt(layout.project_json, v.summarize(parsed.issues));
  return { file: parsed.output, layout };
}

function corrupt(file: string, why: string, cause?: unknown) {
  return air_failure(
    {
      kind: "project_error",
      message: `${file} is corrupt: ${why}`,
      retryability: "not_retryable",
      user_action: `Restore ${file} from version control (it holds the project id), or remove it and run \`air init\` to make a new identity.`,
      metadata: { file },
    },
    cause,
  );
}

/** Finds the project that contains `start`, or explains how to make one. */
export function open_project(start: string): Project {
  const root = locate_project_root(start);
  if (root === undefined) {
    throw air_failure({
      kind: "user_error",
      message: `no air project at or above ${path.resolve(start)}`,
      retryability: "not_retryable",
      user_action: "Run `air init` in your project's root folder.",
    });
  }
  return read_project(root);
}

const GITIGNORE = "# Runtime state of air: sessions, artifacts, backups, locks. Never committed.\n/local/\n";

/**
 * Creates the `.air/shared` and `.air/local` trees (seeds 003 §8.1) and the project identity. Idempotent:
 * an existing valid project is returned as it is; a corrupt project.json is reported, never overwritten.
 */
export function init_project(root: string, options: { name?: string } = {}): { project: Project; created: boolean } {
  const resolved = path.resolve(root);
  const layout = project_layout(resolved);
  const existing = fs.existsSync(layout.project_json) ? read_project(resolved) : undefined;
  for (const folder of [layout.shared, layout.rules, layout.plan, layout.sessions, layout.backups, layout.workspaces, layout.tmp, layout.locks]) {
    fs.mkdirSync(folder, { recursive: true });
  }
  fs.mkdirSync(path.join(air_home(), "logs"), { recursive: true });
  const gitignore = path.join(layout.air, ".gitignore");
  if (!fs.existsSync(gitignore)) write_file_atomic(gitignore, GITIGNORE);
  if (existing !== undefined) return { project: existing, created: false };
  const file: ProjectFile = {
    project_id: new_project_id(),
    name: options.name ?? path.basename(resolved),
    created_at: now_iso(),
    layout_version: 1,
  };
  write_file_atomic(layout.project_json, `${JSON.stringify(file, null, 2)}\n`);
  return { project: { file, layout }, created: true };
}

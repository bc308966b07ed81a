import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { AirFailure } from "../contracts/errors.js";
import type { ToolCall } from "../contracts/tool.js";
import type { Session } from "../project/session-manager.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { LearnedMemory } from "./learned-memory-store.js";

/** The `.air/shared` folders the learned memory owns: promoted rules (read into L3) and skills (seeds 001 D-058). */
const RULES_FOLDER = ".air/shared/rules";
const SKILLS_FOLDER = ".air/shared/skills";
const OWNED_PATHS = [RULES_FOLDER, SKILLS_FOLDER] as const;

/** Where a promoted fact or pitfall lives: its own row. */
export const DB_TARGET_PREFIX = "learned-memory.db#";

/** A file name from a title: lower case, words joined by `-`, at most 60 characters; the id when nothing is left. */
function slug_of(title: string, fallback: string): string {
  const slug = title
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");
  return slug === "" ? fallback : slug;
}

/** A skill's SKILL.md: the frontmatter of Claude Skills (name, description), then the procedure. */
function skill_text(name: string, memory: LearnedMemory): string {
  const description = memory.title.replace(/\s+/g, " ").trim();
  return `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n\n${memory.content}${memory.content.endsWith("\n") ? "" : "\n"}`;
}

/** The file a rule or skill is promoted to (relative to the project root) and its bytes; undefined for facts and pitfalls. */
export function promoted_file(memory: LearnedMemory): { path: string; content: string } | undefined {
  const slug = slug_of(memory.title, memory.id);
  switch (memory.memory_type) {
    case "rule":
      return { path: `${RULES_FOLDER}/${slug}.md`, content: memory.content };
    case "skill":
      return { path: `${SKILLS_FOLDER}/${slug}/SKILL.md`, content: skill_text(slug, memory) };
    case "fact":
    case "pitfall":
      return undefined;
  }
}

async function call(session: Session, registry: ToolRegistry, tool_call: ToolCall): Promise<unknown> {
  const outcome = await registry.call(tool_call, { session, owned_paths: OWNED_PATHS });
  if (!outcome.ok) throw new AirFailure(outcome.error);
  return outcome.output;
}

/** Writes a promoted file through the tools (`fs.write`, judged by the permission engine, recorded as a tool run). */
export async function write_memory_file(session: Session, registry: ToolRegistry, file: { path: string; content: string }): Promise<void> {
  await call(session, registry, { tool_name: "fs.write", input: { path: file.path, content: file.content } });
}

/** A unified diff that deletes `text` as `relative`, for `fs.patch`. */
function deletion_patch(relative: string, text: string): string {
  const ends_with_newline = text.endsWith("\n");
  const lines = (ends_with_newline ? text.slice(0, -1) : text).split("\n");
  const body = lines.map((line) => `-${line}\n`).join("");
  const tail = ends_with_newline ? "" : "\\ No newline at end of file\n";
  return `--- a/${relative}\n+++ /dev/null\n@@ -1,${lines.length} +0,0 @@\n${body}${tail}`;
}

/** Removes a promoted file through the tools (`fs.patch` deleting it, checked against its current bytes); a missing file is already gone. */
export async function remove_memory_file(session: Session, registry: ToolRegistry, relative: string): Promise<void> {
  const absolute = path.join(session.project.layout.root, relative);
  if (!fs.existsSync(absolute)) return;
  const bytes = fs.readFileSync(absolute);
  const text = bytes.toString("utf8");
  const expected_sha256 = { [relative]: createHash("sha256").update(bytes).digest("hex") };
  await call(session, registry, { tool_name: "fs.patch", input: { patch: deletion_patch(relative, text), expected_sha256 } });
}

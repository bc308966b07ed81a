import type { PromptCommand, PromptPath, ProposedChange } from "./events/permission.js";

/*
 * The words for a permission prompt's parts, one wording for the line prompt (src/permissions) and the TUI's
 * dialog (src/tui), which may import only contracts and the projection.
 */

/** Path categories in the user's words. */
const PATH_WORDS: Record<string, string> = {
  project_source: "project source",
  project_build_output: "build output",
  project_air_shared: "air's shared files",
  project_air_local: "air's local files",
  project_git_internal: "git internals",
  outside_project: "OUTSIDE the project",
  credential_or_secret: "credentials",
  system_sensitive: "system path",
};

/** `rm -rf build → destructive`: a command and what the analyzer found it does. */
export function command_part_text(part: PromptCommand): string {
  const found = part.categories.length > 0 ? part.categories.join(", ") : "nothing known";
  return `${part.command} → ${found}${part.via === undefined ? "" : ` (run via ${part.via})`}`;
}

/** `write src/calc.cpp · project source`. */
export function path_text(path: PromptPath): string {
  return `${path.op} ${path.path} · ${PATH_WORDS[path.category] ?? path.category}`;
}

/** `+12 −3 · 15 lines`, and how much of it the prompt holds when it is clipped. */
export function change_size_text(change: ProposedChange): string {
  const kept = change.diff === "" ? 0 : change.diff.split("\n").length;
  return `+${change.added} −${change.removed} · ${change.lines} lines${change.clipped ? ` (the first ${kept} shown)` : ""}`;
}

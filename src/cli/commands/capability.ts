import fs from "node:fs";
import path from "node:path";
import { choices_file, choose } from "../../capabilities/choices.js";
import { capabilities_folder } from "../../capabilities/discover.js";
import { CapabilityRegistry, type CapabilityEntry } from "../../capabilities/registry.js";
import { read_manifest_file, type ManifestSource } from "../../capabilities/validate.js";
import { air_failure, to_air_error } from "../../contracts/errors.js";
import { air_home } from "../../project/layout.js";
import { locate_project_root, open_project } from "../../project/project-store.js";
import { render_error, table, type Io } from "../output.js";

const COLUMNS = ["ID", "VERSION", "TRUST", "STATUS", "SOURCE", "TOOLS"];

/** The project at or above the working folder; outside one, the folder itself (it simply has no capabilities of its own). */
function project_root(io: Io): string {
  return locate_project_root(io.cwd) ?? path.resolve(io.cwd);
}

function registry_for(io: Io): CapabilityRegistry {
  return new CapabilityRegistry({ project_root: project_root(io), air_home: air_home() });
}

function source_text(entry: CapabilityEntry): string {
  return entry.source === "built_in" ? "built-in" : entry.source.file;
}

function row(entry: CapabilityEntry): string[] {
  const status = entry.status.replaceAll("_", "-");
  return [entry.id, entry.version ?? "-", entry.trust, status, source_text(entry), entry.tools.join(", ") || "-"];
}

/** `air capability list [--json]`: every capability air sees for this project, its status, and what could not be used. */
export async function run_capability_list(io: Io, options: { json: boolean }): Promise<number> {
  const entries = await registry_for(io).entries();
  const problems = entries.filter((entry) => entry.error !== undefined);
  if (options.json) {
    io.out(
      `${JSON.stringify({ capabilities: entries, problems: problems.map((entry) => ({ id: entry.id, source: entry.source, error: entry.error })) }, null, 2)}\n`,
    );
    return 0;
  }
  io.out(table([COLUMNS, ...entries.map(row)]));
  for (const entry of entries) if (entry.reason !== undefined) io.out(`${entry.id}: ${entry.reason}\n`);
  if (problems.length > 0) {
    io.out("\nProblems:\n");
    for (const entry of problems) if (entry.error !== undefined) io.out(render_error(entry.error));
  }
  return 0;
}

/** A manifest file, or a folder holding `capability.json`; in the air home it is a user capability, else a project's. */
function manifest_source(io: Io, target: string): ManifestSource {
  const resolved = path.resolve(io.cwd, target);
  const file = fs.statSync(resolved, { throwIfNoEntry: false })?.isDirectory() === true ? path.join(resolved, "capability.json") : resolved;
  if (!fs.existsSync(file)) {
    throw air_failure({
      kind: "user_error",
      message: `${file} does not exist`,
      retryability: "retryable_after_change",
      user_action: "Name a capability.json file, or a folder holding one.",
    });
  }
  const user_folder = capabilities_folder(air_home());
  const place = path.relative(user_folder, file).startsWith("..") ? "project" : "user";
  return { file, place };
}

async function validate_all(io: Io): Promise<number> {
  const entries = await registry_for(io).entries();
  let failed = 0;
  for (const entry of entries) {
    if (entry.status === "failed" && entry.error !== undefined) {
      failed++;
      io.err(render_error(entry.error));
    } else io.out(`ok ${entry.id} (${source_text(entry)})\n`);
  }
  return failed === 0 ? 0 : 1;
}

/**
 * `air capability validate [--all] [PATH]`: a manifest checked against the schema and the cross-field rules, and,
 * if air discovers it, against the other capabilities (ids, tool names). Exit 1 with the file and field on a broken one.
 */
export async function run_capability_validate(io: Io, options: { all: boolean; path?: string }): Promise<number> {
  if (options.all || options.path === undefined) return validate_all(io);
  const source = manifest_source(io, options.path);
  try {
    const manifest = read_manifest_file(source);
    const problem = registry_for(io).discovery.problems.find(
      (known) => fs.existsSync(known.file) && fs.realpathSync(known.file) === fs.realpathSync(source.file),
    );
    if (problem !== undefined) {
      io.err(render_error(problem.error));
      return 1;
    }
    io.out(`ok ${manifest.id} ${manifest.version} (${source.file})\n`);
    return 0;
  } catch (error) {
    io.err(render_error(to_air_error(error, "user_error")));
    return 1;
  }
}

/** `air capability enable|disable ID`: the project's choice, in `.air/shared/capabilities.yaml`. */
export async function run_capability_choice(io: Io, options: { id: string | undefined; choice: "enabled" | "disabled" }): Promise<number> {
  // The choice is the project's: outside one there is nowhere to keep it.
  const root = open_project(io.cwd).layout.root;
  const registry = new CapabilityRegistry({ project_root: root, air_home: air_home() });
  const known = [
    ...registry.discovery.capabilities.map((capability) => capability.manifest.id),
    ...registry.discovery.problems.flatMap((problem) => problem.id ?? []),
  ];
  if (options.id === undefined || !known.includes(options.id)) {
    throw air_failure({
      kind: "user_error",
      message: options.id === undefined ? "name the capability to change" : `there is no capability ${options.id} here`,
      retryability: "retryable_after_change",
      user_action: `Pick one of: ${known.join(", ") || "(none)"} (air capability list shows them).`,
    });
  }
  choose(root, options.id, options.choice);
  io.out(`${options.id} ${options.choice} for this project (${choices_file(root)})\n`);
  return 0;
}

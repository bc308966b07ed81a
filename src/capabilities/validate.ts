import fs from "node:fs";
import * as v from "valibot";
import { air_failure, type AirFailure } from "../contracts/errors.js";
import type { CapabilityTrust } from "../contracts/events/capability.js";
import type { CapabilityTools } from "./builtin.js";
import { CapabilityManifest, type ToolDeclaration } from "./manifest.js";

/** Where a manifest was found: shipped with air, in the user's air home, or in the project's `.air/shared`. */
export type ManifestPlace = "built_in" | "user" | "project";

/** The highest trust a manifest found in each place may have: a project cannot vouch for itself beyond `project_local`. */
export const TRUST_CAP: Readonly<Record<ManifestPlace, CapabilityTrust>> = { built_in: "built_in", user: "user_installed", project: "project_local" };

const TRUST_RANK: Readonly<Record<CapabilityTrust, number>> = {
  untrusted: 0,
  project_local: 1,
  user_installed: 2,
  verified_publisher: 3,
  built_in: 4,
};

/** Where a broken manifest is, for its error: the file (or the built-in's id) and the place it was found. */
export type ManifestSource = { readonly file: string; readonly place: ManifestPlace };

/** `tools[1].category`: the field an issue is about, as a person finds it in the file. */
function field_path(keys: readonly unknown[]): string {
  let path = "";
  for (const key of keys) path += typeof key === "number" ? `[${key}]` : path === "" ? String(key) : `.${String(key)}`;
  return path === "" ? "(top level)" : path;
}

/** A manifest that cannot be used: names the file and the field, and says what to do. */
export function manifest_error(source: ManifestSource, field: string, why: string): AirFailure {
  return air_failure({
    kind: "user_error",
    message: `${source.file}: ${field}: ${why}`,
    retryability: "retryable_after_change",
    user_action:
      source.place === "built_in"
        ? "This built-in capability does not match its code: report it as a bug in air; `air capability disable ID` turns it off meanwhile."
        : `Fix ${field} in ${source.file} (air capability validate ${source.file} checks it again), or remove the capability's folder.`,
    metadata: { file: source.file, field },
  });
}

function schema_issue(issue: v.BaseIssue<unknown>): { field: string; why: string } {
  const field = field_path(issue.path?.map((item) => item.key) ?? []);
  if (issue.expected === "never") return { field, why: "unknown field" };
  // Our own wording says what is wanted; valibot's ("Invalid …") quotes the received value.
  if (issue.kind === "validation" && !issue.message.startsWith("Invalid ")) return { field, why: issue.message };
  return { field, why: `expected ${issue.expected ?? "a valid value"}` };
}

/** Every `{name}` in an argv element. */
function placeholders_of(element: string): string[] {
  return [...element.matchAll(/\{([^{}]*)\}/g)].map((match) => match[1] ?? "");
}

function check_command_tool(tool: ToolDeclaration, index: number, source: ManifestSource): void {
  const implementation = tool.implementation;
  if (implementation.kind !== "command") return;
  const declared = new Set(Object.keys(implementation.parameters));
  for (const [name, parameter] of Object.entries(implementation.parameters)) {
    if (parameter.enum !== undefined && parameter.type !== "string") {
      throw manifest_error(source, `tools[${index}].implementation.parameters.${name}.enum`, "only a string parameter can have an enum");
    }
  }
  implementation.argv.forEach((element, position) => {
    for (const name of placeholders_of(element)) {
      if (!declared.has(name)) {
        throw manifest_error(source, `tools[${index}].implementation.argv[${position}]`, `the placeholder {${name}} is not a declared parameter`);
      }
    }
  });
  implementation.required.forEach((name, position) => {
    if (!declared.has(name)) throw manifest_error(source, `tools[${index}].implementation.required[${position}]`, `${name} is not a declared parameter`);
  });
}

/** The checks across fields that the schema cannot express. */
function check_fields(manifest: CapabilityManifest, source: ManifestSource): void {
  const cap = TRUST_CAP[source.place];
  if (TRUST_RANK[manifest.trust] > TRUST_RANK[cap]) {
    throw manifest_error(
      source,
      "trust",
      `a ${source.place === "user" ? "user-installed" : "project"} capability may claim at most ${cap}, not ${manifest.trust}`,
    );
  }
  const names = new Set<string>();
  manifest.tools.forEach((tool, index) => {
    if (names.has(tool.name)) throw manifest_error(source, `tools[${index}].name`, `${tool.name} is declared twice`);
    names.add(tool.name);
    if (source.place !== "built_in" && tool.implementation.kind === "builtin") {
      throw manifest_error(source, `tools[${index}].implementation.kind`, "only a capability shipped with air may have builtin tools; use a command tool");
    }
    if (source.place !== "built_in" && tool.category === "internal") {
      throw manifest_error(source, `tools[${index}].category`, "internal tools are air's own; pick the category of what the tool does");
    }
    check_command_tool(tool, index, source);
  });
  manifest.dependencies.forEach((dependency, index) => {
    dependency.required_for.forEach((name, position) => {
      if (!names.has(name)) throw manifest_error(source, `dependencies[${index}].required_for[${position}]`, `${name} is not a tool of this capability`);
    });
  });
}

/** A manifest value (parsed JSON, or a built-in's object) checked against the schema and the cross-field rules. */
export function validate_manifest(value: unknown, source: ManifestSource): CapabilityManifest {
  const parsed = v.safeParse(CapabilityManifest, value);
  if (!parsed.success) {
    const [first] = parsed.issues;
    const { field, why } = schema_issue(first);
    throw manifest_error(source, field, why);
  }
  check_fields(parsed.output, source);
  return parsed.output;
}

/** A `capability.json` read and validated; unreadable or not JSON is an error naming the file. */
export function read_manifest_file(source: ManifestSource): CapabilityManifest {
  let text: string;
  try {
    text = fs.readFileSync(source.file, "utf8");
  } catch (error) {
    throw manifest_error(source, "(file)", `cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw manifest_error(source, "(top level)", `is not valid JSON: ${(error as Error).message}`);
  }
  return validate_manifest(value, source);
}

/** A built-in's `builtin` tools must be exactly the definitions its code makes: no declared tool without code, no code undeclared. */
export function check_builtin_tools(manifest: CapabilityManifest, tools: CapabilityTools): void {
  const source: ManifestSource = { file: `built-in capability ${manifest.id}`, place: "built_in" };
  const declared = manifest.tools.filter((tool) => tool.implementation.kind === "builtin").map((tool) => tool.name);
  const made = tools.definitions.map((definition) => definition.name);
  const missing = declared.filter((name) => !made.includes(name));
  const undeclared = made.filter((name) => !declared.includes(name));
  if (missing.length > 0) {
    const index = manifest.tools.findIndex((tool) => tool.name === missing[0]);
    throw manifest_error(source, `tools[${index}].name`, `declares ${missing.join(", ")}, which its code does not define`);
  }
  if (undeclared.length > 0) throw manifest_error(source, "tools", `its code defines ${undeclared.join(", ")}, which the manifest does not declare`);
}

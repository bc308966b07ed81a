import path from "node:path";
import * as v from "valibot";
import { PermissionMode, type PermissionSubject } from "../contracts/events/permission.js";
import type { ProjectLayout } from "../project/layout.js";
import { read_yaml_file } from "../project/yaml-file.js";

const Pattern = v.pipe(v.string(), v.minLength(1), v.maxLength(4096));

/**
 * One rule of a permissions file. `command` is a glob over each command the shell would run (argv joined
 * by single spaces, wrappers stripped): `*` matches anything, so `npm run lint*` covers `npm run lint:fix`.
 * `path` is a glob relative to the project root (`**` crosses folders).
 */
const PermissionRule = v.union([
  v.strictObject({ command: Pattern }),
  v.strictObject({ path: Pattern, op: v.optional(v.picklist(["read", "write", "any"]), "any") }),
]);
type PermissionRule = v.InferOutput<typeof PermissionRule>;

/** `~/.air/permissions.yaml` and `.air/shared/permissions.yaml`. Strict: a misspelt key is an error. */
export const PermissionsFile = v.strictObject({
  version: v.optional(v.literal(1), 1),
  mode: v.optional(PermissionMode),
  allow: v.optional(v.array(PermissionRule), []),
  ask: v.optional(v.array(PermissionRule), []),
  deny: v.optional(v.array(PermissionRule), []),
});
export type PermissionsFile = v.InferOutput<typeof PermissionsFile>;

export const PERMISSIONS_FILE_EXAMPLE = [
  "version: 1",
  "mode: default            # default | accept-edits | plan | bypass",
  "allow:",
  '  - command: "npm run lint*"',
  "ask:",
  '  - command: "git push*"',
  "deny:",
  '  - path: "secrets/**"',
  "    op: any              # read | write | any",
].join("\n");

type RuleEffect = "allow" | "ask" | "deny";
export type SourcedRule = { readonly effect: RuleEffect; readonly rule: PermissionRule; readonly source: string };

/**
 * The permission mode and rules in force: the user's file, then the project's (a project `mode` wins), then
 * the mode given on the command line. Rules can tighten anything but loosen only layers 2 and 4 of the engine:
 * never the task scope, never credential or system access.
 */
export type PermissionPolicy = { readonly mode: PermissionMode; readonly rules: readonly SourcedRule[] };

export const DEFAULT_POLICY: PermissionPolicy = { mode: "default", rules: [] };

export function user_permissions_file(air_home: string): string {
  return path.join(air_home, "permissions.yaml");
}

function rules_of(file: PermissionsFile | undefined, source: string): SourcedRule[] {
  if (file === undefined) return [];
  const effects: RuleEffect[] = ["deny", "ask", "allow"];
  return effects.flatMap((effect) => file[effect].map((rule) => ({ effect, rule, source })));
}

/** Reads both permissions files; a broken one is an AirError naming the file. */
export function load_permission_policy(options: { air_home: string; layout?: ProjectLayout; mode?: PermissionMode }): PermissionPolicy {
  const spec = { schema: PermissionsFile, example: PERMISSIONS_FILE_EXAMPLE };
  const user_file = user_permissions_file(options.air_home);
  const user = read_yaml_file(user_file, spec);
  const project = options.layout === undefined ? undefined : read_yaml_file(options.layout.shared_permissions, spec);
  return {
    mode: options.mode ?? project?.mode ?? user?.mode ?? "default",
    rules: [...rules_of(project, options.layout?.shared_permissions ?? ""), ...rules_of(user, user_file)],
  };
}

/** A glob as a regular expression: `**` any characters, `*` any but `/` (for paths) or any (for commands). */
export function glob_regexp(glob: string, separator: "/" | undefined): RegExp {
  let source = "";
  for (let index = 0; index < glob.length; index++) {
    const char = glob.charAt(index);
    if (char === "*" && glob[index + 1] === "*") {
      index++;
      // `a/**/b` also covers `a/b`.
      if (separator !== undefined && glob[index + 1] === "/") {
        source += "(?:.*/)?";
        index++;
      } else source += ".*";
    } else if (char === "*") source += separator === undefined ? ".*" : "[^/]*";
    else if (char === "?") source += separator === undefined ? "." : "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, "s");
}

/** Whether a rule covers a subject. Command-line subjects (what the analyzer could not see through) never match a rule. */
function rule_matches(rule: PermissionRule, subject: PermissionSubject): boolean {
  if ("command" in rule) return subject.kind === "command" && glob_regexp(rule.command, undefined).test(subject.command);
  if (subject.kind !== "path" || (rule.op !== "any" && rule.op !== subject.op)) return false;
  return glob_regexp(rule.path.replace(/^\.\//, ""), "/").test(subject.path);
}

/** The strictest effect of the rules covering a subject (deny > ask > allow), or undefined. */
export function rule_effect(policy: PermissionPolicy, subject: PermissionSubject): SourcedRule | undefined {
  let found: SourcedRule | undefined;
  const rank: Record<RuleEffect, number> = { allow: 0, ask: 1, deny: 2 };
  for (const sourced of policy.rules) {
    if (rule_matches(sourced.rule, subject) && (found === undefined || rank[sourced.effect] > rank[found.effect])) found = sourced;
  }
  return found;
}

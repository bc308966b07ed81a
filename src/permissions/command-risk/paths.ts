import os from "node:os";
import path from "node:path";
import { classify_path, type PathClassification } from "../paths.js";
import type { AnalyzerAction, AnalyzerContext, FindingCategory } from "./types.js";

/** Redirection targets and path arguments, judged with the PathClassifier. */
export type PathVerdict = {
  readonly real: string;
  readonly exists: boolean;
  readonly action: AnalyzerAction;
  readonly category: FindingCategory;
  readonly reason: string;
};

const DEVICES = new Set([
  "/dev/null",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/stdin",
  "/dev/tty",
  "/dev/zero",
  "/dev/random",
  "/dev/urandom",
  "/dev/fd/1",
  "/dev/fd/2",
]);
/** Files a shell or session runs on its own later: writing them is persistent code execution. */
const STARTUP = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zprofile",
  ".zshenv",
  ".zlogin",
  ".config/autostart",
  ".config/fish",
  ".config/systemd",
  ".local/bin",
  ".gitconfig",
  ".config/git",
];

/** The part of a glob word before its first pattern character (`/*` ⇒ `/`). */
export function glob_base(word: string): string {
  const index = word.search(/[*?[]/);
  if (index === -1) return word;
  const head = word.slice(0, index);
  const slash = head.lastIndexOf("/");
  return slash === -1 ? "." : head.slice(0, slash + 1) || "/";
}

function is_inside(real: string, base: string): boolean {
  return real === base || real.startsWith(base.endsWith(path.sep) ? base : base + path.sep);
}

/** Where bash would find `word`: resolved physically (`link/..` leaves the link's target), credentials also judged by name. */
function classify(word: string, context: AnalyzerContext): PathClassification {
  return classify_path(word, context.cwd_real, {
    real_root: context.root_real,
    home: context.home ?? os.homedir(),
    ...(context.memo === undefined ? {} : { memo: context.memo }),
  });
}

/** Why a path that looks like it is in the project is not treated as project content. */
function not_project(word: string, c: PathClassification, verb: string): string {
  if (c.hard_linked) return `${word} is a hard link: another name of the same file may be outside the project`;
  return `${word} is ${verb} outside the project (${c.real})`;
}

/** A path read: credentials denied, /proc and outside paths asked; `undefined` for devices and stdin. */
export function judge_read(word: string, context: AnalyzerContext): PathVerdict | undefined {
  if (DEVICES.has(word) || word === "-" || word === "") return undefined;
  const c = classify(word, context);
  const verdict = (action: AnalyzerAction, category: FindingCategory, reason: string): PathVerdict => ({
    real: c.real,
    exists: c.exists,
    action,
    category,
    reason,
  });
  if (c.category === "credential_or_secret") return verdict("deny", "credential_sensitive", `${word} holds credentials`);
  if (c.process_link) return verdict("ask_user", "system_sensitive", `${word} goes through /proc: what it reaches depends on the process that opens it`);
  if (!c.inside_project) return verdict("ask_user", "outside_project", not_project(word, c, "read"));
  return verdict("allow", "read_only", "inside the project");
}

/**
 * A path written. `destructive` (rm and the like): the file system root, the home folder and any folder
 * holding the project are denied — for a glob's base folder (`children`) the folder itself is not removed,
 * so only its strict ancestors of the project count.
 */
export function judge_write(word: string, context: AnalyzerContext, destructive = false, children = false): PathVerdict {
  const home = context.home ?? os.homedir();
  if (DEVICES.has(word)) return { real: word, exists: true, action: "allow", category: "read_only", reason: "device" };
  const c = classify(word, context);
  const real = c.real;
  const verdict = (action: AnalyzerAction, category: FindingCategory, reason: string): PathVerdict => ({ real, exists: c.exists, action, category, reason });
  if (c.category === "credential_or_secret") return verdict("deny", "credential_sensitive", `${word} holds credentials`);
  const holds_project = children ? real !== context.root_real && is_inside(context.root_real, real) : is_inside(context.root_real, real);
  if (destructive && (real === path.parse(real).root || real === home || holds_project || is_inside(home, real))) {
    return verdict("deny", "destructive", `${word} is the file system root, the home folder or a folder holding the project`);
  }
  if (c.category === "project_git_internal") return verdict("refuse", "git_write", `${word} is inside git internals; git operations go through the git tools`);
  if (c.category === "project_air_shared" || c.category === "project_air_local")
    return verdict("refuse", "air_internal", `${word} is inside air's own .air folder`);
  if (c.category === "system_sensitive") {
    return verdict(
      "deny",
      "system_sensitive",
      c.process_link ? `${word} goes through /proc: what it reaches depends on the process that opens it` : `${word} is a system path`,
    );
  }
  if (STARTUP.some((relative) => is_inside(real, path.join(home, relative)))) {
    return verdict("deny", "system_sensitive", `${word} is run by shells or sessions on their own (persistent code execution)`);
  }
  if (!c.inside_project) return verdict("ask_user", "outside_project", not_project(word, c, "written"));
  return verdict("allow", "read_only", "inside the project");
}

import os from "node:os";
import path from "node:path";
import { classify_path, type PathClassification } from "../paths.js";
import type { AnalyzerAction, AnalyzerContext, FindingCategory } from "./types.js";

/** Redirection targets and path arguments, judged with the PathClassifier. */
export type PathVerdict = { readonly real: string; readonly action: AnalyzerAction; readonly category: FindingCategory; readonly reason: string } | undefined;

const DEVICES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/fd/1", "/dev/fd/2"]);
/** Files a shell or session runs on its own later: writing them is persistent code execution. */
const STARTUP = [".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".config/autostart", ".config/fish", ".config/systemd", ".local/bin", ".gitconfig", ".config/git"];

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
  return classify_path(word, context.cwd_real, { real_root: context.root_real, home: context.home ?? os.homedir() });
}

/** Why a path that looks like it is in the project is not treated as project content. */
function not_project(word: string, c: PathClassification, verb: string): string {
  if (c.hard_linked) return `${word} is a hard link: another name of the same file may be outside the project`;
  return `${word} is ${verb} outside the project (${c.real})`;
}

export function judge_read(word: string, context: AnalyzerContext): PathVerdict {
  if (DEVICES.has(word) || word === "-" || word === "") return undefined;
  const c = classify(word, context);
  if (c.category === "credential_or_secret") return { real: c.real, action: "deny", category: "credential_sensitive", reason: `${word} holds credentials` };
  if (c.process_link) return { real: c.real, action: "ask_user", category: "system_sensitive", reason: `${word} goes through /proc: what it reaches depends on the process that opens it` };
  if (!c.inside_project) return { real: c.real, action: "ask_user", category: "outside_project", reason: not_project(word, c, "read") };
  return undefined;
}

export function judge_write(word: string, context: AnalyzerContext, destructive = false): PathVerdict & {} | { real: string; action: "allow"; category: "read_only"; reason: string } {
  const home = context.home ?? os.homedir();
  if (DEVICES.has(word)) return { real: word, action: "allow", category: "read_only", reason: "device" };
  const c = classify(word, context);
  const real = c.real;
  if (c.category === "credential_or_secret") return { real, action: "deny", category: "credential_sensitive", reason: `${word} holds credentials` };
  if (destructive && (real === path.parse(real).root || real === home || is_inside(context.root_real, real) || is_inside(home, real))) {
    return { real, action: "deny", category: "destructive", reason: `${word} is the file system root, the home folder or a folder holding the project` };
  }
  if (c.category === "project_git_internal") return { real, action: "refuse", category: "git_write", reason: `${word} is inside git internals; git operations go through the git tools` };
  if (c.category === "project_air_shared" || c.category === "project_air_local") return { real, action: "refuse", category: "air_internal", reason: `${word} is inside air's own .air folder` };
  if (c.category === "system_sensitive") {
    return { real, action: "deny", category: "system_sensitive", reason: c.process_link ? `${word} goes through /proc: what it reaches depends on the process that opens it` : `${word} is a system path` };
  }
  if (STARTUP.some((relative) => is_inside(real, path.join(home, relative)))) {
    return { real, action: "deny", category: "system_sensitive", reason: `${word} is run by shells or sessions on their own (persistent code execution)` };
  }
  if (!c.inside_project) return { real, action: "ask_user", category: "outside_project", reason: not_project(word, c, "written") };
  return { real, action: "allow", category: "read_only", reason: "inside the project" };
}

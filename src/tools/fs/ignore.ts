import fs from "node:fs";
import path from "node:path";
import ignore from "ignore";

/** A .gitignore bigger than this is not a list of patterns; it is skipped. */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/**
 * One line of the .gitignore of folder `base` (relative to the project root, posix) as a rule of the
 * root's: a pattern with a slash is anchored to its folder, one without matches at any depth below it.
 * With every rule rebased into one matcher, in the order git gives them precedence (info/exclude, then
 * .gitignore files from the root down), "the last matching rule wins" is git's own semantics.
 */
function rebase_rule(line: string, base: string): string | undefined {
  // Trailing spaces are dropped unless escaped with a backslash, as git does.
  let rule = line.replace(/\r$/, "").replace(/(?<!\\) +$/, "");
  if (rule === "" || rule.startsWith("#")) return undefined;
  if (base === "") return rule;
  const negated = rule.startsWith("!");
  if (negated) rule = rule.slice(1);
  const anchored = rule.replace(/\/+$/, "").includes("/");
  return `${negated ? "!" : ""}${base}/${anchored ? rule.replace(/^\/+/, "") : `**/${rule}`}`;
}

function read_rules_file(file: string): string | undefined {
  try {
    // A symlinked ignore file could point anywhere: only regular files count.
    const stat = fs.lstatSync(file);
    if (!stat.isFile() || stat.size > MAX_IGNORE_FILE_BYTES) return undefined;
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * The ignore rules of a project as a walk discovers them: `.git/info/exclude`, the root `.gitignore` and
 * the `.gitignore` of every folder entered. (The user's global excludes file is not read: what a tool
 * sees must not depend on settings outside the project.)
 */
export class IgnoreRules {
  readonly #matcher = ignore({ ignorecase: false });
  readonly #entered = new Set<string>();

  constructor(readonly root_real: string) {
    this.#add(read_rules_file(path.join(root_real, ".git", "info", "exclude")), "");
  }

  /** The rules of every folder from the root down to `relative` (posix, "" for the root). */
  static down_to(root_real: string, relative: string): IgnoreRules {
    const rules = new IgnoreRules(root_real);
    const segments = relative === "" ? [] : relative.split("/");
    for (let depth = 0; depth <= segments.length; depth += 1) rules.enter(segments.slice(0, depth).join("/"));
    return rules;
  }

  /** Adds the `.gitignore` of a folder the walk goes into (once). */
  enter(relative: string): void {
    if (this.#entered.has(relative)) return;
    this.#entered.add(relative);
    this.#add(read_rules_file(path.join(this.root_real, ...relative.split("/"), ".gitignore")), relative);
  }

  /** Whether git would ignore this path (posix, relative to the root); folders match folder-only rules too. */
  ignores(relative: string, is_folder: boolean): boolean {
    if (relative === "") return false;
    return this.#matcher.ignores(is_folder ? `${relative}/` : relative);
  }

  #add(text: string | undefined, base: string): void {
    if (text === undefined) return;
    const rules = text.split("\n").flatMap((line) => rebase_rule(line, base) ?? []);
    if (rules.length > 0) this.#matcher.add(rules);
  }
}

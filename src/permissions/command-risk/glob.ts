import fs from "node:fs";
import path from "node:path";
import { explicit_dot, has_glob, segment_expression, unquote, without_extglob } from "./pattern.js";

/** More matches than this for one pattern, and the command asks rather than judging them all. */
export const MAX_MATCHES = 256;
/** More folder entries than this looked at for one pattern, and the command asks. */
const MAX_LISTED = 2048;
/** More folders a script may `cd` into than this, and where its globs expand is taken as unknown. */
const MAX_FOLDERS = 8;

/** What a pattern matched: the words bash puts in its place, none (`undefined`), or too much to check. */
type GlobResult = { readonly paths: readonly string[] } | { readonly over: string } | undefined;

/**
 * One way through the pattern so far: the file system path reached, the word as bash spells it, and
 * whether the entry was listed (so it exists) rather than written out.
 */
type Reached = { readonly file: string; readonly word: string; readonly listed?: boolean };

/** `at` one segment further down. */
function step(at: Reached, name: string, listed: boolean): Reached {
  const join = (head: string): string => (head === "" || head.endsWith("/") ? head + name : `${head}/${name}`);
  return { file: join(at.file), word: join(at.word), ...(listed ? { listed } : {}) };
}

/** The budget of one match: entries looked at. */
type Budget = { listed: number };

/**
 * Filename expansion (bash(1), "Pathname Expansion") against the file system, for one analysed command:
 * `*`, `?`, `[...]`, `[!...]` segment by segment, a leading `.` matched only when written, folders
 * reached through symlinks as bash does, and no match leaving the word as written (no `nullglob`).
 * Relative patterns expand in the working folder and in every folder the script may `cd` into. Once
 * the script may change what patterns match (`shopt`, `GLOBIGNORE`…), or a pattern uses an extglob
 * group or `**`, a superset is matched: dot names too, case-insensitive, `**` as any depth.
 */
export class Globs {
  private readonly folders: string[];
  private readonly targets: string[] = [];
  private folders_unknown = false;
  private wide = false;
  private readonly listings = new Map<string, readonly string[]>();
  private readonly directories = new Map<string, boolean>();
  private readonly results = new Map<string, GlobResult>();

  constructor(
    private readonly cwd: string,
    private readonly home: string,
  ) {
    this.folders = [cwd];
  }

  /** The script may change what patterns match: from now on a superset is matched. */
  widen(): void {
    if (this.wide) return;
    this.wide = true;
    this.results.clear();
  }

  /**
   * The script may `cd` into `target` (`undefined`: a folder only known at run time). Every target is
   * resolved against every folder reached so far, so `cd src; cd lib` reaches `src/lib` in any order.
   */
  enter(target: string | undefined): void {
    this.results.clear();
    if (target === undefined) {
      this.folders_unknown = true;
      return;
    }
    if (this.targets.includes(target)) return;
    this.targets.push(target);
    for (let grown = true; grown && !this.folders_unknown; ) {
      grown = false;
      for (const folder of [...this.folders]) {
        for (const each of this.targets) {
          const reached = this.resolve_folder(folder, each);
          if (reached === undefined || this.folders.includes(reached)) continue;
          if (this.folders.length >= MAX_FOLDERS) this.folders_unknown = true;
          else this.folders.push(reached);
          grown = true;
        }
      }
    }
  }

  private resolve_folder(folder: string, target: string): string | undefined {
    const absolute = target === "~" || target.startsWith("~/") ? this.home + target.slice(1) : path.resolve(folder, target);
    try {
      const real = fs.realpathSync.native(absolute);
      return fs.statSync(real).isDirectory() ? real : undefined;
    } catch {
      return undefined;
    }
  }

  /** The words a pattern with an active glob character expands to (see the class). */
  match(pattern: string): GlobResult {
    const known = this.results.get(pattern);
    if (known !== undefined || this.results.has(pattern)) return known;
    const result = this.match_uncached(pattern);
    this.results.set(pattern, result);
    return result;
  }

  private match_uncached(pattern: string): GlobResult {
    const shown = unquote(pattern);
    const simple = without_extglob(pattern);
    if (simple === undefined) return { over: `${shown} has an extended pattern spanning a folder, which this analyzer cannot match` };
    const wide = this.wide || simple.had || /(^|\/)\*\*(\/|$)/.test(simple.pattern);
    const budget: Budget = { listed: 0 };
    let starts: { readonly at: Reached; readonly rest: string; readonly folder?: string }[];
    if (simple.pattern.startsWith("/")) starts = [{ at: { file: "/", word: "/" }, rest: simple.pattern.slice(1) }];
    else if (simple.pattern.startsWith("~/")) starts = [{ at: { file: `${this.home}/`, word: `${this.home}/` }, rest: simple.pattern.slice(2) }];
    else if (this.folders_unknown) return { over: `${shown} is expanded in a folder the script changes to, only known at run time` };
    else starts = this.folders.map((folder) => ({ at: { file: `${folder}/`, word: "" }, rest: simple.pattern, ...(folder === this.cwd ? {} : { folder }) }));
    const paths = new Set<string>();
    for (const start of starts) {
      const reached = this.walk(start.at, start.rest, wide, budget);
      if (reached === "over" || paths.size + reached.length > MAX_MATCHES)
        return { over: `${shown} matches more than ${MAX_MATCHES} files: too many to check` };
      // Matches in a folder a `cd` leads to are judged where they are; a name starting with a dash stays
      // as bash passes it, since to the program it is an option.
      for (const word of reached) paths.add(start.folder === undefined || word.startsWith("-") ? word : `${start.folder}/${word}`);
    }
    return paths.size === 0 ? undefined : { paths: [...paths].sort() };
  }

  /** The words `rest` (segments separated by `/`) matches from `start`, or "over" past the bounds. */
  private walk(start: Reached, rest: string, wide: boolean, budget: Budget): string[] | "over" {
    const segments = rest.split("/");
    const directories_only = segments.length > 1 && segments.at(-1) === "";
    if (directories_only) segments.pop();
    let reached: Reached[] = [start];
    for (const [index, segment] of segments.entries()) {
      const last = index === segments.length - 1;
      const next: Reached[] = [];
      for (const at of reached) {
        if (segment === "**" && wide) this.descend(at, last, budget, next);
        else if (has_glob(segment)) this.list_matching(at, segment, wide, last, budget, next);
        else next.push(step(at, unquote(segment), false));
        if (next.length > MAX_MATCHES || budget.listed > MAX_LISTED) return "over";
      }
      reached = next;
    }
    const exists = (at: Reached): boolean => (directories_only ? this.is_directory(at.file) : at.listed === true || fs.existsSync(at.file) || is_link(at.file));
    return reached.filter(exists).map((at) => (directories_only ? `${at.word}/` : at.word));
  }

  /** The entries of the folder at `at` that one segment matches; folders only, when more segments follow. */
  private list_matching(at: Reached, segment: string, wide: boolean, last: boolean, budget: Budget, out: Reached[]): void {
    const expression = segment_expression(segment, wide);
    const dot = explicit_dot(segment);
    const names = dot ? [".", "..", ...this.list(at.file)] : this.list(at.file);
    budget.listed += names.length;
    for (const name of names) {
      if (name.startsWith(".") && !dot && (!wide || name === "." || name === "..")) continue;
      if (!expression.test(name)) continue;
      const entry = step(at, name, true);
      if (last || this.is_directory(entry.file)) out.push(entry);
    }
  }

  /** `**`: the folder at `at` and every folder below it; on the last segment, every entry below it too. */
  private descend(at: Reached, last: boolean, budget: Budget, out: Reached[]): void {
    const seen = new Set<string>();
    const pending: Reached[] = [at];
    if (!last) out.push(at);
    for (let current = pending.pop(); current !== undefined; current = pending.pop()) {
      const real = real_path(current.file);
      if (real === undefined || seen.has(real) || budget.listed > MAX_LISTED) continue;
      seen.add(real);
      const names = this.list(current.file);
      budget.listed += names.length;
      for (const name of names) {
        const entry = step(current, name, true);
        const directory = this.is_directory(entry.file);
        if (directory) pending.push(entry);
        if (directory || last) out.push(entry);
      }
    }
  }

  private list(folder: string): readonly string[] {
    let names = this.listings.get(folder);
    if (names === undefined) {
      try {
        names = fs.readdirSync(folder);
      } catch {
        names = [];
      }
      this.listings.set(folder, names);
    }
    return names;
  }

  private is_directory(file: string): boolean {
    let directory = this.directories.get(file);
    if (directory === undefined) {
      try {
        directory = fs.statSync(file).isDirectory();
      } catch {
        directory = false;
      }
      this.directories.set(file, directory);
    }
    return directory;
  }
}

function is_link(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

function real_path(file: string): string | undefined {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return undefined;
  }
}

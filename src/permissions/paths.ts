import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { air_failure } from "../contracts/errors.js";
import { air_home } from "../project/layout.js";

/** Path risk categories of seeds 003 §12. */
const PATH_CATEGORIES = [
  "project_source",
  "project_build_output",
  "project_air_shared",
  "project_air_local",
  "project_git_internal",
  "outside_project",
  "credential_or_secret",
  "system_sensitive",
] as const;
export type PathCategory = (typeof PATH_CATEGORIES)[number];

export type PathClassification = {
  /** The path as the caller gave it. */
  readonly input: string;
  /** `path.resolve(root, input)`: the lexical absolute path (`..` folded without looking at the disk). */
  readonly absolute: string;
  /**
   * Where the kernel would land: an lstat/readlink walk over every segment, `..` taken physically (after a
   * symlink it leaves the symlink's target), dangling symlinks followed, missing segments kept as they are.
   */
  readonly real: string;
  readonly exists: boolean;
  /**
   * `real` under the real root (compared with root + `path.sep`), and nothing else can reach the same file:
   * false for hard-linked files and for paths through `/proc`, even when `real` is under the root.
   */
  readonly inside_project: boolean;
  /** Where `real` is relative to the real root, `/`-separated ("" for the root), whenever it is under it. */
  readonly relative?: string;
  readonly category: PathCategory;
  /**
   * An existing non-folder with more than one name (`nlink > 1`). Its other names cannot be found cheaply
   * and may be outside the project (`~/.ssh/id_rsa`), so such a file is never treated as project content.
   */
  readonly hard_linked: boolean;
  /**
   * The path goes through `/proc` (`/proc/self/root`, `/proc/<pid>/cwd`, `/dev/fd/N` …): what it reaches
   * depends on the process that opens it, not on what it resolved to here.
   */
  readonly process_link: boolean;
};

const MAX_LINK_DEPTH = 40;
/** Files at most this big are read to look for registry tokens. */
const MAX_CONFIG_BYTES = 64 * 1024;

function too_many_links(absolute: string): never {
  throw air_failure({
    kind: "tool_error",
    message: `too many levels of symbolic links resolving ${absolute}`,
    retryability: "not_retryable",
    user_action: "Remove the symlink loop or use a path that does not go through it.",
  });
}

type Walk = { readonly real: string; readonly process_link: boolean };

/** What the file system said about one absolute path: nothing there, a symlink to `link`, or `stats`. */
type Entry = { readonly stats?: fs.Stats; readonly link?: string; readonly unreadable?: true };

/**
 * The lstat and readlink answers of one permission check, by absolute path. A command's paths share their
 * folders (a glob's matches, the folders a `cd` leads to, air's home checked for every path), and each
 * walk would otherwise ask the file system about every one of them again: a dozen syscalls a path.
 */
export type PathMemo = Map<string, Entry>;

function entry_of(absolute: string): Entry {
  let stats: fs.Stats;
  try {
    stats = fs.lstatSync(absolute);
  } catch {
    return {};
  }
  if (!stats.isSymbolicLink()) return { stats };
  try {
    return { stats, link: fs.readlinkSync(absolute) };
  } catch {
    return { stats, unreadable: true };
  }
}

function look(absolute: string, memo: PathMemo | undefined): Entry {
  const known = memo?.get(absolute);
  if (known !== undefined) return known;
  const entry = entry_of(absolute);
  memo?.set(absolute, entry);
  return entry;
}

/**
 * The lstat/readlink walk: one segment at a time from `/`, every symlink hop replaced by its target (so a
 * dangling link lands where a write would land), `..` applied to the physical folder reached so far. Once a
 * segment is missing, the rest cannot exist either and is appended as written. Whether any step passed
 * through `/proc` is recorded, since the targets there are only meaningful for the process looking.
 */
function walk(absolute: string, memo?: PathMemo): Walk {
  const pending = absolute.split(path.sep).reverse();
  let current = path.parse(absolute).root || path.sep;
  let hops = 0;
  let missing = false;
  let process_link = false;
  for (let segment = pending.pop(); segment !== undefined; segment = pending.pop()) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, segment);
    if (is_inside(next, "/proc")) process_link = true;
    const entry: Entry = missing ? {} : look(next, memo);
    if (entry.stats === undefined) missing = true;
    if (entry.stats?.isSymbolicLink() === true) {
      hops += 1;
      if (hops > MAX_LINK_DEPTH) too_many_links(absolute);
      if (entry.link === undefined) {
        // unreadable (another user's /proc entry): the rest cannot be known, it is kept as written
        missing = true;
        current = next;
        continue;
      }
      pending.push(...entry.link.split(path.sep).reverse());
      if (path.isAbsolute(entry.link)) current = path.parse(entry.link).root;
      continue;
    }
    current = next;
  }
  return { real: current, process_link };
}

/** Where an absolute path really points, even when it (or a symlink on it) does not exist yet. */
export function resolve_real(absolute: string): string {
  return walk(absolute).real;
}

/**
 * The characters HFS+ ignores in names. U+034F, a combining character, stands outside the class: after
 * another character in it, it would read as one combined character.
 */
const HFS_IGNORED = /\u034F|[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF]/g;

/**
 * A path segment as a case-insensitive file system would compare it: NFC, lower case, without the
 * characters HFS+ ignores (CVE-2014-9390: `.g\u200cit`), without the trailing dots and spaces Windows
 * drops (`.git.`) and without an NTFS stream suffix (`.git::$INDEX_ALLOCATION`).
 */
export function fold_segment(segment: string): string {
  return segment
    .normalize("NFC")
    .replace(HFS_IGNORED, "")
    .toLowerCase()
    .replace(/::\$[a-z_]*$/, "")
    .replace(/[. ]+$/, (tail) => (tail.length === segment.length ? tail : ""));
}

/** `.git` in any spelling a file system might map onto it, NTFS short names (`GIT~1`) included. */
function is_git_segment(folded: string): boolean {
  return folded === ".git" || /^git~\d+$/.test(folded);
}

function is_inside(real: string, real_root: string): boolean {
  if (real === real_root) return true;
  const prefix = real_root.endsWith(path.sep) ? real_root : real_root + path.sep;
  return real.startsWith(prefix);
}

const BUILD_OUTPUT = new Set(["build", "dist", "out", "target", "node_modules", "coverage", ".cache"]);
const ENV_TEMPLATES = new Set(["example", "sample", "template", "templates", "dist", "defaults", "schema", "tpl", "tmpl"]);
const CREDENTIAL_NAMES = new Set([
  ".netrc",
  "_netrc",
  ".pgpass",
  ".git-credentials",
  ".pypirc",
  ".htpasswd",
  ".envrc",
  ".vault-token",
  "id_rsa",
  "id_dsa",
  "id_ecdsa",
  "id_ed25519",
  "id_ecdsa_sk",
  "id_ed25519_sk",
]);
const CREDENTIAL_EXTENSIONS = new Set([".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".ppk"]);
/** Folders whose every file is a credential, wherever they are. */
const CREDENTIAL_DIRS = new Set([".ssh", ".gnupg", ".aws"]);
/** Home-relative credential files. */
const HOME_CREDENTIALS = [".npmrc", ".yarnrc", ".yarnrc.yml", ".docker/config.json", ".kube/config", ".config/gh/hosts.yml", ".azure", ".config/gcloud"];
/** Package-manager configuration files that may hold registry tokens. */
const REGISTRY_CONFIGS = new Set([".npmrc", ".yarnrc", ".yarnrc.yml"]);
/** `_authToken=…`, `//registry/:_auth = …`, `npmAuthToken: …`: the key and its value on one line. */
const TOKEN_LINE = /^\s*["']?(?:[^\s=]*:)?(_authtoken|_auth|_password|npmauthtoken|npmauthident)["']?\s*[=:]\s*(.*)$/gim;
const SYSTEM_PREFIXES = [
  "/etc",
  "/bin",
  "/sbin",
  "/usr",
  "/lib",
  "/lib32",
  "/lib64",
  "/boot",
  "/dev",
  "/proc",
  "/sys",
  "/root",
  "/System",
  "/Library",
  "/private/etc",
];

/** `.env`, `.env.local`, `.env.production` … but not `.env.example` and other templates. */
export function is_env_file(basename: string): boolean {
  const name = fold_segment(basename);
  if (name === ".env") return true;
  if (!name.startsWith(".env.")) return false;
  return !ENV_TEMPLATES.has(name.slice(".env.".length));
}

/**
 * A registry configuration file with a token in it (`.npmrc` with `_authToken=…`). A value that only names
 * an environment variable (`${NPM_TOKEN}`) holds no secret; a file too big to read cheaply is assumed to.
 */
export function has_registry_token(file: string): boolean {
  if (!REGISTRY_CONFIGS.has(fold_segment(path.basename(file)))) return false;
  let text: string;
  try {
    if (fs.statSync(file).size > MAX_CONFIG_BYTES) return true;
    text = fs.readFileSync(file, "utf8");
  } catch {
    return false;
  }
  for (const match of text.matchAll(TOKEN_LINE)) {
    // biome-ignore lint/style/noNonNullAssertion: TOKEN_LINE's second group, `(.*)`, is not optional
    const value = match[2]!.trim().replace(/^["']|["']$/g, "");
    if (value !== "" && !/^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(value)) return true;
  }
  return false;
}

/** Obvious credential files: env files, SSH/GPG/AWS folders, private keys, netrc-like files, tokens in registry configs. */
export function is_credential_path(real: string, home: string = os.homedir()): boolean {
  const segments = real.split(path.sep).filter((segment) => segment !== "");
  const folded = segments.map(fold_segment);
  const basename = segments.at(-1) ?? "";
  const name = folded.at(-1) ?? "";
  if (is_env_file(basename)) return true;
  if (CREDENTIAL_NAMES.has(name)) return true;
  if (CREDENTIAL_EXTENSIONS.has(path.extname(name))) return true;
  if (folded.slice(0, -1).some((segment) => CREDENTIAL_DIRS.has(segment)) || CREDENTIAL_DIRS.has(name)) {
    const ssh_public = folded.at(-2) === ".ssh" && (name === "known_hosts" || name === "config");
    return !name.endsWith(".pub") && !ssh_public;
  }
  if (HOME_CREDENTIALS.some((relative) => is_inside(real, path.join(home, relative)))) return true;
  return has_registry_token(real);
}

function is_system_path(real: string): boolean {
  return SYSTEM_PREFIXES.some((prefix) => is_inside(real, prefix));
}

/** The category of a path inside the project, from its segments relative to the real root. */
function inside_category(relative: string): PathCategory {
  const segments = relative === "" ? [] : relative.split("/");
  const folded = segments.map(fold_segment);
  if (folded.some(is_git_segment)) return "project_git_internal";
  if (folded[0] === ".air") return folded[1] === "shared" ? "project_air_shared" : "project_air_local";
  const first = folded[0];
  if (first !== undefined && is_build_output_name(first)) return "project_build_output";
  return "project_source";
}

/** A top-level folder name that holds build output or dependencies (`build`, `node_modules`, `cmake-build-debug` …). */
export function is_build_output_name(name: string): boolean {
  return BUILD_OUTPUT.has(name) || name.startsWith("cmake-build-");
}

export function real_root_of(project_root: string): string {
  return fs.realpathSync.native(project_root);
}

function stat_of(real: string, memo: PathMemo | undefined): fs.Stats | undefined {
  const { stats } = look(real, memo);
  if (stats === undefined || !stats.isSymbolicLink()) return stats;
  try {
    return fs.statSync(real);
  } catch {
    return undefined;
  }
}

/**
 * PathClassifier (seeds 000 §9.2): where a path really points and how risky it is to touch it.
 * `input` is relative to `base` (the project root, or a command's working folder) or absolute; `~` is
 * the home folder. Credential files win over every other category; paths through `/proc` are system
 * paths whatever they resolve to; a hard-linked project file counts as outside the project, except that
 * git and air internals keep their (stricter) categories.
 */
export function classify_path(input: string, base: string, options: { real_root?: string; home?: string; memo?: PathMemo } = {}): PathClassification {
  if (input.includes("\0")) {
    throw air_failure({
      kind: "tool_error",
      message: "a path cannot contain a NUL character",
      retryability: "not_retryable",
      user_action: "Pass a plain file path.",
    });
  }
  const home = options.home ?? os.homedir();
  const real_root = options.real_root ?? real_root_of(base);
  const expanded = input === "~" || input.startsWith("~/") ? home + input.slice(1) : input;
  const absolute = path.resolve(base, expanded);
  // Not path.resolve: `link/..` must reach the walk unfolded.
  const { real, process_link: through_proc } = walk(path.isAbsolute(expanded) ? expanded : `${base}${path.sep}${expanded}`, options.memo);
  const process_link = through_proc || is_inside(absolute, "/proc") || is_inside(absolute, "/dev/fd");
  const stat = stat_of(real, options.memo);
  const hard_linked = stat !== undefined && !stat.isDirectory() && stat.nlink > 1;
  const under_root = !process_link && is_inside(real, real_root);
  const relative = under_root ? path.relative(real_root, real).split(path.sep).join("/") : undefined;
  let category: PathCategory;
  // air's own home holds the model keys, the permissions rules and the grants: an agent never edits its own leash.
  const in_air_home = is_inside(absolute, air_home()) || is_inside(real, walk(air_home(), options.memo).real);
  if (in_air_home || is_credential_path(real, home) || is_credential_path(absolute, home)) category = "credential_or_secret";
  else if (process_link) category = "system_sensitive";
  else if (relative !== undefined) {
    const inner = inside_category(relative);
    category = hard_linked && (inner === "project_source" || inner === "project_build_output") ? "outside_project" : inner;
  } else if (is_system_path(real)) category = "system_sensitive";
  else category = "outside_project";
  return { input, absolute, real, exists: stat !== undefined, inside_project: under_root && !hard_linked, relative, category, hard_linked, process_link };
}

/** Normalised scope entry ("src/", "./src/**" → "src"; "." → ""). */
export function normalise_scope_path(entry: string): string {
  let normalised = path.posix.normalize(entry.replace(/\\/g, "/"));
  normalised = normalised.replace(/\/\*\*?$/, "").replace(/\/+$/, "");
  if (normalised === "." || normalised === "./") return "";
  return normalised.replace(/^\.\//, "");
}

/** Whether `relative` (posix, from the project root) is `area` or inside it. */
export function within(relative: string, area: string): boolean {
  const normalised = normalise_scope_path(area);
  if (normalised === "") return true;
  if (normalised.startsWith("/") || normalised.split("/").includes("..")) return false;
  return relative === normalised || relative.startsWith(`${normalised}/`);
}

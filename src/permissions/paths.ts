import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { air_failure } from "../contracts/errors.js";

/** Path risk categories of seeds 003 §12. */
export const PATH_CATEGORIES = [
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
  /** `path.resolve(root, input)`: the lexical absolute path, which is what Node hands to the kernel. */
  readonly absolute: string;
  /**
   * Where the path really points: the realpath of its nearest existing ancestor (dangling symlinks
   * followed too) joined with the segments that do not exist yet.
   */
  readonly real: string;
  readonly exists: boolean;
  /** `real` compared with the realpath of the root + `path.sep`, never by string prefix of the input. */
  readonly inside_project: boolean;
  /** Relative to the real root with `/` separators when inside the project ("" for the root itself). */
  readonly relative?: string;
  readonly category: PathCategory;
};

const MAX_LINK_DEPTH = 40;

function code_of(error: unknown): string | undefined {
  return typeof error === "object" && error !== null ? (error as { code?: string }).code : undefined;
}

/**
 * The real location of `absolute` even when it does not exist yet: realpath of the longest existing
 * prefix, with dangling symlinks resolved through their target. Symlink loops are reported.
 */
export function resolve_real(absolute: string, depth = 0): string {
  if (depth > MAX_LINK_DEPTH) {
    throw air_failure({
      kind: "tool_error",
      message: `too many levels of symbolic links resolving ${absolute}`,
      retryability: "not_retryable",
      user_action: "Remove the symlink loop or use a path that does not go through it.",
    });
  }
  try {
    return fs.realpathSync.native(absolute);
  } catch (error) {
    const code = code_of(error);
    if (code === "ELOOP") return resolve_real(absolute, MAX_LINK_DEPTH + 1);
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
  }
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(absolute);
  } catch {
    stat = undefined;
  }
  if (stat?.isSymbolicLink()) {
    const target = path.resolve(path.dirname(absolute), fs.readlinkSync(absolute));
    return resolve_real(target, depth + 1);
  }
  const parent = path.dirname(absolute);
  if (parent === absolute) return absolute;
  return path.join(resolve_real(parent, depth), path.basename(absolute));
}

/**
 * A path segment as a case-insensitive file system would compare it: NFC, lower case, without the
 * characters HFS+ ignores (CVE-2014-9390: `.g\u200cit`) and without the trailing dots and spaces
 * Windows drops (`.git.`).
 */
export function fold_segment(segment: string): string {
  return segment
    .normalize("NFC")
    .replace(/[\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF]/g, "")
    .toLowerCase()
    .replace(/[. ]+$/, (tail) => (tail.length === segment.length ? tail : ""));
}

function is_inside(real: string, real_root: string): boolean {
  if (real === real_root) return true;
  const prefix = real_root.endsWith(path.sep) ? real_root : real_root + path.sep;
  return real.startsWith(prefix);
}

const BUILD_OUTPUT = new Set(["build", "dist", "out", "target", "node_modules", "coverage", ".cache"]);
const ENV_TEMPLATES = new Set(["example", "sample", "template", "dist", "defaults"]);
const CREDENTIAL_NAMES = new Set([
  ".netrc",
  "_netrc",
  ".pgpass",
  ".git-credentials",
  ".pypirc",
  ".htpasswd",
  ".envrc",
  "id_rsa",
  "id_dsa",
  "id_ecdsa",
  "id_ed25519",
  "id_ecdsa_sk",
  "id_ed25519_sk",
]);
const CREDENTIAL_EXTENSIONS = new Set([".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx"]);
/** Folders whose every file is a credential, wherever they are. */
const CREDENTIAL_DIRS = new Set([".ssh", ".gnupg", ".aws"]);
/** Home-relative credential files. */
const HOME_CREDENTIALS = [".npmrc", ".docker/config.json", ".kube/config", ".config/gh/hosts.yml", ".azure", ".config/gcloud"];
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

/** Obvious credential files: env files, SSH/GPG/AWS folders, private keys, netrc-like files. */
export function is_credential_path(real: string, home: string = os.homedir()): boolean {
  const segments = real.split(path.sep).filter((segment) => segment !== "");
  const folded = segments.map(fold_segment);
  const basename = segments.at(-1) ?? "";
  const name = folded.at(-1) ?? "";
  if (is_env_file(basename)) return true;
  if (CREDENTIAL_NAMES.has(name)) return true;
  if (CREDENTIAL_EXTENSIONS.has(path.extname(name))) return true;
  if (folded.slice(0, -1).some((segment) => CREDENTIAL_DIRS.has(segment)) || CREDENTIAL_DIRS.has(name)) {
    return !name.endsWith(".pub") && name !== "known_hosts" && name !== "config";
  }
  return HOME_CREDENTIALS.some((relative) => is_inside(real, path.join(home, relative)));
}

export function is_system_path(real: string): boolean {
  return SYSTEM_PREFIXES.some((prefix) => is_inside(real, prefix));
}

/** The category of a path inside the project, from its segments relative to the real root. */
function inside_category(relative: string): PathCategory {
  const segments = relative === "" ? [] : relative.split("/");
  const folded = segments.map(fold_segment);
  if (folded.includes(".git")) return "project_git_internal";
  if (folded[0] === ".air") return folded[1] === "shared" ? "project_air_shared" : "project_air_local";
  const first = folded[0];
  if (first !== undefined && (BUILD_OUTPUT.has(first) || first.startsWith("cmake-build-"))) return "project_build_output";
  return "project_source";
}

export function real_root_of(project_root: string): string {
  return fs.realpathSync.native(project_root);
}

/**
 * PathClassifier (seeds 000 §9.2): where a path really points and how risky it is to touch it.
 * `input` is relative to the project root or absolute. Credential files win over every other category.
 */
export function classify_path(
  input: string,
  project_root: string,
  options: { real_root?: string; home?: string } = {},
): PathClassification {
  if (input.includes("\0")) {
    throw air_failure({
      kind: "tool_error",
      message: "a path cannot contain a NUL character",
      retryability: "not_retryable",
      user_action: "Pass a plain file path.",
    });
  }
  const real_root = options.real_root ?? real_root_of(project_root);
  const expanded = input === "~" || input.startsWith("~/") ? path.join(options.home ?? os.homedir(), input.slice(1)) : input;
  const absolute = path.resolve(project_root, expanded);
  const real = resolve_real(absolute);
  const exists = fs.existsSync(real);
  const inside_project = is_inside(real, real_root);
  const relative = inside_project ? path.relative(real_root, real).split(path.sep).join("/") : undefined;
  let category: PathCategory;
  if (is_credential_path(real, options.home) || is_credential_path(absolute, options.home)) category = "credential_or_secret";
  else if (relative !== undefined) category = inside_category(relative);
  else if (is_system_path(real)) category = "system_sensitive";
  else category = "outside_project";
  return { input, absolute, real, exists, inside_project, relative, category };
}

/**
 * Resolves a path the way bash does (physically, `..` after a symlink leaves the symlink's target),
 * from a real base folder.
 */
export function resolve_physical(base_real: string, word: string, home: string = os.homedir()): string {
  let current: string;
  let rest: string;
  if (word === "~" || word.startsWith("~/")) {
    current = resolve_real(home);
    rest = word.slice(1);
  } else if (path.isAbsolute(word)) {
    current = path.parse(word).root;
    rest = word.slice(current.length);
  } else {
    current = base_real;
    rest = word;
  }
  for (const segment of rest.split(/[\\/]/)) {
    if (segment === "" || segment === ".") continue;
    current = segment === ".." ? path.dirname(current) : resolve_real(path.join(current, segment));
  }
  return current;
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

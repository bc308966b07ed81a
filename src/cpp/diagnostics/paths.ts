import { posix } from "node:path";

/** Where the printed paths of one run resolve: the repository root and its build folders (relative to root or absolute). */
export interface PathContext {
  readonly root: string;
  readonly build_dirs?: readonly string[];
  /** The folder the job ran in (ninja and make run from the build folder); defaults to root. */
  readonly cwd?: string;
}

const PSEUDO_FILE = /^<[^>]*>$/;
const DRIVE = /^[A-Za-z]:[\\/]/;
const SYSTEM_PREFIXES = ["/usr/", "/lib/", "/lib64/", "/opt/", "/Library/", "/Applications/"];
/** Folder names that carry a toolchain version (`12`, `12.2.0`, `x86_64-linux-gnu`): dropped so an upgrade keeps signatures. */
const VERSION_SEGMENT = /^(\d+(\.\d+)*|[a-z0-9_]+-(linux|pc|apple|w64)[a-z0-9_-]*)$/;
const SYSTEM_DROP = new Set(["usr", "local", "include", "lib", "lib64", "gcc", "clang", "llvm", "opt"]);
/** Markers of a CMake or Make build tree when the caller named no build folder. */
const BUILD_MARKERS = ["CMakeFiles"];

function to_posix(path: string): string {
  const slashed = DRIVE.test(path) || path.includes("\\") ? path.replaceAll("\\", "/") : path;
  return DRIVE.test(slashed) ? `/${slashed[0]?.toLowerCase()}${slashed.slice(2)}` : slashed;
}

function absolute(path: string, base: string): string {
  return posix.normalize(path.startsWith("/") ? path : posix.join(base, path));
}

function inside(path: string, folder: string): string | null {
  if (path === folder) return "";
  const prefix = folder.endsWith("/") ? folder : `${folder}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : null;
}

/** `/usr/include/c++/12/bits/stl_vector.h` → `<sys>/c++/bits/stl_vector.h`: versions and install prefixes stripped. */
function system_path(path: string): string {
  const kept = path
    .split("/")
    .filter((segment) => segment !== "")
    .filter((segment, index, all) => !VERSION_SEGMENT.test(segment) && !(SYSTEM_DROP.has(segment) && index < all.length - 1));
  return `<sys>/${kept.join("/")}`;
}

function build_relative(path: string, root: string, build_dirs: readonly string[]): string | null {
  for (const dir of build_dirs) {
    const rest = inside(path, absolute(to_posix(dir), root));
    if (rest !== null) return rest === "" ? "<build>" : `<build>/${rest}`;
  }
  for (const marker of BUILD_MARKERS) {
    const at = path.indexOf(`/${marker}/`);
    if (at >= 0) return `<build>${path.slice(at)}`;
  }
  return null;
}

/**
 * A path as a tool printed it, made stable across machines: repo-relative POSIX inside `root`, `<build>/…` inside
 * a build folder (so renaming the build folder changes nothing), `<sys>/…` for toolchain and system headers,
 * `<stdin>`-style pseudo files as printed, and anything else outside the repository absolute POSIX.
 */
export function normalise_path(printed: string, context: PathContext): string {
  const trimmed = printed.trim();
  if (PSEUDO_FILE.test(trimmed) || trimmed === "") return trimmed;
  const root = posix.normalize(to_posix(context.root));
  const cwd = context.cwd === undefined ? root : absolute(to_posix(context.cwd), root);
  const path = absolute(to_posix(trimmed), cwd);
  const build = build_relative(path, root, context.build_dirs ?? []);
  if (build !== null) return build;
  const relative = inside(path, root);
  if (relative !== null) return relative === "" ? "." : relative;
  if (SYSTEM_PREFIXES.some((prefix) => path.startsWith(prefix))) return system_path(path);
  return path;
}

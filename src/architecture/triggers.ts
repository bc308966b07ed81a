import picomatch from "picomatch";
import type { ImpactTrigger } from "../contracts/architecture.js";
import type { BlockerReport, ReviewFinding } from "../contracts/worker-result.js";
import type { ChangedFile, TaskChange } from "./change.js";
import type { ArchitecturePaths } from "./declared-paths.js";

type PathKind = Extract<ImpactTrigger["kind"], "public_interface" | "schema" | "event" | "ipc" | "tool_contract" | "provider_contract" | "package_boundary">;

/** The declared list of each kind of contract in `architecture.yaml`. */
const DECLARED_KIND: Readonly<Record<keyof ArchitecturePaths, PathKind>> = {
  interfaces: "public_interface",
  schemas: "schema",
  events: "event",
  ipc: "ipc",
  tools: "tool_contract",
  providers: "provider_contract",
  packages: "package_boundary",
};

const WHAT: Readonly<Record<PathKind, string>> = {
  public_interface: "public interface",
  schema: "schema",
  event: "event contract",
  ipc: "IPC contract",
  tool_contract: "tool contract",
  provider_contract: "provider contract",
  package_boundary: "package boundary",
};

/** A default every project has: its globs, and whether a change to a matched file counts (all changes unless said). */
type DefaultRule = { readonly kind: PathKind; readonly globs: readonly string[]; readonly counts?: (file: ChangedFile) => boolean };

/** The CMake commands that draw a package's boundary: its targets, what they link and include, what they find. */
const CMAKE_BOUNDARY =
  /\b(add_library|add_executable|add_subdirectory|target_link_libraries|target_include_directories|find_package|FetchContent_Declare|install)\s*\(/i;

const DEFAULT_RULES: readonly DefaultRule[] = [
  { kind: "public_interface", globs: ["**/include/**/*.{h,hh,hpp,hxx,h++,inl,ipp,tcc}"] },
  { kind: "schema", globs: ["**/*.proto", "**/migrations/**/*.sql", "**/schema.sql", "**/*.schema.sql", "**/*.prisma"] },
  {
    kind: "package_boundary",
    globs: ["**/package.json", "**/Cargo.toml", "**/go.mod", "**/pyproject.toml", "**/vcpkg.json", "**/conanfile.{txt,py}", "**/meson.build"],
  },
  {
    kind: "package_boundary",
    globs: ["**/CMakeLists.txt", "**/*.cmake"],
    counts: (file) => file.status !== "modified" || [...file.added, ...file.removed].some((line) => CMAKE_BOUNDARY.test(line)),
  },
];

const matcher = (globs: readonly string[]) => picomatch([...globs], { dot: true });

function path_detail(kind: PathKind, file: ChangedFile, source: "declared" | "default"): string {
  const how = file.status === "modified" ? `changed (+${file.added.length} −${file.removed.length} lines)` : file.status;
  return `${WHAT[kind]} ${file.path} ${how}${source === "declared" ? " (declared in architecture.yaml)" : ""}`;
}

/** The kinds of contract a file is, declared ones first; each kind once. */
function file_triggers(file: ChangedFile, declared: ArchitecturePaths): ImpactTrigger[] {
  const found = new Map<PathKind, ImpactTrigger>();
  for (const [key, kind] of Object.entries(DECLARED_KIND) as [keyof ArchitecturePaths, PathKind][]) {
    const globs = declared[key] ?? [];
    if (globs.length > 0 && !found.has(kind) && matcher(globs)(file.path)) {
      found.set(kind, { kind, detail: path_detail(kind, file, "declared"), file: file.path });
    }
  }
  for (const rule of DEFAULT_RULES) {
    if (found.has(rule.kind) || !matcher(rule.globs)(file.path) || (rule.counts !== undefined && !rule.counts(file))) continue;
    found.set(rule.kind, { kind: rule.kind, detail: path_detail(rule.kind, file, "default"), file: file.path });
  }
  return [...found.values()];
}

/** What the gate weighs: the task's change, the project's declared contracts, the review's findings, the blockers. */
export type TriggerInput = {
  readonly change: Pick<TaskChange, "files">;
  readonly declared?: ArchitecturePaths;
  readonly findings?: readonly ReviewFinding[];
  readonly blockers?: readonly BlockerReport[];
};

/**
 * The conditions of seeds 003 §10.7 that can be told without a model: a changed file that is a public
 * interface, schema, event, IPC, tool or provider contract or a package boundary (by the declared paths and the
 * defaults), a reviewer's finding of category `architecture`, a worker's architecture blocker. None: no gate.
 */
export function detect_triggers(input: TriggerInput): ImpactTrigger[] {
  const declared = input.declared ?? {};
  const triggers = input.change.files.flatMap((file) => file_triggers(file, declared));
  for (const finding of input.findings ?? []) {
    if (finding.category !== "architecture") continue;
    triggers.push({
      kind: "review_finding",
      detail: `reviewer (${finding.severity}, confidence ${finding.confidence}): ${finding.message}`,
      ...(finding.file === undefined ? {} : { file: finding.file }),
    });
  }
  for (const blocker of input.blockers ?? []) {
    if (blocker.category === "architecture") triggers.push({ kind: "worker_blocker", detail: `worker blocked: ${blocker.summary} (needs ${blocker.needed})` });
  }
  return triggers;
}

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { make_event, type EventOrigin } from "../contracts/events/registry.js";
import { now_iso } from "../contracts/ids.js";
import { artifacts, sessions } from "../db/schema.js";
import { artifact_path_facts, type ArtifactPathFacts } from "../project/artifact-store.js";
import { session_artifacts_dir } from "../project/layout.js";
import type { Session } from "../project/session-manager.js";

/** Under a session's artifacts folder, where files that cannot be registered go. */
const QUARANTINE = "quarantine";

/**
 * The orphan-artifact scan of seeds 000 §16.3 over one session's `artifacts/` folder (D-054), both ways:
 * - a file no `artifacts` row names is **registered** when its place and name are the ones ArtifactStore
 *   gives (`<type folder>/<created_at>-<artifact id>-<slug><ext>`) and that id has no row: that is the file
 *   of a write whose `artifact.created` was cut off after the rename (000 §18.2), and its type, id and
 *   creation time are in its path and its sha256 and size in its bytes. It is recorded by appending that
 *   `artifact.created` (no links: they went with the lost event; no original name: the slug is not it).
 * - any other such file is **quarantined**: moved to `artifacts/quarantine/<its path>`, with a
 *   `<its path>.note.json` beside it saying where it was, when and why. Nothing is deleted: a leftover temp
 *   file (a write cut off before its rename) may be partial, and a file air did not name is not air's to judge.
 * - a row whose file is gone, or whose file's sha256 (`verify: "sha256"`) or size (`"size"`, cheap enough for
 *   every resume) differs from the row, is reported: the row is history and stays; the user decides.
 */
export type ArtifactScan = {
  readonly registered: { readonly path: string; readonly artifact_id: string }[];
  readonly quarantined: { readonly path: string; readonly reason: string }[];
  readonly missing: { readonly path: string; readonly artifact_id: string }[];
  readonly changed: { readonly path: string; readonly artifact_id: string; readonly detail: string }[];
};

export type ArtifactScanOptions = { readonly dry_run: boolean; readonly verify: "sha256" | "size" };

type Row = { id: string; path: string; sha256: string; size_bytes: number };

/** Every entry below `root` that is not a folder, as sorted posix paths relative to it; the quarantine is not scanned. */
function files_under(root: string, relative = ""): string[] {
  const folder = path.join(root, relative);
  if (!fs.existsSync(folder)) return [];
  const entries = fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return entries.flatMap((entry) => {
    const inner = relative === "" ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) return inner === QUARANTINE ? [] : files_under(root, inner);
    return [inner];
  });
}

function sha256_of(file: string): string {
  return crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

/** What ArtifactStore's name says of a file without a row, or why it cannot be registered. */
function judge(root: string, relative: string, row_ids: ReadonlySet<string>): { facts: ArtifactPathFacts } | { reason: string } {
  if (!fs.lstatSync(path.join(root, relative)).isFile()) return { reason: "not a regular file" };
  const name = path.posix.basename(relative);
  if (name.startsWith(".") && name.endsWith(".tmp")) return { reason: "the temp file of a write cut off before its rename: its content may be partial" };
  const facts = artifact_path_facts(relative);
  if (facts === undefined) return { reason: "not a place and name air gives an artifact" };
  if (row_ids.has(facts.id)) return { reason: `named as artifact ${facts.id}, whose row names another file` };
  return { facts };
}

function register(session: Session, root: string, relative: string, facts: ArtifactPathFacts, origin: EventOrigin): void {
  const bytes = fs.readFileSync(path.join(root, relative));
  const { project_id } = session.project.file;
  const artifact = {
    id: facts.id,
    type: facts.type,
    uri: `artifact://project/${project_id}/session/${session.id}/${facts.id}`,
    size_bytes: bytes.byteLength,
    sha256: crypto.createHash("sha256").update(bytes).digest("hex"),
    created_at: facts.created_at,
  };
  session.ingestor.ingest(make_event("artifact.created", { artifact, path: relative }, origin));
}

/** A free path in the quarantine for `relative`: the same one, or with `.1`, `.2`… when taken. */
function quarantine_target(root: string, relative: string): string {
  const base = path.join(root, QUARANTINE, relative);
  let target = base;
  for (let n = 1; fs.existsSync(target) || fs.existsSync(`${target}.note.json`); n += 1) target = `${base}.${n}`;
  return target;
}

function quarantine(root: string, relative: string, reason: string): void {
  const source = path.join(root, relative);
  const stat = fs.lstatSync(source);
  const target = quarantine_target(root, relative);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.renameSync(source, target);
  const note = {
    original_path: relative,
    quarantined_at: now_iso(),
    reason,
    size_bytes: stat.size,
    ...(stat.isFile() ? { sha256: sha256_of(target) } : {}),
  };
  fs.writeFileSync(`${target}.note.json`, `${JSON.stringify(note, null, 2)}\n`);
}

/** How a row's file differs from the row, or undefined when it matches (by `verify`). */
function difference(file: string, row: Row, verify: ArtifactScanOptions["verify"]): string | undefined {
  const size = fs.statSync(file).size;
  if (size !== row.size_bytes) return `${size} bytes on disk, ${row.size_bytes} recorded`;
  if (verify === "sha256" && sha256_of(file) !== row.sha256) return "its sha256 differs from the recorded one";
  return undefined;
}

function check_rows(root: string, rows: readonly Row[], verify: ArtifactScanOptions["verify"]): Pick<ArtifactScan, "missing" | "changed"> {
  const missing: ArtifactScan["missing"] = [];
  const changed: ArtifactScan["changed"] = [];
  for (const row of rows) {
    const file = path.join(root, row.path);
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
      missing.push({ path: row.path, artifact_id: row.id });
      continue;
    }
    const detail = difference(file, row, verify);
    if (detail !== undefined) changed.push({ path: row.path, artifact_id: row.id, detail });
  }
  return { missing, changed };
}

const NOTHING: ArtifactScan = { registered: [], quarantined: [], missing: [], changed: [] };

/** A deleted session's artifacts were removed on purpose (D-054): none is missing, and none is to be registered. */
function deleted(session: Session): boolean {
  const row = session.connection.db.select({ status: sessions.status }).from(sessions).where(eq(sessions.id, session.id)).get();
  return row?.status === "deleted";
}

/** Scans one open session's artifacts folder; with `dry_run` it says what it would register and quarantine. */
export function scan_artifacts(session: Session, options: ArtifactScanOptions): ArtifactScan {
  if (deleted(session)) return NOTHING;
  const root = session_artifacts_dir(session.project.layout, session.id);
  const rows = session.connection.db
    .select({ id: artifacts.id, path: artifacts.path, sha256: artifacts.sha256, size_bytes: artifacts.size_bytes })
    .from(artifacts)
    .all();
  const recorded = new Set(rows.map((row) => row.path));
  const row_ids = new Set(rows.map((row) => row.id));
  const origin: EventOrigin = { ...session.origin, source: { kind: "system", id: "recovery" }, route: ["runtime", "recovery"] };
  const registered: ArtifactScan["registered"] = [];
  const quarantined: ArtifactScan["quarantined"] = [];
  for (const relative of files_under(root).filter((file) => !recorded.has(file))) {
    const verdict = judge(root, relative, row_ids);
    if ("facts" in verdict) {
      if (!options.dry_run) register(session, root, relative, verdict.facts, origin);
      registered.push({ path: relative, artifact_id: verdict.facts.id });
      row_ids.add(verdict.facts.id);
      continue;
    }
    if (!options.dry_run) quarantine(root, relative, verdict.reason);
    quarantined.push({ path: relative, reason: verdict.reason });
  }
  return { registered, quarantined, ...check_rows(root, rows, options.verify) };
}

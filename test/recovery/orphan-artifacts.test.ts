/**
 * The orphan-artifact scan (seeds 000 §16.3 step 5) on a real session: a file ArtifactStore wrote whose
 * `artifact.created` never landed is registered by appending that event; any other stray file is moved to
 * the quarantine with a note; a row whose file is gone or changed is reported and kept.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { make_event } from "../../src/contracts/events/registry.js";
import { session_artifacts_dir } from "../../src/project/layout.js";
import { open_session, type Session } from "../../src/project/session-manager.js";
import { scan_artifacts } from "../../src/recovery/orphan-artifacts.js";
import { file_hashes } from "../fixtures/checkout.js";
import { dump_tables, event_count, find_row, rows_of, temp_session_per_test } from "../fixtures/session.js";

let session: Session;
temp_session_per_test((temp) => {
  session = temp.session;
});

const artifacts_dir = () => session_artifacts_dir(session.project.layout, session.id);

/** Every file under the session's artifacts folder with its bytes' sha256, by relative path. */
function tree(): Record<string, string> {
  return file_hashes(artifacts_dir());
}

/**
 * A file exactly as ArtifactStore writes it, whose event is not in this session: written by the store of
 * another session of the project (its row is there, not here), then moved to the same place in this one.
 */
function file_whose_event_was_lost(content: string) {
  const other = open_session(session.project, { title: "the writer" });
  try {
    const artifact = other.artifacts.create({ type: "build_log", content, original_name: "build.log" });
    const relative = String(find_row(other.connection, "artifacts", artifact.id)?.path);
    const target = path.join(artifacts_dir(), relative);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.renameSync(other.artifacts.path_of(relative), target);
    return { artifact, relative };
  } finally {
    other.close();
  }
}

describe("scan_artifacts", () => {
  it("finds nothing in a session whose every artifact has its row and its file", () => {
    session.artifacts.create({ type: "command_log", content: "ok\n" });
    session.artifacts.create({ type: "screenshot", content: new Uint8Array([1, 2, 3]), mime_type: "image/png", extension: ".png" });
    expect(scan_artifacts(session, { dry_run: false, verify: "sha256" })).toEqual({ registered: [], quarantined: [], missing: [], changed: [] });
  });

  it("registers a file ArtifactStore wrote whose artifact.created was lost, with the type, id, time, size and sha256 it had", () => {
    const { artifact, relative } = file_whose_event_was_lost("cc -c a.c\nok\n");
    const events_before = event_count(session.connection);

    const scan = scan_artifacts(session, { dry_run: false, verify: "sha256" });

    expect(scan).toEqual({ registered: [{ path: relative, artifact_id: artifact.id }], quarantined: [], missing: [], changed: [] });
    expect(event_count(session.connection)).toBe(events_before + 1);
    const [event] = rows_of(session.connection, "events").filter((row) => row.type === "artifact.created");
    expect(JSON.parse(String(event?.payload_json))).toEqual({
      artifact: { ...artifact, uri: `artifact://project/${session.project.file.project_id}/session/${session.id}/${artifact.id}` },
      path: relative,
    });
    expect(find_row(session.connection, "artifacts", artifact.id)).toMatchObject({
      type: "build_log",
      path: relative,
      sha256: artifact.sha256,
      size_bytes: artifact.size_bytes,
      created_at: artifact.created_at,
      original_name: null,
    });
    expect(scan_artifacts(session, { dry_run: false, verify: "sha256" }), "a second scan finds it registered").toEqual({
      registered: [],
      quarantined: [],
      missing: [],
      changed: [],
    });
  });

  it("quarantines a leftover temp file and a file air did not name, each with a note, and appends no event", () => {
    const temp_file = `builds/.20300101T000000000Z-x.log.${process.pid}.${crypto.randomUUID()}.tmp`;
    fs.mkdirSync(path.join(artifacts_dir(), "builds"), { recursive: true });
    fs.writeFileSync(path.join(artifacts_dir(), temp_file), "half a wri");
    fs.writeFileSync(path.join(artifacts_dir(), "notes.txt"), "mine\n");
    const events_before = event_count(session.connection);

    const scan = scan_artifacts(session, { dry_run: false, verify: "sha256" });

    expect(scan.registered).toEqual([]);
    expect(scan.quarantined).toEqual([
      { path: temp_file, reason: "the temp file of a write cut off before its rename: its content may be partial" },
      { path: "notes.txt", reason: "not a place and name air gives an artifact" },
    ]);
    expect(event_count(session.connection)).toBe(events_before);
    expect(fs.existsSync(path.join(artifacts_dir(), temp_file))).toBe(false);
    expect(fs.existsSync(path.join(artifacts_dir(), "notes.txt"))).toBe(false);
    expect(fs.readFileSync(path.join(artifacts_dir(), "quarantine", "notes.txt"), "utf8")).toBe("mine\n");
    const note = JSON.parse(fs.readFileSync(path.join(artifacts_dir(), "quarantine", `${temp_file}.note.json`), "utf8"));
    expect(note).toMatchObject({
      original_path: temp_file,
      reason: "the temp file of a write cut off before its rename: its content may be partial",
      size_bytes: 10,
      sha256: crypto.createHash("sha256").update("half a wri").digest("hex"),
    });
    expect(scan_artifacts(session, { dry_run: false, verify: "sha256" }).quarantined, "the quarantine is not scanned again").toEqual([]);
  });

  it("quarantines a second stray file of the same name beside the first, not over it", () => {
    for (const content of ["first\n", "second\n"]) {
      fs.writeFileSync(path.join(artifacts_dir(), "stray.txt"), content);
      scan_artifacts(session, { dry_run: false, verify: "sha256" });
    }
    const quarantine = path.join(artifacts_dir(), "quarantine");
    expect(fs.readFileSync(path.join(quarantine, "stray.txt"), "utf8")).toBe("first\n");
    expect(fs.readFileSync(path.join(quarantine, "stray.txt.1"), "utf8")).toBe("second\n");
    expect(JSON.parse(fs.readFileSync(path.join(quarantine, "stray.txt.1.note.json"), "utf8")).original_path).toBe("stray.txt");
  });

  it("quarantines a file named as an artifact whose row names another file", () => {
    const artifact = session.artifacts.create({ type: "test_log", content: "1 passed\n" });
    const relative = String(find_row(session.connection, "artifacts", artifact.id)?.path);
    const copy = relative.replace(/\.txt$/, "-copy.txt");
    fs.copyFileSync(path.join(artifacts_dir(), relative), path.join(artifacts_dir(), copy));

    const scan = scan_artifacts(session, { dry_run: false, verify: "sha256" });
    expect(scan.registered).toEqual([]);
    expect(scan.quarantined).toEqual([{ path: copy, reason: `named as artifact ${artifact.id}, whose row names another file` }]);
  });

  it("reports a row whose file is gone and rows whose file changed, and keeps every row", () => {
    const gone = session.artifacts.create({ type: "command_log", content: "gone\n" });
    const edited = session.artifacts.create({ type: "command_log", content: "same size\n" });
    const grown = session.artifacts.create({ type: "command_log", content: "short\n" });
    const path_of = (id: string) => String(find_row(session.connection, "artifacts", id)?.path);
    fs.rmSync(path.join(artifacts_dir(), path_of(gone.id)));
    fs.writeFileSync(path.join(artifacts_dir(), path_of(edited.id)), "SAME SIZE\n");
    fs.writeFileSync(path.join(artifacts_dir(), path_of(grown.id)), "much longer now\n");
    const before = dump_tables(session.connection);

    const full = scan_artifacts(session, { dry_run: false, verify: "sha256" });
    expect(full.missing).toEqual([{ path: path_of(gone.id), artifact_id: gone.id }]);
    expect(full.changed).toEqual([
      { path: path_of(edited.id), artifact_id: edited.id, detail: "its sha256 differs from the recorded one" },
      { path: path_of(grown.id), artifact_id: grown.id, detail: "16 bytes on disk, 6 recorded" },
    ]);
    expect(scan_artifacts(session, { dry_run: false, verify: "size" }).changed, "by size alone the same-size edit goes unseen").toEqual([
      { path: path_of(grown.id), artifact_id: grown.id, detail: "16 bytes on disk, 6 recorded" },
    ]);
    expect(dump_tables(session.connection)).toEqual(before);
  });

  it("leaves a deleted session's artifacts alone: their files were removed on purpose", () => {
    const artifact = session.artifacts.create({ type: "command_log", content: "removed with the session\n" });
    fs.rmSync(path.join(artifacts_dir(), String(find_row(session.connection, "artifacts", artifact.id)?.path)));
    expect(scan_artifacts(session, { dry_run: true, verify: "sha256" }).missing).toHaveLength(1);
    session.ingestor.ingest(make_event("session.deleted", { reason: "the user deleted it" }, session.origin));
    fs.writeFileSync(path.join(artifacts_dir(), "notes.txt"), "mine\n");

    expect(scan_artifacts(session, { dry_run: false, verify: "sha256" })).toEqual({ registered: [], quarantined: [], missing: [], changed: [] });
    expect(fs.existsSync(path.join(artifacts_dir(), "notes.txt"))).toBe(true);
  });

  it("with dry_run says what it would register and quarantine, and changes no file and no row", () => {
    const { artifact, relative } = file_whose_event_was_lost("warning: unused\n");
    fs.writeFileSync(path.join(artifacts_dir(), "notes.txt"), "mine\n");
    const files = tree();
    const rows = dump_tables(session.connection);

    const scan = scan_artifacts(session, { dry_run: true, verify: "sha256" });

    expect(scan.registered).toEqual([{ path: relative, artifact_id: artifact.id }]);
    expect(scan.quarantined).toEqual([{ path: "notes.txt", reason: "not a place and name air gives an artifact" }]);
    expect(tree()).toEqual(files);
    expect(dump_tables(session.connection)).toEqual(rows);
  });
});

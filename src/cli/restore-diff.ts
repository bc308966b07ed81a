import fs from "node:fs";
import path from "node:path";
import { createTwoFilesPatch } from "diff";
import type { PlannedFile, RestorePlan } from "../project/snapshot-restore.js";
import type { FileState, SnapshotStore } from "../project/snapshot-store.js";

/** Bigger files are named, not diffed: a diff that size is not read on a screen. */
const MAX_DIFF_BYTES = 1024 * 1024;

type Side = { readonly state: FileState; readonly bytes: Buffer | undefined };

function mode_text(state: FileState): string {
  if (state.kind === "file") return state.mode === 0o755 ? "100755" : "100644";
  return state.kind === "symlink" ? "120000" : "";
}

function is_text(bytes: Buffer): boolean {
  if (bytes.length > MAX_DIFF_BYTES || bytes.subarray(0, 8192).includes(0)) return false;
  return Buffer.from(bytes.toString("utf8"), "utf8").equals(bytes);
}

/** What a side shows as text: a symlink its target, a file its content; undefined when it cannot be shown. */
function text_of(side: Side): string | undefined {
  if (side.state.kind === "absent") return "";
  if (side.bytes === undefined) return undefined;
  if (side.state.kind === "symlink") return `symlink to ${side.bytes.toString("utf8")}\n`;
  return is_text(side.bytes) ? side.bytes.toString("utf8") : undefined;
}

/** One file's change git-style: `diff --git`, its mode or existence change, then the hunks or "Binary files … differ". */
function file_diff(name: string, now: Side, restored: Side): string {
  const header = [`diff --git a/${name} b/${name}`];
  if (now.state.kind === "absent") header.push(`new file mode ${mode_text(restored.state)}`);
  else if (restored.state.kind === "absent") header.push(`deleted file mode ${mode_text(now.state)}`);
  else if (mode_text(now.state) !== mode_text(restored.state)) header.push(`old mode ${mode_text(now.state)}`, `new mode ${mode_text(restored.state)}`);
  const old_name = now.state.kind === "absent" ? "/dev/null" : `a/${name}`;
  const new_name = restored.state.kind === "absent" ? "/dev/null" : `b/${name}`;
  const before = text_of(now);
  const after = text_of(restored);
  if (before === undefined || after === undefined) return [...header, `Binary files ${old_name} and ${new_name} differ`].join("\n");
  if (before === after) return header.join("\n");
  const patch = createTwoFilesPatch(old_name, new_name, before, after, undefined, undefined, { context: 3 });
  // The patch opens with a `===` rule: git's header above stands in for it.
  return [...header, ...patch.split("\n").slice(1)].join("\n").replace(/\n$/, "");
}

function current_bytes(root: string, planned: PlannedFile): Buffer | undefined {
  const file = path.join(root, planned.path);
  if (planned.current.kind === "symlink") return Buffer.from(fs.readlinkSync(file, "buffer"));
  if (planned.current.kind !== "file") return undefined;
  return fs.statSync(file).size > MAX_DIFF_BYTES ? undefined : fs.readFileSync(file);
}

/**
 * What applying `plan` changes, as one unified diff from what is there now (`a/`) to what the restore puts
 * back (`b/`): a file the restore deletes goes to /dev/null, one it brings back comes from it.
 */
export async function restore_diff(store: SnapshotStore, plan: RestorePlan): Promise<string> {
  const oids = plan.files.flatMap((file) => (file.restored.kind === "file" || file.restored.kind === "symlink" ? [file.restored.oid] : []));
  const blobs = await store.read_blobs(oids);
  const parts = plan.files.map((file) => {
    const restored = file.restored.kind === "file" || file.restored.kind === "symlink" ? blobs.get(file.restored.oid) : undefined;
    return file_diff(file.path, { state: file.current, bytes: current_bytes(plan.root, file) }, { state: file.restored, bytes: restored });
  });
  return parts.length === 0 ? "" : `${parts.join("\n")}\n`;
}

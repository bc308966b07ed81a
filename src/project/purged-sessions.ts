import fs from "node:fs";
import * as v from "valibot";
import { now_iso } from "../contracts/ids.js";
import type { ProjectLayout } from "./layout.js";

/**
 * `.air/local/purged-sessions.jsonl`: one line per purged session, its id and when — nothing of what it
 * held. Written before a purge removes anything, so it marks a purge a crash cut short (the folder is still
 * there: purging again finishes it), and afterwards lets air say "purged at …" rather than "no such session".
 */
const PurgeRecord = v.strictObject({ session_id: v.string(), purged_at: v.string() });
type PurgeRecord = v.InferOutput<typeof PurgeRecord>;

function read_text(layout: ProjectLayout): string {
  try {
    return fs.readFileSync(layout.purged_sessions, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw error;
  }
}

function records(text: string): PurgeRecord[] {
  return text.split("\n").flatMap((line) => {
    try {
      const parsed = v.safeParse(PurgeRecord, JSON.parse(line));
      return parsed.success ? [parsed.output] : [];
    } catch {
      // a line torn by a crash mid-append, or the empty tail
      return [];
    }
  });
}

export function purge_record(layout: ProjectLayout, session_id: string): PurgeRecord | undefined {
  return records(read_text(layout)).find((record) => record.session_id === session_id);
}

/** Records the purge of `session_id` (once: a purge finished after a crash keeps its first time). */
export function record_purge(layout: ProjectLayout, session_id: string): PurgeRecord {
  const text = read_text(layout);
  const known = records(text).find((record) => record.session_id === session_id);
  if (known !== undefined) return known;
  const record: PurgeRecord = { session_id, purged_at: now_iso() };
  // One short write in append mode, so concurrent purges' lines do not interleave; a line a crash left
  // without its newline is ended first rather than joined to this one.
  const torn = text !== "" && !text.endsWith("\n");
  fs.appendFileSync(layout.purged_sessions, `${torn ? "\n" : ""}${JSON.stringify(record)}\n`);
  return record;
}

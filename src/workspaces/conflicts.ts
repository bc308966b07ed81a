import * as v from "valibot";
import { read_blobs } from "./blobs.js";
import { git_ok, nul_fields } from "./git.js";

/**
 * One conflicting file: git's messages about it and the conflict-marked regions of its merged text. A schema,
 * since a failed merge's error carries the details and a repair attempt reads them back from the session.
 */
export const ConflictDetail = v.object({
  path: v.string(),
  /** git's own words, e.g. "CONFLICT (content): Merge conflict in src/a.c". */
  messages: v.array(v.string()),
  /** Each `<<<<<<<` … `>>>>>>>` region with its marker lines; none for a modify/delete or a binary file. */
  hunks: v.array(v.string()),
});
export type ConflictDetail = v.InferOutput<typeof ConflictDetail>;

export type MergeTreeOutcome =
  | { readonly clean: true; readonly tree: string }
  | { readonly clean: false; readonly tree: string; readonly files: string[]; readonly messages: { paths: string[]; text: string }[] };

/** `git merge-tree --write-tree -z --name-only` output: the tree, the conflicted paths, then the messages. */
export function parse_merge_tree(output: Buffer, code: number): MergeTreeOutcome {
  const fields = nul_fields(output);
  const tree = fields[0] ?? "";
  if (code === 0) return { clean: true, tree };
  const blank = fields.indexOf("", 1);
  const files = [...new Set(fields.slice(1, blank < 0 ? fields.length : blank))];
  const messages: { paths: string[]; text: string }[] = [];
  // Each message: the number of paths, the paths, a one-word type, the text.
  for (let at = blank < 0 ? fields.length : blank + 1; at < fields.length; ) {
    const count = Number(fields[at]);
    const paths = fields.slice(at + 1, at + 1 + count);
    const text = (fields[at + 2 + count] ?? "").trim();
    messages.push({ paths, text });
    at += 3 + count;
  }
  return { clean: false, tree, files, messages };
}

const MAX_HUNKS = 20;
const MAX_HUNK_CHARS = 4_000;

/** The conflict-marked regions of a merged text (markers are 7 characters: git's default marker size). */
function conflict_hunks(text: string): string[] {
  const hunks: string[] = [];
  let current: string[] | undefined;
  for (const line of text.split("\n")) {
    if (current === undefined && line.startsWith("<<<<<<<")) current = [];
    if (current === undefined) continue;
    current.push(line);
    if (line.startsWith(">>>>>>>")) {
      hunks.push(current.join("\n").slice(0, MAX_HUNK_CHARS));
      current = undefined;
      if (hunks.length === MAX_HUNKS) break;
    }
  }
  return hunks;
}

/** Each conflicted file of a merge with its messages and hunks, read from the conflict tree git wrote. */
export async function conflict_details(root: string, outcome: Extract<MergeTreeOutcome, { clean: false }>): Promise<ConflictDetail[]> {
  const listing = nul_fields(await git_ok(root, ["ls-tree", "-r", "-z", "--full-tree", outcome.tree, "--", ...outcome.files]));
  const oids = new Map<string, string>();
  for (const entry of listing) {
    const [meta = "", file = ""] = entry.split("\t");
    const [, type, oid = ""] = meta.split(" ");
    if (type === "blob") oids.set(file, oid);
  }
  const blobs = await read_blobs(root, [...oids.values()]);
  return outcome.files.map((file) => {
    const bytes = blobs.get(oids.get(file) ?? "");
    return {
      path: file,
      messages: outcome.messages.filter((message) => message.paths.includes(file)).map((message) => message.text),
      hunks: bytes === undefined || bytes.includes(0) ? [] : conflict_hunks(bytes.toString("utf8")),
    };
  });
}

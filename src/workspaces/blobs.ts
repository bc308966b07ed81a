import { air_failure } from "../contracts/errors.js";
import { git_ok, nul_fields } from "./git.js";

/** The contents of blobs by object id, read in one `git cat-file --batch` (no filters: the stored bytes). */
export async function read_blobs(root: string, oids: readonly string[]): Promise<Map<string, Buffer>> {
  const wanted = [...new Set(oids)];
  const blobs = new Map<string, Buffer>();
  if (wanted.length === 0) return blobs;
  const output = await git_ok(root, ["cat-file", "--batch"], { stdin: `${wanted.join("\n")}\n` });
  let at = 0;
  for (const oid of wanted) {
    const header_end = output.indexOf(0x0a, at);
    const [found, type, size] = output.subarray(at, header_end).toString("utf8").split(" ");
    if (found !== oid || type !== "blob" || size === undefined) {
      throw air_failure({
        kind: "system_error",
        message: `git has no blob ${oid} (it answered "${output.subarray(at, header_end).toString("utf8")}")`,
        retryability: "unknown",
        user_action: "Run `git fsck` in the project; the checkout was restored from what could be read.",
      });
    }
    const start = header_end + 1;
    blobs.set(oid, output.subarray(start, start + Number(size)));
    // Each blob's bytes end with a newline of the batch format.
    at = start + Number(size) + 1;
  }
  return blobs;
}

/** Stores the bytes of the files at `paths` (relative to `root`) as blobs, unfiltered; their object ids in order. */
export async function store_files(root: string, paths: readonly string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  const output = await git_ok(root, ["hash-object", "-w", "--no-filters", "--stdin-paths"], { stdin: `${paths.join("\n")}\n` });
  return output.toString("utf8").trim().split("\n");
}

/** Stores `bytes` as a blob (a symlink's target); its object id. */
export async function store_bytes(root: string, bytes: string): Promise<string> {
  return (await git_ok(root, ["hash-object", "-w", "--no-filters", "--stdin"], { stdin: bytes })).toString("utf8").trim();
}

export type TreeChange = {
  readonly path: string;
  /** Git modes as octal text: "100644", "100755", "120000", "160000"; "000000" when absent. */
  readonly old_mode: string;
  readonly new_mode: string;
  readonly old_oid: string;
  readonly new_oid: string;
};

/** Every path whose entry differs between two trees, without rename detection (a rename is a delete and an add). */
export async function tree_changes(root: string, from_tree: string, to_tree: string): Promise<TreeChange[]> {
  const fields = nul_fields(await git_ok(root, ["diff-tree", "-r", "-z", "--no-renames", "--raw", from_tree, to_tree]));
  const changes: TreeChange[] = [];
  // Pairs of ":old_mode new_mode old_oid new_oid status" and the path.
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const [old_mode = "", new_mode = "", old_oid = "", new_oid = ""] = (fields[index] ?? "").slice(1).split(" ");
    changes.push({ path: fields[index + 1] ?? "", old_mode, new_mode, old_oid, new_oid });
  }
  return changes;
}

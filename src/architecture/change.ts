/** One file a task changed, as its diff shows it: the lines it added and removed, without context lines. */
export type ChangedFile = {
  readonly path: string;
  readonly status: "added" | "modified" | "deleted";
  readonly added: readonly string[];
  readonly removed: readonly string[];
};

/** A task's change against its base: the files, and the unified diff they were read from (what the designer reads). */
export type TaskChange = { readonly files: readonly ChangedFile[]; readonly diff: string };

type Building = { path: string; status: ChangedFile["status"]; added: string[]; removed: string[] };

/** `b/path` (or `a/path` of a deletion) of a `+++`/`---` line; `/dev/null` is no path. */
function side_path(line: string): string | undefined {
  const name = line.slice(4).replace(/\t.*$/, "");
  if (name === "/dev/null") return undefined;
  return name.replace(/^[ab]\//, "");
}

/**
 * The files of a `git diff` (unified, `a/` and `b/` prefixes). A rename shows as its new path; a binary file
 * as a modified file with no lines.
 */
export function parse_unified_diff(diff: string): ChangedFile[] {
  const files: Building[] = [];
  let current: Building | undefined;
  let in_hunk = false;
  for (const line of diff.split("\n")) {
    const header = /^diff --git a\/(.+) b\/(.+)$/.exec(line);
    if (header !== null) {
      current = { path: header[2] ?? "", status: "modified", added: [], removed: [] };
      files.push(current);
      in_hunk = false;
      continue;
    }
    if (current === undefined) continue;
    if (!in_hunk) {
      if (line.startsWith("new file mode")) current.status = "added";
      else if (line.startsWith("deleted file mode")) current.status = "deleted";
      else if (line.startsWith("+++ ")) current.path = side_path(line) ?? current.path;
      else if (line.startsWith("@@")) in_hunk = true;
      continue;
    }
    if (line.startsWith("+")) current.added.push(line.slice(1));
    else if (line.startsWith("-")) current.removed.push(line.slice(1));
  }
  return files;
}

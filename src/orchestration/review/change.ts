/**
 * What a task changed, as the review gate reads it: the files of its diff against its base with their line
 * counts, and the diff itself (unified, git's format).
 */
export type ChangedFile = { readonly path: string; readonly added: number; readonly deleted: number };
export type TaskChange = { readonly files: readonly ChangedFile[]; readonly diff: string };

export function changed_lines(change: TaskChange): number {
  return change.files.reduce((sum, file) => sum + file.added + file.deleted, 0);
}

const HEADER = /\.(h|hh|hpp|hxx|h\+\+|inl|ipp)$/;

/** A header under an `include/` folder: what a C or C++ library publishes. */
function public_header(file: string): boolean {
  return HEADER.test(file) && (file.startsWith("include/") || file.includes("/include/"));
}

/** An added or removed line that declares an export: a signature other modules see (TS/JS `export`, Rust `pub`). */
const EXPORTED_LINE = /^[+-](?![+-])\s*(export\s|pub\s+(fn|struct|enum|trait|type|const|mod)\s)/m;

/** The files of a diff whose changed lines declare exports, from its `+++ b/<path>` sections. */
function files_with_exported_changes(diff: string): string[] {
  const found: string[] = [];
  for (const section of diff.split(/^diff --git /m).slice(1)) {
    const target = /^\+\+\+ b\/(.+)$/m.exec(section)?.[1] ?? /^--- a\/(.+)$/m.exec(section)?.[1];
    const body = section.split(/^@@/m).slice(1).join("@@");
    if (target !== undefined && EXPORTED_LINE.test(body)) found.push(target);
  }
  return found;
}

/** The changed files that are part of a public interface: headers under include/, or exported signatures. */
export function public_interface_changes(change: TaskChange): string[] {
  const headers = change.files.map((file) => file.path).filter(public_header);
  return [...new Set([...headers, ...files_with_exported_changes(change.diff)])];
}

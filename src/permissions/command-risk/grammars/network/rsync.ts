import { program_rule } from "../../grammar/declarative.js";
import type { Matched } from "../../grammar/matched.js";
import type { OptionSpec, ProgramRule, Seen, ValueKind } from "../../grammar/types.js";
import type { ShellWord } from "../../types.js";
import { flags, is_remote, listens, valued } from "./common.js";

/**
 * `-f RULE`: include, exclude, protect, hide, show, risk and clear rules are patterns; merge rules (`merge FILE`,
 * `. FILE`, `dir-merge`, `:`) read rules from files, which asks.
 */
const FILTER: ValueKind = {
  judge: (word, matched) => {
    if (!word.literal || !/^([-+PHSR!]|include|exclude|protect|hide|show|risk|clear)([ ,_]|$)/.test(word.value))
      matched.ask(`rsync --filter ${word.value} is not a pattern rule this analyzer knows (merge rules read files)`);
  },
};

const DELETES: OptionSpec = { category: "destructive" };
/** The options that delete files in the destination (rsync(1): --delete and its timings, --delete-excluded …). */
const DELETING = ["--del", "--delete", "--delete-before", "--delete-during", "--delete-delay", "--delete-after", "--delete-excluded", "--delete-missing-args"];

const OPTIONS: Readonly<Record<string, OptionSpec>> = {
  ...flags(
    "-v|--verbose",
    "-q|--quiet",
    "-c|--checksum",
    "-a|--archive",
    "-r|--recursive",
    "-R|--relative",
    "--no-implied-dirs",
    "-b|--backup",
    "-u|--update",
    "--inplace",
    "--append",
    "--append-verify",
    "-d|--dirs",
    "--mkpath",
    "-l|--links",
    "-L|--copy-links",
    "--copy-unsafe-links",
    "--safe-links",
    "--munge-links",
    "-k|--copy-dirlinks",
    "-H|--hard-links",
    "-p|--perms",
    "-E|--executability",
    "-A|--acls",
    "-X|--xattrs",
    "-o|--owner",
    "-g|--group",
    "--devices",
    "--specials",
    "-D",
    "-t|--times",
    "-U|--atimes",
    "--open-noatime",
    "-N|--crtimes",
    "-O|--omit-dir-times",
    "-J|--omit-link-times",
    "--fake-super",
    "-S|--sparse",
    "--preallocate",
    "-n|--dry-run",
    "-W|--whole-file",
    "-x|--one-file-system",
    "--existing",
    "--ignore-existing",
    "--ignore-missing-args",
    "--ignore-errors",
    "--force",
    "--partial",
    "--delay-updates",
    "-m|--prune-empty-dirs",
    "--numeric-ids",
    "-I|--ignore-times",
    "--size-only",
    "-y|--fuzzy",
    "-z|--compress",
    "-C|--cvs-exclude",
    "-F",
    "-0|--from0",
    "-s|--secluded-args|--protect-args",
    "--blocking-io",
    "--stats",
    "-8|--8-bit-output",
    "-h|--human-readable",
    "--progress",
    "-P",
    "-i|--itemize-changes",
    "--list-only",
    "--fsync",
    "-4|--ipv4",
    "-6|--ipv6",
    "-V|--version",
    "--help",
    "--no-motd",
    "--no-inc-recursive",
    "--no-owner",
    "--no-group",
    "--no-perms",
    "--no-times",
    "--no-whole-file",
    "--no-compress",
    "--no-o",
    "--no-g",
    "--no-p",
    "--no-t",
    "--no-detach",
  ),
  ...valued(
    "text",
    "--info",
    "--debug",
    "--suffix",
    "--chmod",
    "--checksum-choice|--cc",
    "--compress-choice|--zc",
    "--skip-compress",
    "--exclude",
    "--include",
    "--chown",
    "--usermap",
    "--groupmap",
    "--out-format",
    "--log-file-format",
    "--iconv",
    "--address",
    "--sockopts",
    "--outbuf",
    "--stop-at",
  ),
  ...valued(
    "number",
    "-B|--block-size",
    "--max-delete",
    "--max-size",
    "--min-size",
    "--max-alloc",
    "--timeout",
    "--contimeout",
    "-@|--modify-window",
    "--compress-level",
    "--bwlimit",
    "--port",
    "--protocol",
    "--checksum-seed",
    "--stop-after",
  ),
  ...valued("read", "--exclude-from", "--include-from", "--files-from", "--compare-dest", "--copy-dest", "--link-dest", "--read-batch", "--early-input"),
  ...valued("write", "--backup-dir", "-T|--temp-dir", "--partial-dir", "--log-file", "--write-batch", "--only-write-batch"),
  // the daemon's password: rsync sends what the file holds (hashed with the server's challenge)
  "--password-file": { value: "read" },
  "-f|--filter": { value: FILTER },
  "-e|--rsh": { value: "command" },
  "--rsync-path": { value: "command" },
  ...Object.fromEntries(DELETING.map((name) => [name, DELETES])),
  "--remove-source-files": DELETES,
  "--daemon": {},
  "--config": { value: "read", ask: "reads a daemon configuration, which may run programs (pre-xfer exec)" },
};

/**
 * The operands: sources read, or listed when alone, and the last one written; a `host:path`, `host::module` or
 * `rsync://` operand is on another machine. Recursive copies (`-a`, `-r`, `-d` on a folder's contents, or a
 * `--files-from` list) read trees, following the symlinks inside them with `-L`, `-k` or `--copy-unsafe-links`.
 * `--delete*` empties the destination of what the source lacks and `--remove-source-files` deletes the sources —
 * unless `-n` makes it a dry run. A transfer with no operand on another machine is local and has no network.
 */
function transfer(matched: Matched, seen: Seen, operands: readonly ShellWord[]): void {
  if (seen.has("-V") || seen.has("--help")) return;
  if (seen.has("--daemon")) {
    matched.categories.add("network");
    listens(matched, "rsync --daemon", seen.get("--address")?.at(-1));
    return;
  }
  const dry = seen.has("-n");
  if (dry) matched.categories.delete("destructive");
  const recursive = ["-a", "-r", "-d", "--files-from"].some((option) => seen.has(option));
  const follows = ["-L", "-k", "--copy-unsafe-links"].some((option) => seen.has(option));
  const depth = recursive ? (follows ? "linked_tree" : "tree") : "path";
  const deletes = !dry && DELETING.some((option) => seen.has(option));
  const removes = !dry && seen.has("--remove-source-files");
  const last = operands.length > 1 ? operands.length - 1 : -1;
  operands.forEach((word, index) => {
    if (is_remote(word)) matched.categories.add("network");
    else if (index === last) matched.write(word, deletes);
    else {
      matched.read(word, depth);
      if (removes) matched.write(word, true);
    }
  });
}

/**
 * rsync(1), rsync 3.2: `rsync [OPTION...] SRC... [DEST]`; `[USER@]HOST:SRC`, `[USER@]HOST::SRC` and
 * `rsync://[USER@]HOST[:PORT]/SRC` name another machine; `rsync --daemon` serves modules (port 873, all addresses
 * unless `--address`). popt: `--opt=value` or `--opt value`, clusters, `-essh`.
 */
export const RSYNC_RULES: readonly ProgramRule[] = [
  program_rule({ rule: "rsync", manual: "rsync(1), rsync 3.2", category: "read_only", options: OPTIONS, operands: { rest: "text" }, check: transfer }),
];

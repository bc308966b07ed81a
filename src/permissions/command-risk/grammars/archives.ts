import { program_rule } from "../grammar/declarative.js";
import { Matched } from "../grammar/matched.js";
import type { OptionSpec, ProgramRule, Seen, ValueKind } from "../grammar/types.js";
import type { ShellWord } from "../types.js";
import { literal_word } from "../words.js";
import { ask_dynamic, under_folders } from "./build-common.js";

const TAR_MANUAL = "tar(1), GNU tar 1.35";

/** tar's short options that take a value, in the order the old-style first argument hands them out. */
const TAR_VALUED = new Set(["b", "C", "f", "F", "g", "H", "I", "K", "L", "N", "T", "V", "X"]);

/**
 * The traditional first argument (`tar czf out.tgz src`, GNU tar 1.35, "Old Option Style"): a cluster of option
 * letters without a dash, whose value-taking letters take the following words in order (`tar cfT a.tar list`).
 * Rewritten as the short options it stands for.
 */
function old_style(args: readonly ShellWord[]): ShellWord[] {
  const [first, ...rest] = args;
  if (first === undefined || !first.literal || !/^[A-Za-z]+$/.test(first.value)) return [...args];
  const words: ShellWord[] = [];
  let next = 0;
  for (const letter of first.value) {
    words.push(literal_word(`-${letter}`));
    const value = rest[next];
    if (TAR_VALUED.has(letter) && value !== undefined) {
      words.push(value);
      next += 1;
    }
  }
  return [...words, ...rest.slice(next)];
}

// --checkpoint-action=ACTION: `exec=COMMAND` runs a command; the others print, ring or wait
const checkpoint_action: ValueKind = {
  judge: (word, matched) => {
    if (word.literal && word.value.startsWith("exec=")) {
      const command = word.value.slice("exec=".length);
      matched.ask(`tar --checkpoint-action=exec runs ${command}`);
      matched.code.push({ word: literal_word(command), via: "tar --checkpoint-action=exec" });
    } else if (!word.literal || !/^(\.|dot|bell|totals|echo(=.*)?|ttyout=.*|sleep=\d+|wait=[A-Z0-9]+)$/s.test(word.value)) {
      matched.ask(`tar --checkpoint-action=${word.value} is not an action this analyzer knows`);
    }
  },
};

const TAR_MODES = ["-c", "-x", "-t", "-r", "-u", "-A", "-d", "--delete", "--test-label"];

/**
 * What tar's mode makes of the archive, `-C` and the operands: creating reads the operands (the trees below
 * them; with `-h` following symlinks) relative to every `-C` folder and writes the archive; extracting reads
 * the archive and writes into the `-C` folder or `.`; listing only reads the archive.
 */
function tar_check(matched: Matched, seen: Seen, operands: readonly ShellWord[]): void {
  const modes = TAR_MODES.filter((mode) => seen.has(mode));
  const mode = modes[0];
  if (modes.length > 1) matched.ask(`tar ${modes.join(" ")} gives more than one mode`);
  const folders = seen.get("-C") ?? [];
  const archives = seen.get("-f") ?? [];
  if (mode === undefined) {
    if (operands.length > 0 || archives.length > 0) matched.ask("tar without -c, -x or -t does something this analyzer cannot tell");
    return;
  }
  const writes_archive = ["-c", "-r", "-u", "-A", "--delete"].includes(mode);
  for (const archive of archives) {
    if (/^[^/]*:/.test(archive.value) && !seen.has("--force-local"))
      matched.ask(`tar -f ${archive.value} names an archive on another host, reached through a remote shell`, "network");
    if (writes_archive) matched.write(archive);
    else matched.read(archive);
  }
  if (mode === "-x") {
    if (seen.has("--transform")) matched.ask("tar --transform renames members as it extracts them, to names this analyzer cannot follow");
    for (const folder of folders.length > 0 ? folders : [literal_word(".")]) if (!seen.has("-O")) matched.write(folder);
    return;
  }
  if (mode === "-t" || mode === "--delete" || mode === "--test-label") return;
  for (const folder of folders) matched.read(folder);
  const depth = seen.has("-h") ? "linked_tree" : "tree";
  const removed = seen.has("--remove-files");
  for (const operand of operands) {
    for (const word of [operand, ...under_folders(operand, folders)]) {
      matched.read(word, mode === "-A" ? "path" : depth);
      if (removed) matched.write(word, true);
    }
  }
  if (seen.has("-T") && mode !== "-d") matched.ask("tar -T archives the files a list names, which this analyzer does not read");
}

// tar(1): `tar {-c|-x|-t|-r|-u|-A|-d|--delete} [OPTION]... [FILE]...`, and the old style `tar czf ARCHIVE FILE...`
const TAR_SPEC = program_rule({
  rule: "tar",
  manual: TAR_MANUAL,
  category: "build",
  options: {
    "-c|--create": {},
    "-x|--extract|--get": {},
    "-t|--list": {},
    "-r|--append": {},
    "-u|--update": {},
    "-A|--catenate|--concatenate": {},
    "-d|--diff|--compare": {},
    "--delete": {},
    "--test-label": {},
    "-f|--file": { value: "text" },
    "-C|--directory": { value: "text" },
    "--force-local": {},
    "-z|--gzip|--gunzip|--ungzip": {},
    "-j|--bzip2": {},
    "-J|--xz": {},
    "--zstd": {},
    "--lzip": {},
    "--lzma": {},
    "--lzop": {},
    "-Z|--compress|--uncompress": {},
    "-a|--auto-compress": {},
    "--no-auto-compress": {},
    "-I|--use-compress-program": { value: "command" },
    "--to-command": { value: "command" },
    "--checkpoint": { value: "number", optional_value: true },
    "--checkpoint-action": { value: checkpoint_action },
    "--rsh-command": { value: "command" },
    "--rmt-command": { value: "command" },
    "-F|--info-script|--new-volume-script": { value: "command" },
    "-P|--absolute-names": { ask: "keeps leading / and .. in member names, so extraction can write anywhere" },
    "--recursive-unlink": { ask: "removes whole folders that stand where the archive has members" },
    "--remove-files": { category: "destructive" },
    "-h|--dereference": {},
    "--hard-dereference": {},
    "-v|--verbose": {},
    "--totals": { value: "text", optional_value: true },
    "-T|--files-from": { value: "read" },
    "-X|--exclude-from": { value: "read" },
    "--exclude": { value: "text" },
    "--exclude-vcs": {},
    "--exclude-vcs-ignores": {},
    "--exclude-caches": {},
    "--exclude-caches-all": {},
    "--exclude-caches-under": {},
    "--exclude-tag": { value: "text" },
    "--anchored": {},
    "--no-anchored": {},
    "--ignore-case": {},
    "--no-ignore-case": {},
    "--wildcards": {},
    "--no-wildcards": {},
    "--wildcards-match-slash": {},
    "--no-wildcards-match-slash": {},
    "--no-recursion": {},
    "--recursion": {},
    "--null": {},
    "--verbatim-files-from": {},
    "--one-file-system": {},
    "-O|--to-stdout": {},
    "--strip-components": { value: "number" },
    "--transform|--xform": { value: "text" },
    "--show-transformed-names": {},
    "-k|--keep-old-files": {},
    "--keep-newer-files": {},
    "--skip-old-files": {},
    "--overwrite": {},
    "--overwrite-dir": {},
    "--no-overwrite-dir": {},
    "-U|--unlink-first": {},
    "-m|--touch": {},
    "-p|--preserve-permissions|--same-permissions": {},
    "--no-same-permissions": {},
    "--same-owner": {},
    "--no-same-owner|-o": {},
    "--numeric-owner": {},
    "--owner": { value: "text" },
    "--group": { value: "text" },
    "--mode": { value: "text" },
    "--mtime": { value: "text" },
    "--sort": { value: { one_of: ["none", "name", "inode"] } },
    "--format|-H": { value: { one_of: ["gnu", "oldgnu", "pax", "posix", "ustar", "v7"] } },
    "--posix": {},
    "--acls": {},
    "--no-acls": {},
    "--xattrs": {},
    "--no-xattrs": {},
    "--selinux": {},
    "--no-selinux": {},
    "-S|--sparse": {},
    "-l|--check-links": {},
    "-W|--verify": {},
    "-B|--read-full-records": {},
    "-i|--ignore-zeros": {},
    "--ignore-failed-read": {},
    "-b|--blocking-factor": { value: "number" },
    "--record-size": { value: "number" },
    "-G|--incremental": {},
    "-g|--listed-incremental": { value: "write" },
    "--index-file": { value: "write" },
    "-N|--newer|--after-date": { value: "text" },
    "--newer-mtime": { value: "text" },
    "-K|--starting-file": { value: "text" },
    "--occurrence": { value: "number", optional_value: true },
    "-s|--preserve-order|--same-order": {},
    "--delay-directory-restore": {},
    "--no-delay-directory-restore": {},
    "--full-time": {},
    "--utc": {},
    "-V|--label": { value: "text" },
    "--warning": { value: "text" },
    "--restrict": {},
    "--help|-?": {},
    "--usage": {},
    "--version": {},
  },
  operands: { rest: "text" },
  check: tar_check,
});

const TAR: ProgramRule = {
  names: ["tar", "gtar"],
  match: (args) => {
    const matched = TAR_SPEC.match(old_style(args));
    ask_dynamic(args, matched, "tar");
    return matched;
  },
};

const ZIP_MANUAL = "zip(1), Info-ZIP Zip 3.0";
/** zip's one-letter options without a value (zip 3.0 manual, "OPTIONS"): levels, recursion, paths, updates. */
const ZIP_FLAGS = new Set([..."0123456789", ..."ryqvjmTDXufdgoklSLh"]);
/** zip's options that take a value, by letter, with their long spellings. */
const ZIP_VALUED: Readonly<Record<string, ValueKind>> = {
  b: "write",
  n: "text",
  t: "text",
  P: "text",
  s: "text",
  O: "write",
  Z: { one_of: ["deflate", "store", "bzip2"] },
};
const ZIP_LONG: Readonly<Record<string, string>> = {
  "recurse-paths": "r",
  symlinks: "y",
  quiet: "q",
  verbose: "v",
  "junk-paths": "j",
  move: "m",
  test: "T",
  "no-dir-entries": "D",
  "no-extra": "X",
  update: "u",
  freshen: "f",
  delete: "d",
  grow: "g",
  "latest-time": "o",
  help: "h",
  license: "L",
  "temp-path": "b",
  suffixes: "n",
  "output-file": "O",
  "compression-method": "Z",
  exclude: "x",
  include: "i",
  "unzip-command": "TT",
  "names-stdin": "@",
};

/**
 * zip's two-letter short options (zip 3.0 manual: `-lf` log file, `-sf` show files, `-FS` file sync, `-dd`
 * dots …): zip matches them before single letters, so a cluster holding one of these pairs is not read letter
 * by letter.
 */
const ZIP_PAIRS = /AC|AS|DF|FF|FI|FS|MM|UN|db|dc|dd|dg|ds|du|dv|ic|la|lf|li|ll|nw|sb|sc|sd|sf|so|sp|su|sU|sv|ws/;

/** What one zip option does: a flag noted, a value judged, a command run; `"list"` when a pattern list begins. */
function zip_option(option: string, value: () => ShellWord | undefined, matched: Matched, flags: Set<string>): "list" | undefined {
  if (option === "TT") {
    const command = value();
    matched.ask(`zip -TT runs ${command?.value ?? "a command"} to test the archive`);
    if (command?.literal === true) matched.code.push({ word: command, via: "zip -TT" });
  } else if (option === "@") matched.ask("zip -@ archives the files named on its standard input, which this analyzer does not see");
  else if (option === "x" || option === "i") return "list";
  else if (ZIP_FLAGS.has(option)) flags.add(option);
  else {
    const kind = ZIP_VALUED[option];
    const given = kind === undefined ? undefined : value();
    if (kind === undefined) matched.ask(`zip -${option} is not an option this analyzer knows`);
    else if (given !== undefined) {
      if (typeof kind === "object" && "one_of" in kind && !kind.one_of.includes(given.value))
        matched.ask(`zip -${option} ${given.value} is not a value it takes`);
      else if (kind === "write") matched.write(given);
    }
  }
  return undefined;
}

/**
 * zip(1): `zip [-options] [-b path] [-t mmddyyyy] [-n suffixes] [zipfile list] [-xi list]`. The archive is
 * written and the inputs read — zip follows symlinks unless `-y`, so `-r` reads the trees with their links.
 * `-T` tests with unzip; `-TT`/`--unzip-command` runs a command of the caller's choosing instead.
 */
function zip_match(args: readonly ShellWord[]): Matched {
  const matched = new Matched("zip", ZIP_MANUAL);
  matched.categories.add("build");
  ask_dynamic(args, matched, "zip");
  const flags = new Set<string>();
  const operands: ShellWord[] = [];
  let listing = false;
  let done = false;
  for (let index = 0; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const word = args[index]!;
    const value = (attached: string) => (): ShellWord | undefined => (attached !== "" ? literal_word(attached) : args[++index]);
    if (done || !word.literal || !word.value.startsWith("-") || word.value === "-") {
      if (!listing || done) operands.push(word);
      continue;
    }
    listing = false;
    if (word.value === "--") {
      done = true;
      matched.ask("zip reads -- as the end of its options only in some versions");
    } else if (word.value.startsWith("--")) {
      const equals = word.value.indexOf("=");
      const name = word.value.slice(2, equals === -1 ? undefined : equals);
      const letter = ZIP_LONG[name];
      if (letter === undefined) matched.ask(`zip ${word.value} is not an option this analyzer knows`);
      else listing = zip_option(letter, value(equals === -1 ? "" : word.value.slice(equals + 1)), matched, flags) === "list";
    } else if (/^-[A-Za-z]*TT/.test(word.value)) {
      const at = word.value.indexOf("TT");
      for (const letter of word.value.slice(1, at)) zip_option(letter, value(""), matched, flags);
      zip_option("TT", value(word.value.slice(at + 2)), matched, flags);
    } else if (ZIP_PAIRS.test(word.value.slice(1)))
      matched.ask(`zip ${word.value} may hold a two-letter option (-lf writes a log file) this analyzer does not know`);
    else {
      const letters = word.value.slice(1);
      for (let at = 0; at < letters.length; at += 1) {
        const letter = letters.charAt(at);
        const takes = ZIP_VALUED[letter] !== undefined || letter === "x" || letter === "i";
        listing = zip_option(letter, value(takes ? letters.slice(at + 1) : ""), matched, flags) === "list";
        if (takes) break;
      }
    }
  }
  const [archive, ...inputs] = operands;
  if (archive !== undefined) matched.write(archive);
  if (flags.has("m")) matched.categories.add("destructive");
  for (const input of flags.has("d") ? [] : inputs) {
    matched.read(input, flags.has("r") ? (flags.has("y") ? "tree" : "linked_tree") : "path");
    if (flags.has("m")) matched.write(input, true);
  }
  return matched;
}

// unzip(1): `unzip [-Z] [-cflptTuvz[abjnoqsCDKLMUVWX$/:^]] file[.zip] [file(s) ...] [-x xfile(s) ...] [-d exdir]`
const UNZIP_SPEC = program_rule({
  rule: "unzip",
  manual: "unzip(1), Info-ZIP UnZip 6.0",
  category: "build",
  options: {
    ...Object.fromEntries([..."ltvpcfuzonqjabCLXKDUVWsxh"].map((letter): [string, OptionSpec] => [`-${letter}`, {}])),
    "-d": { value: "write" },
    "-P": { value: "text" },
    "-M": { ask: "pipes what it prints through more, a pager that can run commands" },
    "-:": { ask: "extracts member names with ../ and leading /, which climb out of the target folder" },
    "-^": { ask: "extracts member names with control characters" },
  },
  operands: { first: ["read"], rest: "text" },
  check: (matched, seen) => {
    const only_prints = ["-l", "-t", "-v", "-p", "-c", "-z"].some((option) => seen.has(option));
    if (!only_prints && !seen.has("-d")) matched.write(literal_word("."));
  },
});

const UNZIP: ProgramRule = {
  names: ["unzip"],
  match: (args) => {
    const matched = UNZIP_SPEC.match(args);
    ask_dynamic(args, matched, "unzip");
    // unzip reads its own arguments: `--` ends nothing, and `-d` may follow the archive
    if (args.some((word) => word.literal && word.value === "--")) matched.ask("unzip does not end its options at --");
    return matched;
  },
};

/** A suffix for compressed files: a name, not a path (`-S /../x` would write elsewhere). */
const SUFFIX: ValueKind = {
  judge: (word, matched) => {
    if (!word.literal || !/^\.?[A-Za-z0-9_.-]+$/.test(word.value) || word.value.includes("..")) matched.ask(`${word.value} is not a plain suffix`);
  },
};
const LEVELS = (from: number): Record<string, OptionSpec> => Object.fromEntries(Array.from({ length: 10 - from }, (_, index) => [`-${index + from}`, {}]));

const GZIP_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  "-c|--stdout|--to-stdout": {},
  "-d|--decompress|--uncompress": {},
  "-f|--force": {},
  "-k|--keep": {},
  "-l|--list": {},
  "-n|--no-name": {},
  "-N|--name": {},
  "-q|--quiet": {},
  "-r|--recursive": {},
  "-S|--suffix": { value: SUFFIX },
  "-t|--test": {},
  "-v|--verbose": {},
  "--fast": {},
  "--best": {},
  "--rsyncable": {},
  "--synchronous": {},
  "-h|--help": {},
  "-V|--version": {},
  "-L|--license": {},
  ...LEVELS(1),
};
const BZIP2_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  "-c|--stdout": {},
  "-d|--decompress": {},
  "-z|--compress": {},
  "-k|--keep": {},
  "-f|--force": {},
  "-t|--test": {},
  "-q|--quiet": {},
  "-v|--verbose": {},
  "-s|--small": {},
  "--fast": {},
  "--best": {},
  "-h|--help": {},
  "-V|--version": {},
  "-L|--license": {},
  ...LEVELS(1),
};
const XZ_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  "-z|--compress": {},
  "-d|--decompress|--uncompress": {},
  "-t|--test": {},
  "-l|--list": {},
  "-k|--keep": {},
  "-f|--force": {},
  "-c|--stdout|--to-stdout": {},
  "-e|--extreme": {},
  "-T|--threads": { value: "number" },
  "-q|--quiet": {},
  "-Q|--no-warn": {},
  "-v|--verbose": {},
  "-S|--suffix": { value: SUFFIX },
  "-F|--format": { value: { one_of: ["auto", "xz", "lzma", "alone", "lzip", "raw"] } },
  "-C|--check": { value: { one_of: ["none", "crc32", "crc64", "sha256"] } },
  "-M|--memlimit|--memory": { value: "number" },
  "--memlimit-compress": { value: "number" },
  "--memlimit-decompress": { value: "number" },
  "--block-size": { value: "number" },
  "--single-stream": {},
  "--no-sparse": {},
  "--ignore-check": {},
  "-h|--help": {},
  "-H|--long-help": {},
  "-V|--version": {},
  ...LEVELS(0),
};

/**
 * A compressor replaces each file it is given with the compressed (or decompressed) one beside it, so its
 * operands are written — unless it only writes to standard output (`-c`), lists or tests. `-r` walks folders;
 * with `-f` it also compresses what symlinks point to.
 */
function compressor(rule: string, manual: string, options: Readonly<Record<string, OptionSpec>>, names: readonly string[]): ProgramRule {
  return program_rule(
    {
      rule,
      manual,
      category: "build",
      options,
      operands: (seen) => (seen.has("-c") || seen.has("-l") || seen.has("-t") ? { rest: "read" } : { rest: "write" }),
      check: (matched, seen, operands) => {
        if (!seen.has("-r")) return;
        if (seen.has("-f")) matched.ask(`${rule} -r -f replaces the files symlinks point to, wherever they are`);
        for (const operand of operands) matched.read(operand, "tree");
      },
    },
    names,
  );
}

/** Decompressors to standard output: they only read. */
function reader(rule: string, manual: string, options: Readonly<Record<string, OptionSpec>>, names: readonly string[]): ProgramRule {
  return program_rule({ rule, manual, category: "read_only", options, operands: { rest: "read" } }, names);
}

/** Archivers and compressors. */
export const ARCHIVE_RULES: readonly ProgramRule[] = [
  TAR,
  { names: ["zip"], match: zip_match },
  UNZIP,
  // gzip(1): `gzip [OPTION]... [FILE]...`; gunzip is gzip -d
  compressor("gzip", "gzip(1), GNU gzip 1.12", GZIP_OPTIONS, ["gzip", "gunzip"]),
  reader("zcat", "gzip(1), GNU gzip 1.12", GZIP_OPTIONS, ["zcat"]),
  // bzip2(1): `bzip2 [OPTION]... [FILE]...`
  compressor("bzip2", "bzip2(1), bzip2 1.0.8", BZIP2_OPTIONS, ["bzip2", "bunzip2"]),
  reader("bzcat", "bzip2(1), bzip2 1.0.8", BZIP2_OPTIONS, ["bzcat"]),
  // xz(1): `xz [OPTION]... [FILE]...`
  compressor("xz", "xz(1), XZ Utils 5.4", XZ_OPTIONS, ["xz", "unxz"]),
  reader("xzcat", "xz(1), XZ Utils 5.4", XZ_OPTIONS, ["xzcat"]),
];

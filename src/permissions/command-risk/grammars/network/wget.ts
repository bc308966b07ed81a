import path from "node:path";
import { judge_value, program_rule } from "../../grammar/declarative.js";
import type { Matched } from "../../grammar/matched.js";
import type { OptionSpec, ProgramRule, Seen, ValueKind } from "../../grammar/types.js";
import type { ShellWord } from "../../types.js";
import { literal_word } from "../../words.js";
import { flags, plain, signs_with, spell_out, valued } from "./common.js";

const MANUAL = "wget(1), GNU Wget 1.21";

/** `-i FILE` reads URLs from a local file, or downloads the list when given a URL. */
const INPUT: ValueKind = {
  judge: (word, matched) => {
    if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(plain(word))) matched.read(word);
  },
};

/** `-nv`, `-nc`, `-nd`, `-nH`, `-np`: `-n` takes letters, each turning a default off. */
const NO_LETTERS: ValueKind = {
  judge: (word, matched) => {
    if (!word.literal || !/^[vcdHp]+$/.test(word.value)) matched.ask(`wget -n${word.value} is not an option this analyzer knows`);
  },
};

/**
 * The `.wgetrc` commands `-e` may run (wgetrc names ignore case, `-` and `_`), by the kind of their value: the
 * command-line option each one stands for. Any other command asks.
 */
const WGETRC: Readonly<Record<string, ValueKind>> = {
  robots: { one_of: ["on", "off"] },
  tries: "number",
  timeout: "number",
  wait: "number",
  reclevel: "text",
  useragent: "text",
  header: "text",
  httpproxy: "text",
  httpsproxy: "text",
  ftpproxy: "text",
  noproxy: "text",
  useproxy: { one_of: ["on", "off"] },
  checkcertificate: { one_of: ["on", "off"] },
  verbose: { one_of: ["on", "off"] },
  quiet: { one_of: ["on", "off"] },
  outputdocument: "write",
  dirprefix: "write",
  logfile: "write",
  savecookies: "write",
  postfile: "read",
  bodyfile: "read",
  input: "read",
  loadcookies: "read",
  useaskpass: "command",
};

const WGETRC_COMMAND: ValueKind = {
  judge: (word, matched) => {
    const [, name, value] = /^\s*([A-Za-z_-]+)\s*=\s*(.*?)\s*$/s.exec(plain(word)) ?? [];
    const kind = name === undefined ? undefined : WGETRC[name.replace(/[-_]/g, "").toLowerCase()];
    if (!word.literal || kind === undefined || value === undefined) matched.ask(`wget -e ${word.value} runs a .wgetrc command this analyzer does not know`);
    else judge_value(kind, literal_word(value), `wget -e ${name}`, matched);
  },
};

const CREDENTIAL: OptionSpec = { value: "text", ask: "gives a user name or password on the command line" };

const OPTIONS: Readonly<Record<string, OptionSpec>> = {
  ...flags(
    "-V|--version",
    "-h|--help",
    "-b|--background",
    "-d|--debug",
    "-q|--quiet",
    "-v|--verbose",
    "--no-verbose",
    "-F|--force-html",
    "--no-config",
    "--retry-connrefused",
    "--no-clobber",
    "--no-netrc",
    "-c|--continue",
    "--show-progress",
    "-N|--timestamping",
    "--no-if-modified-since",
    "--no-use-server-timestamps",
    "-S|--server-response",
    "--spider",
    "--random-wait",
    "--no-proxy",
    "--no-dns-cache",
    "--ignore-case",
    "-4|--inet4-only",
    "-6|--inet6-only",
    "--ask-password",
    "--no-iri",
    "--unlink",
    "--xattr",
    "--no-directories",
    "-x|--force-directories",
    "--no-host-directories",
    "--protocol-directories",
    "--no-cache",
    "-E|--adjust-extension",
    "--ignore-length",
    "--save-headers",
    "--no-http-keep-alive",
    "--no-cookies",
    "--keep-session-cookies",
    "--content-disposition",
    "--content-on-error",
    "--auth-no-challenge",
    "--https-only",
    "--no-check-certificate",
    "--no-hsts",
    "--no-remove-listing",
    "--no-glob",
    "--no-passive-ftp",
    "--preserve-permissions",
    "--retr-symlinks",
    "-r|--recursive",
    "--delete-after",
    "-k|--convert-links",
    "--convert-file-only",
    "-K|--backup-converted",
    "-m|--mirror",
    "-p|--page-requisites",
    "--strict-comments",
    "--follow-ftp",
    "-H|--span-hosts",
    "-L|--relative",
    "--trust-server-names",
    "--no-parent",
  ),
  ...valued(
    "text",
    "--report-speed",
    "-B|--base",
    "--retry-on-http-error",
    "--progress",
    "--bind-address",
    "--limit-rate",
    "--restrict-file-names",
    "--prefer-family",
    "--local-encoding",
    "--remote-encoding",
    "--default-page",
    "--header",
    "--compression",
    "--referer",
    "-U|--user-agent",
    "--post-data",
    "--method",
    "--body-data",
    "--secure-protocol",
    "--certificate-type",
    "--private-key-type",
    "--ciphers",
    "-A|--accept",
    "-R|--reject",
    "--accept-regex",
    "--reject-regex",
    "--regex-type",
    "-D|--domains",
    "--exclude-domains",
    "--follow-tags",
    "--ignore-tags",
    "-I|--include-directories",
    "-X|--exclude-directories",
    "--warc-header",
  ),
  ...valued(
    "number",
    "-t|--tries",
    "--start-pos",
    "-T|--timeout",
    "--dns-timeout",
    "--connect-timeout",
    "--read-timeout",
    "-w|--wait",
    "--waitretry",
    "-Q|--quota",
    "--max-redirect",
    "--cut-dirs",
    "-l|--level",
    "--backups",
    "--warc-max-size",
  ),
  ...valued("read", "--post-file", "--body-file", "--load-cookies", "--ca-certificate", "--ca-directory", "--crl-file", "--pinnedpubkey", "--warc-dedup"),
  ...valued("write", "-o|--output-file", "-a|--append-output", "--rejected-log", "--save-cookies", "--hsts-file", "--warc-file", "--warc-tempdir"),
  "-i|--input-file": { value: INPUT },
  "-n": { value: NO_LETTERS },
  // `-O` and `-P` are judged together with the URLs in `check`.
  "-O|--output-document": { value: "text" },
  "-P|--directory-prefix": { value: "text" },
  ...Object.fromEntries(
    ["--user", "--password", "--http-user", "--http-password", "--proxy-user", "--proxy-password", "--ftp-user", "--ftp-password"].map((name) => [
      name,
      CREDENTIAL,
    ]),
  ),
  "--certificate": { value: signs_with("wget --certificate") },
  "--private-key": { value: signs_with("wget --private-key") },
  "-e|--execute": { value: WGETRC_COMMAND },
  "--use-askpass": { value: "command" },
  "--config": { value: "read", ask: "reads its settings from a file, which may run a program (use_askpass)" },
};

/** The name wget saves a URL under: its last path segment, `index.html` for a folder. */
function local_name(url: ShellWord): string | undefined {
  if (!url.literal) return undefined;
  const rest = url.value.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "").replace(/[?#].*$/s, "");
  return rest.slice(rest.lastIndexOf("/") + 1) || "index.html";
}

/**
 * Where the downloads land: `-O FILE` (`-` is standard output), else in the `-P` folder (the working folder by
 * default) under the URL's own name — a tree of host folders when recursive, names the server picks with
 * `--content-disposition` or `--trust-server-names`. With `--version` or `--help` wget downloads nothing.
 */
function downloads(matched: Matched, seen: Seen, operands: readonly ShellWord[]): void {
  if (seen.has("-V") || seen.has("-h")) return;
  if (operands.length > 0 || seen.has("-i")) matched.categories.add("network");
  const document = seen.get("-O")?.at(-1);
  if (document !== undefined) {
    if (document.value !== "-") matched.write(document);
    return;
  }
  const folder = seen.get("-P")?.at(-1) ?? literal_word(".");
  const trees = ["-r", "-m", "-p", "-x", "--content-disposition", "--trust-server-names", "-i"].some((option) => seen.has(option));
  const names = trees ? [] : operands.map(local_name);
  if (trees || names.some((name) => name === undefined)) matched.write(folder);
  for (const name of names) if (name !== undefined) matched.write({ value: path.posix.join(plain(folder), name), literal: folder.literal, glob: false });
}

const WGET = program_rule({ rule: "wget", manual: MANUAL, category: "read_only", options: OPTIONS, operands: { rest: "text" }, check: downloads });
const spelt_out = spell_out(OPTIONS);

/**
 * wget(1), GNU Wget 1.21: `wget [OPTION]... [URL]...` — GNU `getopt_long`: `--opt=value`, clusters (`-qO-`), and any
 * unambiguous prefix of a long option, spelt out first.
 */
export const WGET_RULES: readonly ProgramRule[] = [{ names: ["wget"], match: (args) => WGET.match(spelt_out(args)) }];

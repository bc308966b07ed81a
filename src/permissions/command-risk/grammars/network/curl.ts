import path from "node:path";
import { program_rule } from "../../grammar/declarative.js";
import type { Matched } from "../../grammar/matched.js";
import type { OptionSpec, ProgramRule, Seen, ValueKind } from "../../grammar/types.js";
import type { ShellWord } from "../../types.js";
import { literal_word } from "../../words.js";
import { flags, known_start, plain, rest_of, signs_with, spell_out, valued } from "./common.js";

const MANUAL = "curl(1), curl 8.5";

/** `@file` sends the file (`-d`, `--json`, `-H`, `-w`); `@-` is standard input; anything else is text. */
const AT_FILE: ValueKind = {
  judge: (word, matched) => {
    if (!known_start(word)) matched.ask(`curl data ${word.value} is only known at run time, and @… would send a file`);
    else if (plain(word).startsWith("@")) matched.read(rest_of(word, 1));
  },
};

/**
 * `--data-urlencode` and `--url-query`: `content`, `=content`, `name=content`, `@file` or `name@file` — the first
 * `=` or `@` decides; `--url-query` may put `+` first (no encoding).
 */
const URLENCODED: ValueKind = {
  judge: (word, matched) => {
    if (!known_start(word)) {
      matched.ask(`curl data ${word.value} is only known at run time, and @… would send a file`);
      return;
    }
    const text = plain(word);
    const from = text.startsWith("+") ? 1 : 0;
    const at = text.slice(from).search(/[=@]/);
    if (at !== -1 && text.charAt(from + at) === "@") matched.read(rest_of(word, from + at + 1));
  },
};

/**
 * `-F name=content`: content `@file[,file…]` attaches files, `<file` sends a file's text; `;type=`, `;filename=`,
 * `;encoder=` are text, `;headers=@file` / `<file` reads headers from a file. A double-quoted file name is unquoted.
 */
const FORM: ValueKind = {
  judge: (word, matched) => {
    const text = plain(word);
    const equals = text.indexOf("=");
    if (!word.literal && (equals === -1 || !known_start(rest_of(word, equals + 1)))) {
      matched.ask(`curl form field ${word.value} is only known at run time, and @… would send a file`);
      return;
    }
    const content = text.slice(equals + 1);
    const files = (from: string): ShellWord[] =>
      from
        .split(/[,;]/)
        .map((part) => part.trim().replace(/^"(.*)"$/, "$1"))
        .filter((part) => part !== "" && !part.includes("="))
        .map((part) => (word.literal ? literal_word(part) : { value: part, literal: false, glob: false }));
    if (content.startsWith("@") || content.startsWith("<")) for (const file of files(content.slice(1))) matched.read(file);
    for (const header of content.matchAll(/;\s*headers=[@<]([^;]*)/g)) for (const file of files(header[1] ?? "")) matched.read(file);
  },
};

/** `-b name=value` is cookie text; a word without `=` is a cookie file read. */
const COOKIE: ValueKind = {
  judge: (word, matched) => {
    if (!plain(word).includes("=")) matched.read(word);
  },
};

/** `-w @file` reads the format from a file; `%output{file}` (curl 8.3) switches the output to a file, `>>` appending. */
const WRITE_OUT: ValueKind = {
  judge: (word, matched) => {
    const text = plain(word);
    if (text.startsWith("@")) matched.read(rest_of(word, 1));
    for (const found of text.matchAll(/%output\{(?:>>)?([^}]*)\}/g)) matched.write({ value: found[1] ?? "", literal: word.literal, glob: false });
  },
};

/** `--pinnedpubkey sha256//…` is a hash; anything else a public key file read. */
const PINNED: ValueKind = {
  judge: (word, matched) => {
    if (!plain(word).startsWith("sha256//")) matched.read(word);
  },
};

/** `-x [scheme://][user:password@]host[:port]`: a proxy carrying a password asks like `-u`. */
const PROXY: ValueKind = {
  judge: (word, matched) => {
    if (/^([a-z0-9+.-]+:\/\/)?[^/]*@/i.test(plain(word)))
      matched.ask(`curl --proxy ${word.value} gives a password on the command line`, "credential_sensitive");
  },
};

/** `-o FILE`: judged with `--output-dir` in `check`; a `#N` is replaced by the text of the URL's Nth glob. */
const OUTPUT: ValueKind = {
  judge: (word, matched) => {
    if (/#\d/.test(plain(word))) matched.ask(`curl --output ${word.value} takes its name from the URL's globs`);
  },
};

const OPTIONS: Readonly<Record<string, OptionSpec>> = {
  // Transfer shape, output manners, protocol versions: they change how, not what or where.
  ...flags(
    "-s|--silent",
    "-S|--show-error",
    "-f|--fail",
    "--fail-with-body",
    "--fail-early",
    "-L|--location",
    "--location-trusted",
    "-I|--head",
    "-i|--include",
    "-v|--verbose",
    "-#|--progress-bar",
    "--no-progress-meter",
    "-N|--no-buffer",
    "--compressed",
    "--tr-encoding",
    "--raw",
    "-G|--get",
    "-k|--insecure",
    "--ca-native",
    "-4|--ipv4",
    "-6|--ipv6",
    "-0|--http1.0",
    "--http1.1",
    "--http2",
    "--http2-prior-knowledge",
    "--http3",
    "--http3-only",
    "--http0.9",
    "-1|--tlsv1",
    "--tlsv1.0",
    "--tlsv1.1",
    "--tlsv1.2",
    "--tlsv1.3",
    "--ssl",
    "--ssl-reqd",
    "--cert-status",
    "--retry-all-errors",
    "--retry-connrefused",
    "--path-as-is",
    "--post301",
    "--post302",
    "--post303",
    "--create-dirs",
    "--remote-name-all",
    "-J|--remote-header-name",
    "-R|--remote-time",
    "--remove-on-error",
    "--no-clobber",
    "-Z|--parallel",
    "--parallel-immediate",
    "-j|--junk-session-cookies",
    "--xattr",
    "-g|--globoff",
    "-:|--next",
    "-q|--disable",
    "--disallow-username-in-url",
    "--no-keepalive",
    "--no-sessionid",
    "--no-alpn",
    "--tcp-nodelay",
    "--tcp-fastopen",
    "--basic",
    "--digest",
    "--ntlm",
    "--negotiate",
    "--anyauth",
    "-l|--list-only",
    "-a|--append",
    "-B|--use-ascii",
    "--crlf",
    "--ftp-pasv",
    "--ftp-create-dirs",
    "-p|--proxytunnel",
    "--proxy-insecure",
    "--ignore-content-length",
    "--styled-output",
    "--suppress-connect-headers",
    "--trace-time",
    "--sasl-ir",
    "--form-escape",
    "-O|--remote-name",
    // curl prints its help, manual or version and exits: `check` then sees no transfer
    "-h|--help",
    "-M|--manual",
    "-V|--version",
  ),
  ...valued(
    "text",
    "-X|--request",
    "-A|--user-agent",
    "-e|--referer",
    "-r|--range",
    "-C|--continue-at",
    "-z|--time-cond",
    "--resolve",
    "--connect-to",
    "--noproxy",
    "--interface",
    "--local-port",
    "--doh-url",
    "--dns-servers",
    "--ciphers",
    "--tls13-ciphers",
    "--curves",
    "--tls-max",
    "--cert-type",
    "--key-type",
    "--data-raw",
    "--form-string",
    "--request-target",
    "--mail-from",
    "--mail-rcpt",
    "--socks4",
    "--socks4a",
    "--socks5",
    "--socks5-hostname",
    "--preproxy",
    "--proxy1.0",
    "--rate",
    "--limit-rate",
    "--max-filesize",
    "--create-file-mode",
    "--url",
    "--trace-config",
  ),
  ...valued(
    "number",
    "-m|--max-time",
    "--connect-timeout",
    "--retry",
    "--retry-delay",
    "--retry-max-time",
    "--max-redirs",
    "--parallel-max",
    "--keepalive-time",
    "--expect100-timeout",
    "--happy-eyeballs-timeout-ms",
    "-Y|--speed-limit",
    "-y|--speed-time",
  ),
  // What curl reads …
  ...valued(AT_FILE, "-d|--data", "--data-ascii", "--data-binary", "--json", "-H|--header", "--proxy-header"),
  ...valued(URLENCODED, "--data-urlencode", "--url-query"),
  ...valued("read", "--netrc-file", "--cacert", "--capath", "--crlfile", "--proxy-cacert", "--proxy-capath", "--proxy-crlfile", "--etag-compare", "--pubkey"),
  "-F|--form": { value: FORM },
  "-b|--cookie": { value: COOKIE },
  "--pinnedpubkey": { value: PINNED },
  "-T|--upload-file": { value: "text" },
  // … and writes; `-o` and `--output-dir` are judged together in `check`.
  ...valued("write", "-D|--dump-header", "-c|--cookie-jar", "--libcurl", "--trace", "--trace-ascii", "--stderr", "--etag-save", "--hsts", "--alt-svc"),
  "-o|--output": { value: OUTPUT },
  "--output-dir": { value: "text" },
  "-w|--write-out": { value: WRITE_OUT },
  // Credentials: given on the command line, signed with, or read from ~/.netrc.
  "-u|--user": { value: "text", ask: "gives a user name and password on the command line" },
  "-U|--proxy-user": { value: "text", ask: "gives a user name and password on the command line" },
  "--oauth2-bearer": { value: "text", ask: "gives a bearer token on the command line" },
  "--pass": { value: "text", ask: "gives a key's pass phrase on the command line" },
  "-x|--proxy": { value: PROXY },
  "-E|--cert": { value: signs_with("curl --cert") },
  "--key": { value: signs_with("curl --key") },
  "--proxy-cert": { value: signs_with("curl --proxy-cert") },
  "--proxy-key": { value: signs_with("curl --proxy-key") },
  "-n|--netrc": { deny: "sends the passwords of ~/.netrc", category: "credential_sensitive" },
  "--netrc-optional": { deny: "sends the passwords of ~/.netrc", category: "credential_sensitive" },
  // Options read from a file, a local socket, a port the server connects back to.
  "-K|--config": { value: "read", ask: "reads further options from a file, which may run or write anything curl can" },
  "--unix-socket": { value: "text", ask: "talks to a local socket (a Docker or system daemon socket gives control of the machine)" },
  "--abstract-unix-socket": { value: "text", ask: "talks to a local socket (a Docker or system daemon socket gives control of the machine)" },
  "-P|--ftp-port": { value: "text", ask: "opens a port for the server to connect back to" },
};

/** Schemes curl speaks that send only a request to fetch or put; others (gopher, dict, telnet …) send arbitrary bytes. */
const PLAIN_SCHEMES = new Set(["http", "https", "ftp", "ftps", "ws", "wss"]);

/**
 * A `file:` URL: the file curl reads, or writes when uploading (`-T`). `file://HOST/path` only works for an empty
 * host or localhost; another host is judged as the path it spells (`file://~/.ssh/id_rsa`). Percent escapes are
 * decoded, and the path is judged with and without a `?query` or `#fragment`, which curl drops.
 */
function file_url(word: ShellWord, matched: Matched, upload: ShellWord | undefined): void {
  const text = plain(word).replace(/^file:/i, "");
  if (/[{}[\]]/.test(text)) {
    matched.ask(`curl ${word.value} expands {…} and […] into several files`);
    return;
  }
  let paths = [text];
  if (text.startsWith("//")) {
    const slash = text.indexOf("/", 2);
    const host = text.slice(2, slash === -1 ? undefined : slash);
    const local = slash === -1 ? "/" : text.slice(slash);
    paths = ["", "localhost", "127.0.0.1"].includes(host.toLowerCase()) ? [local] : [local, `${host}${local}`];
  }
  const spellings = new Set<string>();
  for (const spelt of paths) {
    for (const candidate of [spelt, spelt.replace(/[?#].*$/s, "")]) {
      if (!word.literal) spellings.add(candidate);
      else {
        try {
          spellings.add(decodeURIComponent(candidate));
        } catch {
          matched.ask(`curl ${word.value} has a malformed percent escape`);
        }
      }
    }
  }
  for (const spelt of spellings) {
    const target: ShellWord = { value: spelt, literal: word.literal, glob: false };
    if (upload === undefined) matched.read(target);
    else if (spelt.endsWith("/") && upload.literal) matched.write(literal_word(path.posix.join(spelt, path.posix.basename(upload.value))));
    else matched.write(target);
  }
}

/** Whether the URL reaches the network; `file:` URLs are judged as the paths they are. */
function judge_url(word: ShellWord, matched: Matched, upload: ShellWord | undefined): boolean {
  const text = plain(word);
  if (/^file:/i.test(text)) {
    file_url(word, matched, upload);
    return false;
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (!known_start(word)) matched.ask(`curl ${word.value} is a URL only known at run time, which may be a file:// URL`);
  else if (scheme !== undefined && !PLAIN_SCHEMES.has(scheme)) matched.ask(`curl ${scheme}:// sends what the URL spells to the server, not only a request`);
  return true;
}

/** The file name `-O` gives a URL: its last path segment, without query or fragment. */
function remote_name(url: ShellWord): string | undefined {
  if (!url.literal) return undefined;
  const rest = url.value.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "").replace(/[?#].*$/s, "");
  const name = rest.slice(rest.lastIndexOf("/") + 1);
  return name === "" ? undefined : name;
}

/**
 * URLs, the files `-o` and `-O` write (inside `--output-dir` when given), and the command's category: a transfer
 * is network unless every URL is a `file:` URL; with `--help`, `--manual` or `--version` curl transfers nothing.
 */
function transfers(matched: Matched, seen: Seen, operands: readonly ShellWord[]): void {
  if (["-h", "-M", "-V"].some((flag) => seen.has(flag))) return;
  const upload = seen.get("-T")?.at(-1);
  for (const file of seen.get("-T") ?? []) {
    if (/[{}[\]]/.test(plain(file))) matched.ask(`curl --upload-file ${file.value} expands {…} and […] into several files`);
    else matched.read(file);
  }
  const urls = [...operands, ...(seen.get("--url") ?? [])];
  if (urls.map((url) => judge_url(url, matched, upload)).some(Boolean)) matched.categories.add("network");
  const folder = seen.get("--output-dir")?.at(-1);
  const inside = (file: ShellWord): ShellWord => {
    if (folder === undefined || plain(file).startsWith("/")) return file;
    return { value: path.posix.join(plain(folder), plain(file)), literal: folder.literal && file.literal, glob: false };
  };
  for (const file of seen.get("-o") ?? []) matched.write(inside(file));
  if (!seen.has("-O") && !seen.has("--remote-name-all")) return;
  const named = seen.has("-J") ? [] : urls.map(remote_name);
  if (named.length === 0 || named.some((name) => name === undefined)) matched.write(folder ?? literal_word("."));
  for (const name of named) if (name !== undefined) matched.write(inside(literal_word(name)));
}

const CURL = program_rule({ rule: "curl", manual: MANUAL, category: "read_only", options: OPTIONS, operands: { rest: "text" }, check: transfers });
const spelt_out = spell_out(OPTIONS);

/**
 * curl(1), curl 8.5: `curl [options / URLs]` — options and URLs in any order; `-:`/`--next` starts the options of
 * the next URLs. curl 8.5 takes any unambiguous prefix of a long option, so prefixes are spelt out first.
 */
export const CURL_RULES: readonly ProgramRule[] = [{ names: ["curl"], match: (args) => CURL.match(spelt_out(args)) }];

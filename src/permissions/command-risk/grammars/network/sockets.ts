import { program_rule } from "../../grammar/declarative.js";
import type { Matched } from "../../grammar/matched.js";
import type { OptionSpec, ProgramRule, Seen } from "../../grammar/types.js";
import type { ShellWord } from "../../types.js";
import { literal_word } from "../../words.js";
import { flags, listens, signs_with, spell_out } from "./common.js";

const SHELL_OVER_NETWORK = "runs a program with its input and output on the network connection: a shell over the network";

/**
 * With `-l` netcat listens: on the `-s` address, or on the host operand before the port (OpenBSD
 * `nc -l [host] port`; ncat `-l [host] [port]`, a lone operand that is not a port being the host). Traditional
 * netcat takes that host as the only peer it accepts, which is as local. `-U` listens on a Unix socket instead.
 */
function netcat_socket(name: string, listening: readonly string[]): (matched: Matched, seen: Seen, operands: readonly ShellWord[]) => void {
  return (matched, seen, operands) => {
    if (seen.has("-h") || seen.has("--version")) return;
    matched.categories.add("network");
    const unix = seen.has("-U");
    if (!listening.some((option) => seen.has(option))) {
      if (unix) matched.ask(`${name} -U talks to the local socket ${operands[0]?.value ?? ""} (a Docker or system daemon socket gives control of the machine)`);
      return;
    }
    const [first] = operands;
    if (unix) {
      matched.ask(`${name} listens on the local socket ${first?.value ?? ""}`, "network");
      if (first !== undefined) matched.write(first);
      return;
    }
    const host = operands.length >= 2 || (first !== undefined && !/^\d+(-\d+)?$/.test(first.value)) ? first : undefined;
    listens(matched, `${name} -l`, seen.get("-s")?.at(-1) ?? host);
  };
}

/**
 * nc(1) and netcat(1): the union of OpenBSD netcat (Debian netcat-openbsd 1.226), traditional netcat 1.10 and BusyBox
 * nc — `nc [-46bCDdFhklNnrStUuvZz] [-I length] [-i interval] [-M ttl] [-m minttl] [-O length] [-P proxy_username]
 * [-p source_port] [-q seconds] [-s sourceaddr] [-T keyword] [-V rtable] [-W recvlimit] [-w timeout]
 * [-X proxy_protocol] [-x proxy_address[:port]] [destination] [port]`. Traditional `-e prog` / `-c cmd` and BusyBox
 * `-e prog …` run a program on the connection, denied whatever the variant (LibreSSL's `-c`/`-e` are TLS settings).
 */
const NC = program_rule({
  rule: "nc",
  manual: "nc(1), netcat-openbsd 1.226, netcat 1.10, BusyBox 1.36",
  category: "read_only",
  options: {
    ...flags("-4", "-6", "-b", "-C", "-D", "-d", "-F", "-h", "-k", "-l", "-N", "-n", "-r", "-S", "-t", "-U", "-u", "-v", "-Z", "-z"),
    ...Object.fromEntries(["-I", "-i", "-M", "-m", "-O", "-q", "-W", "-w", "-G"].map((name) => [name, { value: "number" }])),
    ...Object.fromEntries(["-p", "-s", "-T", "-V", "-X", "-x", "-g"].map((name) => [name, { value: "text" }])),
    "-o": { value: "write" },
    "-P": { value: "text", ask: "gives a proxy user name on the command line" },
    "-e": { value: "text", deny: SHELL_OVER_NETWORK, category: "network" },
    "-c": { value: "text", deny: SHELL_OVER_NETWORK, category: "network" },
  },
  operands: { rest: "text" },
  check: netcat_socket("nc", ["-l"]),
});

const NCAT_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  ...flags(
    "-4",
    "-6",
    "-U|--unixsock",
    "--vsock",
    "-C|--crlf",
    "-h|--help",
    "-l|--listen",
    "-k|--keep-open",
    "-n|--nodns",
    "-t|--telnet",
    "-u|--udp",
    "--sctp",
    "-v|--verbose",
    "-z",
    "--append-output",
    "--send-only",
    "--recv-only",
    "--no-shutdown",
    "--ssl",
    "--ssl-verify",
    "--version",
    "--broker",
    "--chat",
  ),
  ...Object.fromEntries(["-m|--max-conns", "-d|--delay", "-i|--idle-timeout", "-w|--wait", "-G"].map((name) => [name, { value: "number" }])),
  ...Object.fromEntries(
    [
      "-g",
      "-p|--source-port",
      "-s|--source",
      "--allow",
      "--deny",
      "--proxy",
      "--proxy-type",
      "--proxy-dns",
      "--ssl-ciphers",
      "--ssl-servername",
      "--ssl-alpn",
    ].map((name) => [name, { value: "text" }]),
  ),
  ...Object.fromEntries(["--allowfile", "--denyfile", "--ssl-trustfile"].map((name) => [name, { value: "read" }])),
  "-o|--output": { value: "write" },
  "-x|--hex-dump": { value: "write" },
  "--ssl-cert": { value: signs_with("ncat --ssl-cert") },
  "--ssl-key": { value: signs_with("ncat --ssl-key") },
  "--proxy-auth": { value: "text", ask: "gives a proxy user name and password on the command line" },
  "-e|--exec": { value: "text", deny: SHELL_OVER_NETWORK, category: "network" },
  "-c|--sh-exec": { value: "text", deny: SHELL_OVER_NETWORK, category: "network" },
  "--lua-exec": { value: "text", deny: SHELL_OVER_NETWORK, category: "network" },
};

const NCAT = program_rule({
  rule: "ncat",
  manual: "ncat(1), Nmap 7.94",
  category: "read_only",
  options: NCAT_OPTIONS,
  operands: { rest: "text" },
  check: netcat_socket("ncat", ["-l", "--broker", "--chat"]),
});
const ncat_spelt_out = spell_out(NCAT_OPTIONS);

/** `-p [IP:]PORT`: the address the server binds, all interfaces without an IP. */
function bound(word: ShellWord | undefined): ShellWord | undefined {
  if (word === undefined || !word.literal) return word;
  const colon = word.value.lastIndexOf(":");
  return colon === -1 ? undefined : literal_word(word.value.slice(0, colon));
}

/**
 * BusyBox httpd (BusyBox 1.36): `httpd [-ifv[v]] [-c CONFFILE] [-p [IP:]PORT] [-u USER[:GRP]] [-r REALM] [-h HOME]`,
 * or `httpd -d/-e/-m STRING` (decode, encode, hash a string and exit). It serves HOME (and runs its cgi-bin) on port 80
 * of every interface unless `-p` names an address; `-i` serves one connection on standard input.
 */
const HTTPD = program_rule({
  rule: "httpd",
  manual: "BusyBox 1.36 httpd",
  category: "read_only",
  options: {
    ...flags("-i", "-f", "-v"),
    "-c": { value: "read", ask: "reads a configuration, which may name interpreters to run" },
    "-p": { value: "text" },
    "-u": { value: "text", ask: "switches to another user", category: "system_sensitive" },
    "-r": { value: "text" },
    "-h": { value: "tree" },
    "-d": { value: "text" },
    "-e": { value: "text" },
    "-m": { value: "text" },
  },
  check: (matched, seen) => {
    if (["-d", "-e", "-m"].some((option) => seen.has(option))) return;
    matched.categories.add("network");
    if (seen.has("-i")) matched.ask("httpd -i serves the connection on its standard input", "network");
    else listens(matched, "httpd", bound(seen.get("-p")?.at(-1)));
  },
});

/**
 * BusyBox telnetd: `telnetd [-KiF] [-l LOGIN] [-f ISSUE_FILE] [-p PORT] [-b ADDR[:PORT]] [-w SEC] [-S]` — a login
 * program (or `-l /bin/sh`, a shell without a password) for whoever connects, on every interface unless `-b`.
 */
const TELNETD = program_rule({
  rule: "telnetd",
  manual: "BusyBox 1.36 telnetd",
  category: "network",
  options: {
    ...flags("-K", "-i", "-F", "-S"),
    "-l": { value: "command" },
    "-f": { value: "read" },
    "-p": { value: "number" },
    "-b": { value: "text" },
    "-w": { value: "number" },
  },
  check: (matched, seen) => {
    const bind = seen.get("-b")?.at(-1);
    listens(matched, "telnetd", bind?.literal === true && bind.value.includes(":") ? bound(bind) : bind);
  },
});

const SVD = program_rule({
  rule: "tcpsvd",
  manual: "tcpsvd(8), ipsvd 1.0 / BusyBox 1.36",
  category: "network",
  options_first: true,
  options: {
    ...flags("-h", "-E", "-v"),
    "-c": { value: "number" },
    "-C": { value: "text" },
    "-b": { value: "number" },
    "-u": { value: "text", ask: "switches to another user", category: "system_sensitive" },
    "-l": { value: "text" },
  },
  operands: { first: ["text", "text"] },
});
const SVD_VALUED = new Set(["-c", "-C", "-b", "-u", "-l"]);

/**
 * tcpsvd(8)/udpsvd(8): `tcpsvd [-hEv] [-c N] [-C N[:MSG]] [-b N] [-u USER] [-l NAME] IP PORT PROG [ARGS]` runs PROG
 * for every connection on IP (`0` is every interface); PROG and its arguments are judged as the command they are.
 */
function svd_match(args: readonly ShellWord[]): Matched {
  const operands: ShellWord[] = [];
  let index = 0;
  while (index < args.length && operands.length < 2) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const word = args[index]!;
    if (operands.length === 0 && word.literal && word.value.startsWith("-") && word.value !== "-") index += SVD_VALUED.has(word.value) ? 2 : 1;
    else {
      operands.push(word);
      index += 1;
    }
  }
  const matched = SVD.match(args.slice(0, index));
  listens(matched, "tcpsvd", operands[0]);
  const program = args.slice(index);
  if (program.length > 0) {
    matched.ask(`tcpsvd runs ${program[0]?.value} for every connection`);
    matched.argv.push({ words: program, via: "tcpsvd" });
  }
  return matched;
}

export const SOCKET_RULES: readonly ProgramRule[] = [
  { ...NC, names: ["nc", "netcat"] },
  { names: ["ncat"], match: (args) => NCAT.match(ncat_spelt_out(args)) },
  HTTPD,
  TELNETD,
  { names: ["tcpsvd", "udpsvd"], match: svd_match },
];

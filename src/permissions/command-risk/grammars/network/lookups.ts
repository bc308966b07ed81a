import { program_rule } from "../../grammar/declarative.js";
import type { Matched } from "../../grammar/matched.js";
import type { ProgramRule, Seen } from "../../grammar/types.js";
import { flags, signs_with, valued } from "./common.js";

/** A program asked about itself (`-V`, `-h`) prints and exits: no query goes out. */
const informational =
  (...options: string[]) =>
  (matched: Matched, seen: Seen): void => {
    if (!options.some((option) => seen.has(option))) return;
    matched.categories.delete("network");
    matched.categories.add("read_only");
  };
const STDIN_COMMANDS = "runs the commands of its standard input, which may send files or run local commands (!)";

/** Queries and remote sessions: all network. DNS tools (BIND 9.18), ping (iputils 20221126), telnet and ftp (netkit 0.17). */
export const LOOKUP_RULES: readonly ProgramRule[] = [
  // dig(1): `dig [@server] [-b address[#port]] [-c class] [-f filename] [-k filename] [-m] [-p port#] [-q name] [-t type]
  // [-v] [-x addr] [-y [hmac:]name:key] [-4] [-6] [name] [type] [class] [queryopt...]`; `@server` and `+opt` are operands
  program_rule({
    rule: "dig",
    manual: "dig(1), BIND 9.18",
    category: "network",
    options: {
      ...flags("-4", "-6", "-m", "-r", "-u", "-v", "-h"),
      ...valued("text", "-b", "-c", "-p", "-q", "-t", "-x"),
      "-f": { value: "read" },
      "-k": { value: signs_with("dig -k") },
      "-y": { value: "text", ask: "gives a TSIG key on the command line" },
    },
    operands: { rest: "text" },
    check: informational("-v", "-h"),
  }),
  // host(1): `host [-aACdlnrsTUwv] [-c class] [-N ndots] [-p port] [-R number] [-t type] [-W wait] [-m flag] [-4] [-6] [-v] [-V] {name} [server]`
  program_rule({
    rule: "host",
    manual: "host(1), BIND 9.18",
    category: "network",
    options: {
      ...flags("-a", "-A", "-C", "-d", "-l", "-n", "-r", "-s", "-T", "-U", "-w", "-v", "-V", "-4", "-6"),
      ...valued("text", "-c", "-N", "-p", "-R", "-t", "-W", "-m"),
    },
    operands: { first: ["text", "text"] },
    check: informational("-V"),
  }),
  // nslookup(1): `nslookup [-option] [name | -] [server]`; without a name, or with `-`, it reads commands from standard input
  program_rule({
    rule: "nslookup",
    manual: "nslookup(1), BIND 9.18",
    category: "network",
    style: "single_dash",
    options: {
      ...flags("-debug", "-nodebug", "-d2", "-nod2", "-vc", "-novc", "-recurse", "-norecurse", "-search", "-nosearch", "-fail", "-nofail", "-version"),
      ...Object.fromEntries(
        ["-type=", "-query=", "-q=", "-class=", "-port=", "-timeout=", "-retry=", "-domain=", "-ndots="].map((name) => [name, { value: "text" }]),
      ),
    },
    operands: { first: ["text", "text"] },
    check: (matched, seen, operands) => {
      if (seen.has("-version")) return informational("-version")(matched, seen);
      if (operands.length === 0 || operands[0]?.value === "-") matched.ask(`nslookup ${STDIN_COMMANDS}`);
    },
  }),
  // ping(8): `ping [-aAbBdDfhLnOqrRUvV46] [-c count] [-F flowlabel] [-i interval] [-I interface] [-l preload] [-m mark]
  // [-M pmtudisc_option] [-N nodeinfo_option] [-w deadline] [-W timeout] [-p pattern] [-Q tos] [-s packetsize]
  // [-S sndbuf] [-t ttl] [-T timestamp option] [hop ...] destination`
  {
    ...program_rule({
      rule: "ping",
      manual: "ping(8), iputils 20221126",
      category: "network",
      options: {
        ...flags("-a", "-A", "-b", "-B", "-d", "-D", "-h", "-L", "-n", "-O", "-q", "-r", "-R", "-U", "-v", "-V", "-4", "-6"),
        "-f": { ask: "floods the destination with packets" },
        ...Object.fromEntries(["-c", "-i", "-l", "-w", "-W", "-s", "-S", "-t"].map((name) => [name, { value: "number" }])),
        ...valued("text", "-F", "-I", "-m", "-M", "-N", "-p", "-Q", "-T"),
      },
      operands: { rest: "text" },
      check: informational("-V", "-h"),
    }),
    names: ["ping", "ping6"],
  },
  // telnet(1): `telnet [-468ELadr] [-S tos] [-b address] [-e escapechar] [-l user] [-n tracefile] [host [port]]`
  program_rule({
    rule: "telnet",
    manual: "telnet(1), netkit-telnet 0.17",
    category: "network",
    options: { ...flags("-4", "-6", "-8", "-E", "-L", "-a", "-d", "-r"), ...valued("text", "-S", "-b", "-e", "-l"), "-n": { value: "write" } },
    operands: { first: ["text", "text"] },
    check: (matched) => matched.ask(`telnet ${STDIN_COMMANDS}`),
  }),
  // ftp(1): `ftp [-46pinegvdt] [host [port]]`; without -n it logs in with the passwords of ~/.netrc
  program_rule({
    rule: "ftp",
    manual: "ftp(1), netkit-ftp 0.17",
    category: "network",
    options: flags("-4", "-6", "-p", "-i", "-n", "-e", "-g", "-v", "-d", "-t"),
    operands: { first: ["text", "text"] },
    check: (matched) => matched.ask(`ftp ${STDIN_COMMANDS}`),
  }),
];

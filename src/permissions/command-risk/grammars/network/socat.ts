import { judge_value, program_rule } from "../../grammar/declarative.js";
import type { Matched } from "../../grammar/matched.js";
import type { ProgramRule, Seen } from "../../grammar/types.js";
import type { ShellWord } from "../../types.js";
import { literal_word } from "../../words.js";
import { listens, signs_with } from "./common.js";

/** One address: its type (lower case), its `:` parameters and its `,` options, with quotes and escapes removed. */
type Address = { readonly type: string; readonly parameters: readonly string[]; readonly options: ReadonlyMap<string, string> };

/** Splits at `separator` outside quotes, brackets and escapes, removing the quotes and escapes (socat's nested lexer). */
function split(text: string, separator: string): string[] {
  const parts = [""];
  let quote = "";
  let depth = 0;
  for (let at = 0; at < text.length; at += 1) {
    const char = text.charAt(at);
    if (char === "\\" && at + 1 < text.length) parts[parts.length - 1] += text.charAt(++at);
    else if (quote !== "") {
      if (char === quote) quote = "";
      else parts[parts.length - 1] += char;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === separator && depth === 0) parts.push("");
    else {
      if ("([{".includes(char)) depth += 1;
      if (")]}".includes(char)) depth = Math.max(0, depth - 1);
      parts[parts.length - 1] += char;
    }
  }
  return parts;
}

/**
 * socat(1) ADDRESS SPECIFICATIONS: `TYPE:param:param,option=value,…`; `-` is STDIO, a number is FD, and a `/`
 * before the first `:` or `,` makes it GOPEN of that path. `!!` joins a reading and a writing address.
 */
function parse(text: string): Address {
  const [head = "", ...rest] = split(text, ",");
  const options = new Map(rest.map((option) => [option.split("=")[0]?.toLowerCase() ?? "", option.slice(option.indexOf("=") + 1)] as const));
  if (head === "-") return { type: "stdio", parameters: [], options };
  if (/^\d+$/.test(head)) return { type: "fd", parameters: [head], options };
  const colon = head.indexOf(":");
  if (head.slice(0, colon === -1 ? undefined : colon).includes("/")) return { type: "gopen", parameters: [head], options };
  const [type = "", ...parameters] = colon === -1 ? [head] : [head.slice(0, colon), ...split(head.slice(colon + 1), ":")];
  return { type: type.toLowerCase(), parameters, options };
}

const LISTEN =
  /^(tcp[46]?-l(isten)?|udp[46]?-l(isten)?|udp[46]?-recv(from)?|ip[46]?-recv(from)?|sctp[46]?-l(isten)?|dccp[46]?-l(isten)?|udplite[46]?-l(isten)?|openssl-listen|ssl-l|openssl-dtls-server|dtls-l|socket-listen|socket-recv(from)?|accept-fd)$/;
const LOCAL_LISTEN = /^(unix-l(isten)?|unix-recv(from)?|abstract-l(isten)?|abstract-recv(from)?|vsock-l(isten)?)$/;
const LOCAL_CONNECT = /^(unix-connect|unix-client|unix-sendto|unix|local|abstract-connect|abstract-client|abstract-sendto|abstract)$/;
const EXEC = new Set(["exec", "system", "shell"]);
const FILES = new Set(["open", "gopen", "create", "creat", "pipe", "file"]);
/** Addresses that stay on this machine: standard streams, descriptors, files, terminals, programs. */
const LOCAL = new Set(["stdio", "stdin", "stdout", "stderr", "fd", "pty", "readline", ...FILES, ...EXEC]);
/** Addresses that connect out over the network. */
const CONNECT = new Set(
  [
    "tcp tcp4 tcp6 tcp-connect tcp4-connect tcp6-connect udp udp4 udp6 udp-connect udp4-connect udp6-connect udp-sendto udp4-sendto udp6-sendto",
    "udp-datagram udp4-datagram udp6-datagram ip-sendto ip4-sendto ip6-sendto ip-datagram openssl ssl openssl-connect openssl-dtls-client dtls",
    "sctp-connect sctp4-connect sctp6-connect dccp-connect socks socks4 socks4a socks5 socks5-connect proxy proxy-connect vsock-connect vsock",
  ]
    .join(" ")
    .split(" "),
);

/** Address options that name files, or change who runs what. */
function judge_options(address: Address, via: string, matched: Matched): void {
  for (const [name, value] of address.options) {
    const word = literal_word(value);
    if (name === "link" || name === "history" || name === "lockfile" || name === "waitlock") matched.write(word);
    else if (name === "cafile" || name === "capath" || name === "dhparam" || name === "egd") matched.read(word);
    else if (name === "cert" || name === "key") judge_value(signs_with(`${via} ${name}=`), word, via, matched);
    else if (["su", "su-d", "substuser", "substuser-delayed", "setuid", "setuid-early", "setgid", "chroot", "chroot-early"].includes(name))
      matched.ask(`${via} ${name}= changes the user or root the program runs as`, "system_sensitive");
    else if (name === "path" || name === "shell") matched.ask(`${via} ${name}= changes what the program runs`);
  }
}

/**
 * One side of the connection. `direction`: what socat does with it (`-u` reads the first address and writes the
 * second, `-U` the reverse; both otherwise). Listening sockets are judged by their `bind=` option; a program run on
 * one side while the other is on the network is a shell over the network.
 */
function judge_address(word: ShellWord, other: Address | undefined, direction: "read" | "write" | "both", matched: Matched): boolean {
  const via = `socat ${word.value}`;
  if (!word.literal) {
    matched.ask(`${via} is an address only known at run time`);
    return true;
  }
  const halves = word.value.includes("!!") ? word.value.split("!!") : [word.value];
  let network = false;
  halves.forEach((half, index) => {
    const address = parse(half);
    const use = halves.length === 2 ? (index === 0 ? "read" : "write") : direction;
    judge_options(address, via, matched);
    const target = literal_word(address.parameters[0] ?? "");
    if (LISTEN.test(address.type)) {
      network = true;
      const bind = address.options.get("bind");
      listens(matched, via, bind === undefined ? undefined : literal_word(bind.replace(/:\d+$/, "")));
    } else if (LOCAL_LISTEN.test(address.type)) {
      matched.ask(`${via} listens on the local socket ${target.value}`, "network");
      if (address.type.startsWith("unix")) matched.write(target);
    } else if (LOCAL_CONNECT.test(address.type)) {
      matched.ask(`${via} talks to the local socket ${target.value} (a Docker or system daemon socket gives control of the machine)`);
    } else if (EXEC.has(address.type)) {
      if (other === undefined || !LOCAL.has(other.type))
        matched.deny(`${via} runs a program with its input and output on the network: a shell over the network`, "network");
      else judge_value("command", literal_word(address.parameters.join(":")), via, matched);
    } else if (FILES.has(address.type)) {
      const only = address.options.has("rdonly") ? "read" : address.options.has("wronly") || address.type.startsWith("creat") ? "write" : use;
      if (only !== "write") matched.read(target);
      if (only !== "read") matched.write(target);
    } else if (CONNECT.has(address.type)) network = true;
    else if (address.type === "tun" || address.type === "interface") matched.ask(`${via} creates or opens a network interface`, "system_sensitive");
    else if (!LOCAL.has(address.type)) matched.ask(`${via} is not a socat address this analyzer knows`);
  });
  return network;
}

/** Both addresses, each knowing the other; the command is network when either side is. */
function connects(matched: Matched, seen: Seen, operands: readonly ShellWord[]): void {
  if (seen.has("-V") || seen.has("-h") || seen.has("-hh") || seen.has("-hhh")) return;
  const parsed = operands.map((word) => (word.literal ? parse(word.value.split("!!")[0] ?? "") : undefined));
  const directions = seen.has("-u") ? (["read", "write"] as const) : seen.has("-U") ? (["write", "read"] as const) : (["both", "both"] as const);
  const network = operands.map((word, index) => judge_address(word, parsed[1 - index], directions[index] ?? "both", matched));
  if (network.some(Boolean)) matched.categories.add("network");
}

/**
 * socat(1), socat 1.7.4: `socat [options] <address> <address>`; options come first, as whole words (`-d -d`, `-dd`,
 * `-lf FILE`, `-ly[facility]`).
 */
export const SOCAT_RULES: readonly ProgramRule[] = [
  program_rule({
    rule: "socat",
    manual: "socat(1), socat 1.7.4",
    category: "read_only",
    style: "single_dash",
    options_first: true,
    options: {
      ...Object.fromEntries(
        ["-V", "-h", "-hh", "-hhh", "-d", "-dd", "-ddd", "-dddd", "-D", "-ls", "-lu", "-lh", "-v", "-x", "-s", "-u", "-U", "-g", "-4", "-6"].map((name) => [
          name,
          {},
        ]),
      ),
      "-ly": { value: "text", optional_value: true, attached: true },
      "-lm": { value: "text", optional_value: true, attached: true },
      "-lf": { value: "write" },
      "-lp": { value: "text" },
      "-b": { value: "number" },
      "-t": { value: "number" },
      "-T": { value: "number" },
      "-L": { value: "write" },
      "-W": { value: "write" },
    },
    operands: { first: ["text", "text"] },
    check: connects,
  }),
];

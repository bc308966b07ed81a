import { judge_value, program_rule } from "../../grammar/declarative.js";
import type { Matched } from "../../grammar/matched.js";
import type { OptionSpec, ProgramRule, Seen, ValueKind } from "../../grammar/types.js";
import type { ShellWord } from "../../types.js";
import { literal_word } from "../../words.js";
import { is_loopback, is_remote, listens, plain, signs_with } from "./common.js";

const MANUAL = "ssh(1), ssh_config(5), OpenSSH 9.6";

type Forward = "local" | "remote" | "dynamic";

/** A forward's fields, split at `:` as `parse_fwd_field` does: `[…]` is taken literally, `\\` escapes the next character. */
function forward_fields(spec: string): string[] {
  const fields: string[] = [];
  let rest = spec;
  while (true) {
    if (rest.startsWith("[") && rest.includes("]")) {
      const close = rest.indexOf("]");
      fields.push(rest.slice(1, close));
      rest = rest.slice(close + 1);
    } else {
      let field = "";
      let at = 0;
      for (; at < rest.length && rest[at] !== ":"; at += 1) field += rest[at] === "\\" ? (rest[++at] ?? "") : rest[at];
      fields.push(field);
      rest = rest.slice(at);
    }
    if (!rest.startsWith(":") || rest === ":") return fields;
    rest = rest.slice(1);
  }
}

/**
 * One port forward, as OpenSSH's `parse_forward` reads it: fields split at `:` (a bracketed field is literal, and a
 * field with a `/` is a socket path). The listening side is a bind address and port, a port alone (bound as
 * `GatewayPorts` says: loopback unless `-g`), or a Unix socket. `-L`/`-D` listen here, `-R` on the remote host.
 */
function judge_forward(spec: ShellWord, kind: Forward, gateway: boolean, matched: Matched): void {
  const via = `ssh ${{ local: "-L", remote: "-R", dynamic: "-D" }[kind]} ${spec.value}`;
  if (!spec.literal) {
    matched.ask(`${via} forwards a port only known at run time`, "network");
    return;
  }
  const fields = forward_fields(spec.value);
  const path = (field: string | undefined): boolean => field?.includes("/") === true;
  const [first, , third] = fields;
  const listen_path = path(first) && (fields.length !== 2 || path(fields[1]));
  const bind = fields.length >= 4 || (fields.length === 3 && path(third)) || (fields.length === 2 && !path(fields[1])) ? first : undefined;
  if (listen_path) {
    matched.ask(`${via} listens on the socket ${first}`, "network");
    if (kind !== "remote" && first !== undefined) matched.write(literal_word(first));
  } else if (kind === "remote") {
    if (bind !== undefined && !is_loopback(bind))
      matched.deny(`${via} opens a port on ${bind || "all interfaces"} of the remote host into this machine`, "network");
    else matched.ask(`${via} lets the remote host connect ${fields.length === 1 ? "anywhere through" : "back into"} this machine`, "network");
  } else if (bind === undefined && !gateway) matched.ask(`${via} listens on this machine's loopback interface`, "network");
  else listens(matched, via, bind === undefined ? undefined : literal_word(bind));
}

/** ssh_config keywords that take a command line ssh runs here (`none` runs nothing). */
const COMMANDS = new Set(["proxycommand", "localcommand", "knownhostscommand"]);
/** Keywords whose value is opaque to what ssh does on this machine. */
const TEXT = new Set(
  [
    "AddKeysToAgent AddressFamily BatchMode BindAddress BindInterface CanonicalDomains CanonicalizeFallbackLocal CanonicalizeHostname",
    "CanonicalizeMaxDots CanonicalizePermittedCNAMEs ChannelTimeout CheckHostIP Ciphers ClearAllForwardings Compression ConnectionAttempts",
    "ConnectTimeout ControlMaster ControlPersist EnableEscapeCommandline EscapeChar ExitOnForwardFailure FingerprintHash ForkAfterAuthentication",
    "GSSAPIAuthentication HashKnownHosts HostbasedAcceptedAlgorithms HostbasedAuthentication HostKeyAlgorithms HostKeyAlias Hostname",
    "IdentitiesOnly IPQoS KbdInteractiveAuthentication KexAlgorithms LogLevel LogVerbose MACs NoHostAuthenticationForLocalhost",
    "NumberOfPasswordPrompts ObscureKeystrokeTiming PasswordAuthentication PermitLocalCommand PermitRemoteOpen Port PreferredAuthentications",
    "ProxyJump ProxyUseFdpass PubkeyAcceptedAlgorithms PubkeyAuthentication RekeyLimit RemoteCommand RequestTTY RequiredRSASize SessionType",
    "SetEnv StdinNull StreamLocalBindMask StreamLocalBindUnlink StrictHostKeyChecking Tag TCPKeepAlive UpdateHostKeys User VerifyHostKeyDNS",
    "VisualHostKey ServerAliveCountMax ServerAliveInterval",
  ]
    .join(" ")
    .toLowerCase()
    .split(" "),
);
/** Keywords that make ssh act with the user's credentials or lend them to the remote host. */
const LENDS: Readonly<Record<string, string>> = {
  forwardagent: "lets the remote host use the keys of your ssh agent",
  forwardx11: "lets the remote host reach your X display",
  forwardx11trusted: "lets the remote host reach your X display",
  gssapidelegatecredentials: "hands your Kerberos credentials to the remote host",
  sendenv: "sends environment variables, which may hold secrets, to the remote host",
  identityagent: "uses the keys of an ssh agent socket",
};

/** What one `-o Keyword=value` makes ssh do: the same options' judgement as the command line's. */
function judge_setting(word: ShellWord, matched: Matched, forwards: { word: ShellWord; kind: Forward }[]): boolean {
  const [, keyword = "", value = ""] = /^\s*([A-Za-z0-9]+)\s*(?:=\s*|\s+)?(.*?)\s*$/s.exec(plain(word)) ?? [];
  const key = keyword.toLowerCase();
  const via = `ssh -o ${keyword}`;
  const known = (text: string): ShellWord => (word.literal ? literal_word(text) : { value: text, literal: false, glob: false });
  const on = /^(yes|true|ask|confirm|auto)/i.test(value) || (key === "forwardagent" && value.includes("/"));
  if (COMMANDS.has(key)) {
    if (value.toLowerCase() !== "none") judge_value("command", known(value), via, matched);
  } else if (key === "pkcs11provider" || key === "securitykeyprovider" || key === "xauthlocation") {
    matched.ask(`${via} loads or runs ${value}, code of its own`);
  } else if (key === "localforward" || key === "remoteforward" || key === "dynamicforward") {
    const listen = value.split(/\s+/)[0] ?? "";
    forwards.push({ word: known(listen), kind: key === "localforward" ? "local" : key === "remoteforward" ? "remote" : "dynamic" });
  } else if (key === "gatewayports") {
    return /^yes/i.test(value);
  } else if (key in LENDS) {
    if (key === "sendenv" || key === "identityagent" || on) matched.ask(`${via} ${LENDS[key]}`, "credential_sensitive");
  } else if (key === "identityfile" || key === "certificatefile") {
    judge_value(signs_with(via), known(value), via, matched);
  } else if (key === "controlpath" || key === "userknownhostsfile") {
    for (const file of value.split(/\s+/)) if (file !== "" && file.toLowerCase() !== "none") matched.write(known(file));
  } else if (key === "globalknownhostsfile" || key === "revokedhostkeys") {
    for (const file of value.split(/\s+/)) if (file !== "") matched.read(known(file));
  } else if (key === "tunnel" || key === "tunneldevice") {
    matched.ask(`${via} creates a network interface`, "system_sensitive");
  } else if (!TEXT.has(key)) matched.ask(`${via} is not an ssh option this analyzer knows`);
  return false;
}

/** `-o` settings and the forwards of `-L`, `-R`, `-D` (and their `-o` spellings), with `-g` known. */
function ssh_settings(matched: Matched, seen: Seen): void {
  const forwards: { word: ShellWord; kind: Forward }[] = [];
  let gateway = seen.has("-g");
  for (const setting of seen.get("-o") ?? []) if (judge_setting(setting, matched, forwards)) gateway = true;
  for (const [flag, kind] of [
    ["-L", "local"],
    ["-R", "remote"],
    ["-D", "dynamic"],
  ] as const)
    for (const word of seen.get(flag) ?? []) forwards.push({ word, kind });
  for (const { word, kind } of forwards) judge_forward(word, kind, gateway, matched);
}

/** ssh's own judgement of `-F`: `none` (and /dev/null) read no configuration; any other file may set ProxyCommand. */
const CONFIG: ValueKind = {
  judge: (word, matched) => {
    if (word.literal && (word.value === "none" || word.value === "/dev/null")) return;
    matched.read(word);
    matched.ask(`ssh -F ${word.value} reads a configuration that may run programs (ProxyCommand, LocalCommand, Match exec)`);
  },
};

/** `-S ctl_path`: the control socket ssh connects to, or creates as master (`-M`); `none` uses none. */
const CONTROL_PATH: ValueKind = {
  judge: (word, matched) => {
    if (!word.literal || word.value !== "none") matched.write(word);
  },
};

/** Options ssh, scp and sftp share (their ssh(1) meaning). */
const SHARED: Readonly<Record<string, OptionSpec>> = {
  "-4": {},
  "-6": {},
  "-A": { ask: "lets the remote host use the keys of your ssh agent", category: "network" },
  "-C": {},
  "-q": {},
  "-v": {},
  "-c": { value: "text" },
  "-F": { value: CONFIG },
  "-i": { value: signs_with("ssh -i") },
  "-J": { value: "text" },
  "-o": { value: "text" },
};

const SSH_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  ...SHARED,
  ...Object.fromEntries(["-a", "-f", "-G", "-g", "-K", "-k", "-M", "-N", "-n", "-s", "-T", "-t", "-x", "-y", "-V"].map((flag) => [flag, {}])),
  "-X": { ask: "lets the remote host reach your X display" },
  "-Y": { ask: "lets the remote host reach your X display" },
  "-B": { value: "text" },
  "-b": { value: "text" },
  "-E": { value: "write" },
  "-e": { value: "text" },
  "-l": { value: "text" },
  "-m": { value: "text" },
  "-O": { value: { one_of: ["check", "forward", "cancel", "exit", "stop", "proxy"] } },
  "-P": { value: "text" },
  "-p": { value: "number" },
  "-Q": { value: "text" },
  "-S": { value: CONTROL_PATH },
  "-W": { value: "text" },
  "-L": { value: "text" },
  "-R": { value: "text" },
  "-D": { value: "text" },
  "-I": { value: "text", ask: "loads a PKCS#11 library into ssh, code of its own" },
  "-w": { value: "text", ask: "creates a network interface", category: "system_sensitive" },
};

const SSH = program_rule({
  rule: "ssh",
  manual: MANUAL,
  category: "read_only",
  options: SSH_OPTIONS,
  operands: { first: ["text"] },
  check: (matched, seen, operands) => {
    ssh_settings(matched, seen);
    // `-V` and `-Q` print and exit while the options are read
    if (operands.length > 0 && !seen.has("-V") && !seen.has("-Q")) matched.categories.add("network");
  },
});

/** ssh's short options that take a value (its `getopt` string). */
const SSH_VALUED = new Set("BbcDEeFIiJLlmOoPpQRSWw");

/**
 * ssh reads options, the destination, then options again (OpenSSH's `goto again`), and the first word after those
 * starts the remote command — every later word is the command's, even one starting with `-`. `--` ends the options.
 */
function ssh_match(args: readonly ShellWord[]): Matched {
  const options: ShellWord[] = [];
  let destination: ShellWord | undefined;
  let index = 0;
  for (; index < args.length; index += 1) {
    // biome-ignore lint/style/noNonNullAssertion: index < args.length
    const word = args[index]!;
    if (word.literal && word.value === "--") {
      if (destination === undefined) destination = args[++index];
      index += 1;
      break;
    }
    if (!word.literal || !word.value.startsWith("-") || word.value === "-") {
      if (destination !== undefined) break;
      destination = word;
      continue;
    }
    options.push(word);
    const letters = word.value.slice(1);
    const valued = [...letters].findIndex((letter) => SSH_VALUED.has(letter));
    if (valued === letters.length - 1 && args[index + 1] !== undefined) options.push(args[++index] as ShellWord);
  }
  const matched = SSH.match(destination === undefined ? options : [...options, literal_word("--"), destination]);
  if (destination !== undefined && !destination.literal)
    matched.ask(`${destination.value} is only known at run time, and may be an option of ssh that runs code`);
  // the remote command runs on the remote host: its words are text, and the command asks as network
  return matched;
}

/** Whether an scp/rsync operand names this machine's files. */
const local = (word: ShellWord): boolean => !is_remote(word);

const SCP = program_rule({
  rule: "scp",
  manual: "scp(1), OpenSSH 9.6",
  category: "read_only",
  options_first: true,
  options: {
    ...SHARED,
    ...Object.fromEntries(["-3", "-B", "-O", "-p", "-R", "-r", "-s", "-T"].map((flag) => [flag, {}])),
    "-D": { value: "command" },
    "-S": { value: "command" },
    "-l": { value: "number" },
    "-P": { value: "number" },
    "-X": { value: "text" },
  },
  operands: { rest: "text" },
  check: (matched, seen, operands) => {
    ssh_settings(matched, seen);
    const remote = operands.some((word) => !local(word));
    if (remote) matched.categories.add("network");
    // a local copy is `cp -r`, which copies symlinks as links; a transfer follows them (scp(1): -r)
    const depth = !seen.has("-r") ? "path" : remote ? "linked_tree" : "tree";
    operands.forEach((word, index) => {
      if (!local(word)) return;
      if (index === operands.length - 1 && operands.length > 1) matched.write(word);
      else matched.read(word, depth);
    });
  },
});

/** `sftp -b FILE` runs the sftp commands in it: `put` sends any file, `!command` runs a local shell command. */
const BATCH: ValueKind = {
  judge: (word, matched) => {
    matched.read(word);
    matched.ask(`sftp -b ${word.value} runs the sftp commands of a file: they may send any file or run local commands (!)`);
  },
};

const SFTP = program_rule({
  rule: "sftp",
  manual: "sftp(1), OpenSSH 9.6",
  category: "network",
  options_first: true,
  options: {
    ...SHARED,
    ...Object.fromEntries(["-a", "-f", "-N", "-p", "-r"].map((flag) => [flag, {}])),
    "-B": { value: "number" },
    "-b": { value: BATCH },
    "-D": { value: "command" },
    "-S": { value: "command" },
    "-s": { value: "text" },
    "-l": { value: "number" },
    "-P": { value: "number" },
    "-R": { value: "number" },
    "-X": { value: "text" },
  },
  operands: { first: ["text"] },
  check: (matched, seen) => {
    ssh_settings(matched, seen);
    if (!seen.has("-b")) matched.ask("sftp runs the sftp commands of its standard input: they may send any file or run local commands (!)");
  },
});

/**
 * ssh(1): `ssh [-46AaCfGgKkMNnqsTtVvXxYy] [-B bind_interface] [-b bind_address] [-c cipher_spec] [-D [bind_address:]port]
 * [-E log_file] [-e escape_char] [-F configfile] [-I pkcs11] [-i identity_file] [-J destination] [-L address]
 * [-l login_name] [-m mac_spec] [-O ctl_cmd] [-o option] [-P tag] [-p port] [-R address] [-S ctl_path] [-W host:port]
 * [-w local_tun[:remote_tun]] destination [command [argument ...]]`, `ssh [-Q query_option]`.
 * scp(1): `scp [-346ABCOpqRrsTv] [-c cipher] [-D sftp_server_path] [-F ssh_config] [-i identity_file] [-J destination]
 * [-l limit] [-o ssh_option] [-P port] [-S program] [-X sftp_option] source ... target` — a local-only copy runs cp.
 * sftp(1): `sftp [-46AaCfNpqrv] [-B buffer_size] [-b batchfile] [-c cipher] [-D sftp_server_command] [-F ssh_config]
 * [-i identity_file] [-J destination] [-l limit] [-o ssh_option] [-P port] [-R num_requests] [-S program]
 * [-s subsystem | sftp_server] [-X sftp_option] destination`.
 */
export const SSH_RULES: readonly ProgramRule[] = [{ names: ["ssh"], match: ssh_match }, SCP, SFTP];

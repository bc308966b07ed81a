import { program_rule } from "../../grammar/declarative.js";
import { Matched } from "../../grammar/matched.js";
import type { OptionSpec, ProgramRule, ProgramSpec, ValueKind } from "../../grammar/types.js";
import type { ShellWord } from "../../types.js";
import { literal_word } from "../../words.js";
import { flags, listens, plain, signs_with } from "./common.js";

const MANUAL = "openssl(1), OpenSSL 3.0";

const DIGESTS = [
  "md4 md5 mdc2 rmd160 ripemd160 sha1 sha224 sha256 sha384 sha512 sha512-224 sha512-256 sha3-224 sha3-256 sha3-384 sha3-512",
  "shake128 shake256 sm3 blake2b512 blake2s256 whirlpool",
]
  .join(" ")
  .split(" ");
/** Cipher names (`openssl enc -list`): families, then key size and mode (`aes-256-cbc`, `des-ede3`, `chacha20`). */
const CIPHER = /^(aes|aria|bf|blowfish|camellia|cast|cast5|chacha20|des|des3|desx|idea|rc2|rc4|rc5|seed|sm4)(-[a-z0-9-]+)?$/i;

/**
 * openssl-passphrase-options(1): `pass:TEXT`, `env:VAR`, `fd:N` and `stdin` give the pass phrase; `file:PATH`
 * reads it from a file.
 */
const PASS: ValueKind = {
  judge: (word, matched) => {
    const text = plain(word);
    if (text.startsWith("file:")) matched.read({ value: text.slice(5), literal: word.literal, glob: false });
    else if (!/^(pass|env|fd):|^stdin$/.test(text)) matched.ask(`openssl pass phrase source ${word.value} is not one this analyzer knows`);
  },
};

/** `-rand file:file…`: files mixed into the random seed. */
const SEED_FILES: ValueKind = {
  judge: (word, matched) => {
    for (const file of plain(word).split(":")) if (file !== "") matched.read({ value: file, literal: word.literal, glob: false });
  },
};

/** Options most commands share (openssl(1) COMMON OPTIONS): random seed files, engines and providers, which load code. */
const COMMON: Readonly<Record<string, OptionSpec>> = {
  "-help": {},
  "-rand": { value: SEED_FILES },
  "-writerand": { value: "write" },
  "-engine": { value: "text", ask: "loads an engine, a shared library of its own code" },
  "-provider": { value: "text", ask: "loads a provider module, a shared library of its own code" },
  "-provider-path": { value: "text", ask: "names where provider modules, code of their own, are loaded from" },
  "-propquery": { value: "text" },
};

const spec = (rule: string, manual: string, rest: Omit<ProgramSpec, "rule" | "manual" | "style">): ProgramSpec => ({
  rule: `openssl ${rule}`,
  manual: `${manual}, OpenSSL 3.0`,
  style: "single_dash",
  ...rest,
});

// openssl-dgst(1): `openssl dgst [-digest] [-list] [-hex] [-binary] [-c] [-r] [-out filename] [-sign filename]
// [-keyform fmt] [-passin arg] [-verify filename] [-prverify filename] [-signature filename] [-sigopt nm:v] [-hmac key]
// [-mac alg] [-macopt nm:v] [-fips-fingerprint] [-engine id] [-engine_impl] [-xoflen length] [file ...]`
const DGST = spec("dgst", "openssl-dgst(1)", {
  category: "read_only",
  options: {
    ...COMMON,
    ...flags("-list", "-hex", "-binary", "-c", "-r", "-d", "-debug", "-fips-fingerprint", "-engine_impl", ...DIGESTS.map((digest) => `-${digest}`)),
    "-out": { value: "write" },
    "-sign": { value: "read" },
    "-verify": { value: "read" },
    "-prverify": { value: "read" },
    "-signature": { value: "read" },
    "-keyform": { value: "text" },
    "-passin": { value: PASS },
    "-sigopt": { value: "text" },
    "-hmac": { value: "text" },
    "-mac": { value: "text" },
    "-macopt": { value: "text" },
    "-xoflen": { value: "number" },
  },
  operands: { rest: "read" },
});

// openssl-enc(1): `openssl enc -cipher [-in filename] [-out filename] [-pass arg] [-e] [-d] [-a] [-base64] [-A] [-k password]
// [-kfile filename] [-md digest] [-iter count] [-pbkdf2] [-p] [-P] [-salt] [-nosalt] [-z] [-S salt] [-K key] [-iv IV]
// [-bufsize number] [-nopad] [-v] [-debug] [-none]`; `openssl CIPHER …` and `openssl base64 …` are the same command
const ENC = spec("enc", "openssl-enc(1)", {
  category: "read_only",
  options: {
    ...COMMON,
    ...flags("-list", "-ciphers", "-e", "-d", "-a", "-base64", "-A", "-pbkdf2", "-p", "-P", "-salt", "-nosalt", "-z", "-nopad", "-v", "-debug", "-none"),
    "-in": { value: "read" },
    "-out": { value: "write" },
    "-pass": { value: PASS },
    "-k": { value: "text" },
    "-kfile": { value: "read" },
    "-md": { value: "text" },
    "-iter": { value: "number" },
    "-saltlen": { value: "number" },
    "-S": { value: "text" },
    "-K": { value: "text" },
    "-iv": { value: "text" },
    "-bufsize": { value: "number" },
  },
});

/** `-accept [host:]port` (openssl-s_server(1)): the address s_server binds, every interface (`*`) without a host. */
function accept_host(word: ShellWord | undefined): ShellWord | undefined {
  if (word === undefined || !word.literal) return word;
  const colon = word.value.lastIndexOf(":");
  return colon === -1 ? undefined : literal_word(word.value.slice(0, colon));
}

/** TLS settings s_client and s_server share (openssl-s_client(1), openssl-s_server(1)). */
const TLS: Readonly<Record<string, OptionSpec>> = {
  ...COMMON,
  ...flags("-4", "-6", "-quiet", "-brief", "-msg", "-state", "-debug", "-crlf", "-tls1", "-tls1_1", "-tls1_2", "-tls1_3", "-no_tls1_3", "-status"),
  ...flags("-verify_return_error", "-no_ign_eof", "-ign_eof", "-nbio", "-x509_strict", "-ct", "-noct", "-no_ticket", "-serverpref"),
  ...Object.fromEntries(["-CAfile", "-CApath", "-CAstore", "-verifyCAfile", "-chainCAfile", "-sess_in"].map((name) => [name, { value: "read" }])),
  ...Object.fromEntries(
    ["-cipher", "-ciphersuites", "-groups", "-curves", "-sigalgs", "-alpn", "-verify_hostname", "-name"].map((name) => [name, { value: "text" }]),
  ),
  "-verify": { value: "number" },
  "-Verify": { value: "number" },
  "-cert": { value: signs_with("openssl -cert") },
  "-key": { value: signs_with("openssl -key") },
  "-pass": { value: PASS },
  "-keylogfile": { value: "write" },
  "-sess_out": { value: "write" },
};

const OPENSSL = program_rule({
  rule: "openssl",
  manual: MANUAL,
  category: "read_only",
  style: "single_dash",
  subcommands: {
    // openssl-version(1): `openssl version [-a] [-v] [-b] [-o] [-f] [-p] [-d] [-e] [-m] [-r] [-c]`
    version: spec("version", "openssl-version(1)", {
      category: "read_only",
      options: flags("-help", "-a", "-v", "-b", "-o", "-f", "-p", "-d", "-e", "-m", "-r", "-c"),
    }),
    // openssl(1): `openssl help [command]`, `openssl list [-1] [-commands] [-digest-commands] … [-options command]`
    help: spec("help", "openssl(1)", { category: "read_only", operands: { rest: "text" } }),
    list: spec("list", "openssl-list(1)", {
      category: "read_only",
      options: {
        ...flags("-help", "-1", "-verbose", "-commands", "-standard-commands", "-digest-commands", "-digest-algorithms", "-cipher-commands"),
        ...flags("-cipher-algorithms", "-mac-algorithms", "-kdf-algorithms", "-random-generators", "-public-key-algorithms", "-public-key-methods"),
        ...flags("-key-managers", "-key-exchange-algorithms", "-signature-algorithms", "-asymcipher-algorithms", "-encoders", "-decoders"),
        ...flags("-store-loaders", "-providers", "-engines", "-disabled", "-objects", "-all-algorithms"),
        "-options": { value: "text" },
        "-select": { value: "text" },
      },
    }),
    // openssl-ciphers(1): `openssl ciphers [-v] [-V] [-s] [-tls1_2] [-tls1_3] [-stdname] [cipherlist]`
    ciphers: spec("ciphers", "openssl-ciphers(1)", {
      category: "read_only",
      options: flags("-help", "-v", "-V", "-s", "-tls1", "-tls1_1", "-tls1_2", "-tls1_3", "-stdname", "-psk", "-srp"),
      operands: { rest: "text" },
    }),
    // openssl-errstr(1): `openssl errstr [-help] code...`; openssl-prime(1): `openssl prime [-hex] [-generate] [-bits num] [-safe] [-checks num] [number...]`
    errstr: spec("errstr", "openssl-errstr(1)", { category: "read_only", options: flags("-help"), operands: { rest: "text" } }),
    prime: spec("prime", "openssl-prime(1)", {
      category: "read_only",
      options: { ...flags("-help", "-hex", "-generate", "-safe"), "-bits": { value: "number" }, "-checks": { value: "number" } },
      operands: { rest: "text" },
    }),
    // openssl-rand(1): `openssl rand [-out file] [-base64] [-hex] [-engine id] [-rand files] [-writerand file] num`
    rand: spec("rand", "openssl-rand(1)", {
      category: "read_only",
      options: { ...COMMON, ...flags("-base64", "-hex"), "-out": { value: "write" } },
      operands: { first: ["number"] },
    }),
    // openssl-x509(1), reading and printing only: `openssl x509 [-in filename] [-out filename] [-noout] [-text] [-subject] …`
    x509: spec("x509", "openssl-x509(1)", {
      category: "read_only",
      options: {
        ...COMMON,
        ...flags("-noout", "-text", "-subject", "-issuer", "-dates", "-startdate", "-enddate", "-serial", "-fingerprint", "-pubkey", "-modulus"),
        ...flags("-purpose", "-email", "-ocspid", "-ocsp_uri", "-hash", "-subject_hash", "-issuer_hash", "-alias", "-nocert"),
        ...flags(...DIGESTS.map((digest) => `-${digest}`)),
        ...Object.fromEntries(
          ["-inform", "-outform", "-nameopt", "-certopt", "-ext", "-checkhost", "-checkemail", "-checkip"].map((name) => [name, { value: "text" }]),
        ),
        "-checkend": { value: "number" },
        "-in": { value: "read" },
        "-out": { value: "write" },
      },
    }),
    // openssl-s_client(1): `openssl s_client [-connect host:port] [-servername name] [-showcerts] … [host:port]`
    s_client: spec("s_client", "openssl-s_client(1)", {
      category: "network",
      options: {
        ...TLS,
        ...flags("-showcerts", "-prexit", "-reconnect", "-noservername"),
        ...Object.fromEntries(["-connect", "-host", "-port", "-servername", "-starttls", "-proxy", "-bind"].map((name) => [name, { value: "text" }])),
      },
      operands: { first: ["text"] },
    }),
    // openssl-s_server(1): `openssl s_server [-accept [host:]port] [-port +int] [-unix path] [-naccept +int] [-www] [-WWW] [-HTTP] [-rev] …`
    s_server: spec("s_server", "openssl-s_server(1)", {
      category: "network",
      options: {
        ...TLS,
        ...flags("-www", "-WWW", "-HTTP", "-rev"),
        "-accept": { value: "text" },
        "-port": { value: "number" },
        "-unix": { value: "write" },
        "-naccept": { value: "number" },
      },
      check: (matched, seen) => {
        const unix = seen.get("-unix")?.at(-1);
        if (unix !== undefined) matched.ask(`openssl s_server listens on the local socket ${unix.value}`, "network");
        else listens(matched, "openssl s_server", accept_host(seen.get("-accept")?.at(-1)));
      },
    }),
  },
});

/**
 * openssl(1), OpenSSL 3.0: `openssl command [options] [parameters]`. A digest name is `dgst` with that digest
 * (`openssl sha256 file`), a cipher name or `base64` is `enc` with it; in `dgst` and `enc` a `-digest` or `-cipher`
 * option names the algorithm. Without a command openssl reads commands from its standard input, which asks.
 */
function openssl_match(args: readonly ShellWord[]): Matched {
  const [command, ...rest] = args;
  const name = command?.literal === true ? command.value : undefined;
  const algorithm = (word: ShellWord): boolean => word.literal && CIPHER.test(word.value.slice(1)) && word.value.startsWith("-");
  if (name !== undefined && DIGESTS.includes(name)) return DGST_RULE.match(rest);
  if (name === "dgst") return DGST_RULE.match(rest);
  if (name !== undefined && (CIPHER.test(name) || name === "base64")) return ENC_RULE.match(rest.filter((word) => !algorithm(word)));
  if (name === "enc") return ENC_RULE.match(rest.filter((word) => !algorithm(word)));
  if (command !== undefined) return OPENSSL.match(args);
  const matched = new Matched("openssl", MANUAL);
  matched.ask("openssl without a command runs the commands of its standard input");
  return matched;
}

const DGST_RULE = program_rule(DGST);
const ENC_RULE = program_rule(ENC);

export const OPENSSL_RULES: readonly ProgramRule[] = [{ names: ["openssl"], match: openssl_match }];

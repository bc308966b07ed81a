import type { Matched } from "../../grammar/matched.js";
import type { OptionSpec, ValueKind } from "../../grammar/types.js";
import type { ShellWord } from "../../types.js";
import { literal_word } from "../../words.js";

/** Options that take no value, by their spellings (`"-v|--verbose"`). */
export { flags } from "../common.js";

/** Options that all take a value of one kind. */
export const valued = (value: ValueKind, ...names: string[]): Record<string, OptionSpec> => Object.fromEntries(names.map((name) => [name, { value }]));

/**
 * A word's text as far as it is known: the value of a literal word, or the source of a word only known at
 * run time without its double quotes (`"@$HOME"/x` ⇒ `@$HOME/x`), which the path expansion can still spell out.
 */
export function plain(word: ShellWord): string {
  return word.literal ? word.value : word.value.replace(/"/g, "");
}

/** The rest of `word` after the first `from` characters of its `plain` text, literal when `word` is. */
export function rest_of(word: ShellWord, from: number): ShellWord {
  return word.literal ? literal_word(word.value.slice(from)) : { value: plain(word).slice(from), literal: false, glob: false };
}

/** Whether the first character of the word is known before it runs (a word starting with `$x` may start with anything). */
export function known_start(word: ShellWord): boolean {
  return word.literal || !/^[$`\\']/.test(plain(word));
}

/** `localhost`, `127.0.0.0/8` and `::1`, bracketed or not: addresses only this machine can reach. */
export function is_loopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return (
    bare === "localhost" || bare === "ip6-localhost" || bare === "ip6-loopback" || /^127(\.\d{1,3}){0,3}$/.test(bare) || /^(0{0,4}:){2,7}0{0,3}1$/.test(bare)
  );
}

/**
 * A listening socket (issue 11): bound to a loopback address it asks, since only this machine can connect;
 * bound to all interfaces (no address, `*`, `0.0.0.0`, `::`) or to an address other machines reach, it is denied.
 */
export function listens(matched: Matched, via: string, bind: ShellWord | undefined): void {
  if (bind !== undefined && !bind.literal) matched.ask(`${via} listens on ${bind.value}, an address only known at run time`, "network");
  else if (bind !== undefined && is_loopback(bind.value)) matched.ask(`${via} listens on ${bind.value}, which only this machine can reach`, "network");
  else {
    const where = bind === undefined || ["", "*", "0", "0.0.0.0", "::", "[::]"].includes(bind.value) ? "all interfaces" : bind.value;
    matched.deny(`${via} listens on ${where}: other machines can connect to it`, "network");
  }
}

/**
 * GNU `getopt_long` (wget, ncat) and curl take any unambiguous prefix of a long option (`--out` is `--output`):
 * each such word is spelt out in full before the grammar reads it, so an abbreviation is judged as the option it is.
 * A prefix of several options is left as written, and asks as unknown.
 */
export function spell_out(options: Readonly<Record<string, OptionSpec>>): (args: readonly ShellWord[]) => ShellWord[] {
  const longs = Object.keys(options).flatMap((spellings) => spellings.split("|").filter((spelling) => spelling.startsWith("--")));
  const known = new Set(longs);
  return (args) => {
    const end = args.findIndex((word) => word.literal && word.value === "--");
    return args.map((word, index) => {
      if (!word.literal || !word.value.startsWith("--") || word.value === "--" || (end !== -1 && index > end)) return word;
      const equals = word.value.indexOf("=");
      const name = equals === -1 ? word.value : word.value.slice(0, equals);
      if (known.has(name)) return word;
      const candidates = longs.filter((spelling) => spelling.startsWith(name));
      return candidates.length === 1 ? literal_word(`${candidates[0]}${equals === -1 ? "" : word.value.slice(equals)}`) : word;
    });
  };
}

/**
 * A key or client certificate the program signs with (`ssh -i`, `curl --key`): it never leaves the machine — the
 * program proves with it who the user is — so it is not a read of a secret to deny, but the command acts with the
 * user's identity, which asks.
 */
export function signs_with(via: string): ValueKind {
  return { judge: (word, matched) => matched.ask(`${via} authenticates with the key or certificate ${word.value}`, "credential_sensitive") };
}

/**
 * `[user@]host:path` and `host::module` (scp, rsync): a colon before any slash, and not first. A bracketed IPv6
 * address may hold colons (`[::1]:path`). `scp://` and `rsync://` URLs are remote too.
 */
export function is_remote(word: ShellWord): boolean {
  const text = plain(word);
  if (/^(scp|rsync|sftp):\/\//i.test(text)) return true;
  const unbracketed = text.replace(/\[[^\]/]*\]/g, "x");
  const at = unbracketed.search(/[:/]/);
  return at > 0 && unbracketed.charAt(at) === ":";
}

import { is_credential_variable } from "./credentials.js";

/**
 * Scrubs keys and tokens from everything air writes down — events, artifacts, logs (seeds 000 §9.2,
 * §16.2). Two kinds of knowledge: the shapes of well-known credentials, and the exact values of the
 * secrets this process holds (credential environment variables, keys the provider layer loaded).
 *
 * Speed is part of the contract: it runs on every event payload and every command output. Every pattern
 * starts with a literal and ends in a greedy run with nothing after it that can fail, so no input makes
 * the engine rescan a long run from many starts (linear time, no catastrophic backtracking); structural
 * checks that a regex would do by backtracking (is this run a JWT? does this value look secret?) are
 * done in the replacement callback instead.
 */

/** A value to replace wherever it occurs; `label` is the hint left in its place. */
export type KnownSecret = { readonly label: string; readonly value: string };

/** Shorter values would redact ordinary words and are not real secrets anyway. */
const MIN_SECRET_LENGTH = 8;

function redaction_mark(hint: string): string {
  return `[REDACTED:${hint}]`;
}

const ALREADY_REDACTED = "[REDACTED:";

/** Well-known token shapes (case-sensitive). Named groups are the hints. */
const TOKEN_PATTERN = new RegExp(
  [
    String.raw`(?<![A-Za-z0-9])(?<sk>sk-[A-Za-z0-9_-]{20,})`,
    String.raw`(?<![A-Za-z0-9])(?<stripe_key>[sr]k_(?:live|test)_[A-Za-z0-9]{16,})`,
    String.raw`(?<github_token>gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`,
    String.raw`(?<gitlab_token>glpat-[A-Za-z0-9_-]{20,})`,
    String.raw`(?<slack_token>xox[abprs]-[A-Za-z0-9-]{10,})`,
    String.raw`(?<![A-Z0-9])(?<aws_access_key_id>(?:AKIA|ASIA)[A-Z0-9]{16})(?![A-Za-z0-9])`,
    String.raw`(?<google_api_key>AIza[A-Za-z0-9_-]{35})(?![A-Za-z0-9_-])`,
    String.raw`(?<![A-Za-z0-9])(?<npm_token>npm_[A-Za-z0-9]{36})(?![A-Za-z0-9])`,
    String.raw`(?<![A-Za-z0-9_-])(?<jwt>eyJ[A-Za-z0-9_.=-]{20,})`,
  ].join("|"),
  "g",
);

const KEY_NAMES = String.raw`aws_secret_access_key|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|passphrase|passw(?:or)?d|secret|token`;
const VALUE_STOP = String.raw`\s"'\x60&,;()\[\]{}<>`;

/** Credentials recognised by their context: a header, a URL's user info, a `key = value` (case-insensitive). */
const CONTEXT_PATTERN = new RegExp(
  [
    String.raw`(?<auth_prefix>authorization["']?[ \t]*[:=][ \t]*["']?(?:(?:bearer|basic|token|digest)[ \t]+)?)(?<authorization>[A-Za-z0-9._~+/=-]{8,})`,
    String.raw`(?<bearer_prefix>bearer[ \t]+)(?<bearer>[A-Za-z0-9._~+/=-]{16,})`,
    String.raw`(?<url_prefix>://)(?<userinfo>[^\s/?#@]+)@`,
    String.raw`(?<key>${KEY_NAMES})(?<separator>["']?[ \t]*(?:=>|:=|=|:)[ \t]*)` +
      String.raw`(?:(?<quote>["'\x60])(?<quoted>[^"'\x60\s]{6,512})\k<quote>|(?<bare>[^${VALUE_STOP}=][^${VALUE_STOP}]{7,511}))`,
  ].join("|"),
  "gi",
);

/** A cheap first look: a string with none of these cannot hold anything the patterns above redact. */
const TRIGGERS = String.raw`sk-|[sr]k_|gh[pousr]_|github_pat_|glpat-|xox[abprs]-|akia|asia|aiza|npm_|eyj|-----begin|authorization|bearer|://|passw|passphrase|token|secret|api[_-]?key|access[_-]?key|private[_-]?key`;

const PEM_BEGIN = "-----BEGIN ";
const PEM_HEADER = /-----BEGIN [A-Z0-9 ]{0,40}?PRIVATE KEY(?: BLOCK)?-----/y;

function escape_regex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const has_digit = (text: string) => /[0-9]/.test(text);
const has_letter = (text: string) => /[A-Za-z]/.test(text);

function sk_hint(token: string): string | undefined {
  if (token.startsWith("sk-ant-")) return "anthropic_key";
  if (token.startsWith("sk-or-")) return "openrouter_key";
  // A bare `sk-` run is also kebab-case prose (`sk-learn-…`); real OpenAI keys carry digits.
  return has_digit(token) ? "openai_key" : undefined;
}

function is_jwt(run: string): boolean {
  const parts = run.split(".");
  const [header = "", payload = ""] = parts;
  return parts.length === 3 && payload.startsWith("eyJ") && header.length >= 10 && payload.length >= 10;
}

function replace_token(match: string, groups: Record<string, string | undefined>): string {
  if (groups.sk !== undefined) {
    const hint = sk_hint(match);
    return hint === undefined ? match : redaction_mark(hint);
  }
  if (groups.jwt !== undefined) {
    // The run may take in the full stop that ends a sentence.
    const token = match.replace(/\.+$/, "");
    return is_jwt(token) ? redaction_mark("jwt") + match.slice(token.length) : match;
  }
  const hint = Object.keys(groups).find((name) => groups[name] !== undefined);
  return hint === undefined ? match : redaction_mark(hint);
}

function key_hint(key: string): string {
  const name = key.toLowerCase().replace(/[-_]/g, "");
  if (name === "awssecretaccesskey") return "aws_secret_key";
  if (name.startsWith("pass")) return "password";
  if (name === "token" || name === "authtoken") return "token";
  if (name === "apikey") return "api_key";
  if (name === "accesskey" || name === "privatekey") return name.replace("key", "_key");
  return "secret";
}

/**
 * Whether the value after `password =` is a credential or code: a quoted literal is, unless it is a
 * template; a bare word needs a digit and a letter, so `password=password` (a keyword argument) and
 * `token: string` (a type) stay, while `password=hunter22` goes.
 */
function looks_secret(value: string, quoted: boolean, hint: string): boolean {
  if (value.startsWith(ALREADY_REDACTED) || /^[$<%{]/.test(value)) return false;
  if (quoted || hint === "aws_secret_key") return true;
  return has_digit(value) && has_letter(value);
}

function replace_context(match: string, groups: Record<string, string | undefined>): string {
  if (groups.authorization !== undefined) {
    return groups.authorization.startsWith(ALREADY_REDACTED) ? match : `${groups.auth_prefix}${redaction_mark("authorization")}`;
  }
  if (groups.bearer !== undefined) return has_digit(groups.bearer) ? `${groups.bearer_prefix}${redaction_mark("bearer_token")}` : match;
  if (groups.userinfo !== undefined) {
    const colon = groups.userinfo.indexOf(":");
    const password = colon < 0 ? "" : groups.userinfo.slice(colon + 1);
    if (password === "" || password.startsWith(ALREADY_REDACTED)) return match;
    return `://${groups.userinfo.slice(0, colon + 1)}${redaction_mark("url_password")}@`;
  }
  const { key, quoted } = groups;
  const value = quoted ?? groups.bare;
  if (key === undefined || value === undefined) return match;
  const hint = key_hint(key);
  if (!looks_secret(value, quoted !== undefined, hint)) return match;
  const quote = groups.quote ?? "";
  return `${key}${groups.separator}${quote}${redaction_mark(hint)}${quote}`;
}

function replace_private_keys(text: string): string {
  let start = text.indexOf(PEM_BEGIN);
  if (start < 0) return text;
  let result = "";
  let copied = 0;
  while (start >= 0) {
    PEM_HEADER.lastIndex = start;
    if (!PEM_HEADER.test(text)) {
      start = text.indexOf(PEM_BEGIN, start + PEM_BEGIN.length);
      continue;
    }
    // A block cut off before its END line (the tail of a log) is still a key: redact to the end.
    const end_line = text.indexOf("-----END ", PEM_HEADER.lastIndex);
    const close = end_line < 0 ? -1 : text.indexOf("-----", end_line + "-----END ".length);
    const stop = close < 0 ? text.length : close + "-----".length;
    result += text.slice(copied, start) + redaction_mark("private_key");
    copied = stop;
    start = text.indexOf(PEM_BEGIN, stop);
  }
  return result + text.slice(copied);
}

function is_plain_object(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * Values of credential variables worth redacting by value. Paths and plain URLs are skipped: a variable
 * like `HF_HOME` matches the provider pattern but holds a folder, and redacting it everywhere would
 * mangle every path under it.
 */
export function credential_env_secrets(env: NodeJS.ProcessEnv = process.env): KnownSecret[] {
  return Object.entries(env)
    .flatMap(([name, value]) => (value !== undefined && is_credential_variable(name) ? [{ label: name, value }] : []))
    .filter(({ value }) => !/^(\/|~|\.{1,2}\/|https?:\/\/[^@]*$)/.test(value) && !/\s/.test(value) && !/^\d+$/.test(value));
}

export class SecretRedactor {
  readonly #labels = new Map<string, string>();
  #exact: RegExp | undefined;
  #trigger = new RegExp(TRIGGERS, "i");

  constructor(known: Iterable<KnownSecret> = []) {
    for (const secret of known) this.#remember(secret);
    this.#compile();
  }

  /** Adds a secret loaded after construction (a key read from models.yaml). */
  add(secret: KnownSecret): void {
    if (this.#remember(secret)) this.#compile();
  }

  /** `text` with every known secret and every credential-shaped token replaced by `[REDACTED:<hint>]`. */
  redact(text: string): string {
    if (text.length < MIN_SECRET_LENGTH || !this.#trigger.test(text)) return text;
    // biome-ignore lint/style/noNonNullAssertion: #exact alternates exactly the keys of #labels, so what it matched is one
    let result = this.#exact === undefined ? text : text.replace(this.#exact, (value) => redaction_mark(this.#labels.get(value)!));
    result = replace_private_keys(result);
    result = result.replace(TOKEN_PATTERN, (match: string, ...rest: unknown[]) => replace_token(match, rest.at(-1) as Record<string, string | undefined>));
    return result.replace(CONTEXT_PATTERN, (match: string, ...rest: unknown[]) => replace_context(match, rest.at(-1) as Record<string, string | undefined>));
  }

  /**
   * A JSON-like value with every string in it redacted (object keys are names, not data, and stay). The
   * same reference comes back when nothing changed, so callers can skip work with `===`.
   */
  redact_value<T>(value: T): T {
    if (typeof value === "string") return this.redact(value) as T;
    if (Array.isArray(value)) {
      const items = value.map((item: unknown) => this.redact_value(item));
      return (items.some((item, index) => item !== value[index]) ? items : value) as T;
    }
    if (!is_plain_object(value)) return value;
    let changed: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const redacted = this.redact_value(item);
      if (redacted === item) continue;
      changed ??= { ...value };
      changed[key] = redacted;
    }
    return (changed ?? value) as T;
  }

  #remember(secret: KnownSecret): boolean {
    if (secret.value.length < MIN_SECRET_LENGTH || this.#labels.has(secret.value)) return false;
    this.#labels.set(secret.value, secret.label);
    return true;
  }

  #compile(): void {
    // Longest first, so a secret that contains another is replaced whole.
    const values = [...this.#labels.keys()].sort((a, b) => b.length - a.length).map(escape_regex);
    this.#exact = values.length === 0 ? undefined : new RegExp(values.join("|"), "g");
    this.#trigger = new RegExp(values.length === 0 ? TRIGGERS : `${TRIGGERS}|${values.join("|")}`, "i");
  }
}

let shared: SecretRedactor | undefined;

/** The process's redactor, created on first use with the values of its credential environment variables. */
export function default_redactor(): SecretRedactor {
  shared ??= new SecretRedactor(credential_env_secrets());
  return shared;
}

import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/**
 * yaml is loaded when a file is first read, not with this module: the logger imports it on every session
 * start (through the EventBus) and reads configuration only when something is logged; yaml costs ~100 ms cold.
 */
const load_yaml = () => createRequire(import.meta.url)("yaml") as typeof import("yaml");

/**
 * Where a configuration file keeps secrets, by the names around them: `api_key`, `token`, `password`,
 * credentials.yaml's `keys`, and every value of an `env` or `headers` map (.mcp.json, models.yaml), whose
 * names are harmless but whose values are often keys. Only strings are secrets: `max_tokens: 8192` stays.
 */
const SECRET_NAME = /api[_-]?key|apikey|token|secret|passw|credential|auth|cookie|private[_-]?key|^keys?$|_key$/i;
/** `auth_ref: anthropic`, `api_key_env: ANTHROPIC_API_KEY`: names of where a key is, not keys. */
const REFERENCE_NAME = /_(ref|env)$/i;
const SECRET_MAPS = new Set(["env", "headers"]);

function is_secret_name(key: string): boolean {
  return SECRET_MAPS.has(key) || (SECRET_NAME.test(key) && !REFERENCE_NAME.test(key));
}

export const REMOVED = "[REMOVED]";

function is_record(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Walks `value`, handing each string to `visit` with whether it sits under a secret name. */
function map_strings(value: unknown, secret: boolean, visit: (text: string, secret: boolean) => string): unknown {
  if (typeof value === "string") return visit(value, secret);
  if (Array.isArray(value)) return value.map((item) => map_strings(item, secret, visit));
  if (!is_record(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, map_strings(item, secret || is_secret_name(key), visit)]));
}

/** `value` with every secret string replaced by `[REMOVED]`, and `redact` run over the strings left. */
export function scrub_config(value: unknown, redact: (text: string) => string): unknown {
  return map_strings(value, false, (text, secret) => (secret ? REMOVED : redact(text)));
}

/** The secret strings of `value`, so a logger can redact them wherever they turn up. */
function secret_strings(value: unknown): string[] {
  const found: string[] = [];
  map_strings(value, false, (text, secret) => {
    if (secret) found.push(text);
    return text;
  });
  return found;
}

/** The air home's files that may hold keys: the provider settings, the credentials, the MCP servers. */
const SECRET_FILES = ["models.yaml", "credentials.yaml", "config.yaml", "mcp.json"];

/**
 * Values worth redacting by value: a path, a plain URL, a `${VAR}` template or a number under `env` is
 * no secret, and redacting it everywhere would mangle every log line that names it.
 */
function worth_redacting(value: string): boolean {
  return !/^(\/|~|\.{1,2}\/|\$\{|https?:\/\/[^@]*$)/.test(value) && !/\s/.test(value) && !/^\d+$/.test(value);
}

/** The secrets of a configuration file (YAML or JSON); a missing or broken file has none to give. */
export function file_secrets(file: string): string[] {
  try {
    return secret_strings(load_yaml().parse(fs.readFileSync(file, "utf8"))).filter(worth_redacting);
  } catch {
    return [];
  }
}

export function home_config_secrets(home: string): string[] {
  return SECRET_FILES.flatMap((name) => file_secrets(path.join(home, name)));
}

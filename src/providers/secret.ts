import { inspect } from "node:util";

const REDACTED = "[redacted]";

/**
 * A credential that cannot leak by accident: `JSON.stringify`, `console.log`, template strings and
 * `util.inspect` all print "[redacted]". Only `reveal()` gives the value, and only the SDK client gets it.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  // biome-ignore lint/style/useNamingConvention: the name JSON.stringify calls
  toJSON(): string {
    return REDACTED;
  }

  // biome-ignore lint/style/useNamingConvention: the name string conversion calls
  toString(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

/** `text` with every occurrence of each secret replaced, for messages that came from outside (SDK, server). */
export function redact(text: string, secrets: readonly Secret[]): string {
  let result = text;
  for (const secret of secrets) {
    const value = secret.reveal();
    // Very short values would mangle ordinary words and are not real keys anyway.
    if (value.length >= 8) result = result.split(value).join(REDACTED);
  }
  return result;
}

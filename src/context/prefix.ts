/**
 * Prefix stability of a session's model requests, from their recorded wire bodies (Anthropic Messages or
 * OpenAI Chat Completions): how much of each request repeats the previous one byte for byte, in the order a
 * prompt cache reads it — tools, system, then the messages.
 */

type Body = { readonly tools?: unknown; readonly system?: unknown; readonly messages?: unknown };
type WireMessage = { readonly role?: unknown; readonly content?: unknown };

type PrefixTurn = {
  /** 1 for the first request. */
  readonly turn: number;
  readonly bytes: number;
  /** Bytes at the start of this request that are the previous request's, as a cache sees them. */
  readonly cache_eligible_bytes: number;
  readonly cache_eligible_ratio: number;
  /** ≈ bytes / 4, the estimate the assembler uses. */
  readonly input_tokens: number;
  readonly cache_eligible_tokens: number;
  /**
   * Everything of the previous request before its newest turn (tools, system, the older messages) starts this
   * request, byte-identical as sent. Always true for the first request.
   */
  readonly prefix_identical: boolean;
};

export type PrefixReport = {
  readonly turns: readonly PrefixTurn[];
  readonly all_prefixes_identical: boolean;
  /** Cache-eligible bytes over input bytes of the requests after the second, taken together (1 when there are none). */
  readonly ratio_after_second: number;
  /** The lowest single-request ratio after the second request. */
  readonly min_ratio_after_second: number;
};

function messages_of(body: Body): WireMessage[] {
  return Array.isArray(body.messages) ? (body.messages as WireMessage[]) : [];
}

/** The newest turn: what follows the last assistant message (user text or tool results), system messages aside. */
function newest_turn_start(messages: readonly WireMessage[]): number {
  const last_assistant = messages.findLastIndex((message) => message.role === "assistant");
  if (last_assistant >= 0) return last_assistant + 1;
  const first_other = messages.findIndex((message) => message.role !== "system");
  return first_other === -1 ? messages.length : first_other;
}

/** The request as sent, in cache order: one string per part. */
function segments(body: Body): string[] {
  return [JSON.stringify(body.tools ?? null), JSON.stringify(body.system ?? null), ...messages_of(body).map((message) => JSON.stringify(message))];
}

/**
 * As a cache compares them: a breakpoint marker is not content (the adapter moves its tail breakpoint every
 * turn), and a string content is the one text block it stands for.
 */
function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalized);
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value).filter(([key]) => key !== "cache_control");
  const object = Object.fromEntries(entries.map(([key, inner]) => [key, normalized(inner)]));
  if (typeof object.role === "string" && typeof object.content === "string" && object.role !== "system" && object.role !== "tool") {
    object.content = [{ type: "text", text: object.content }];
  }
  return object;
}

function normalized_segments(body: Body): string[] {
  return segments(normalized(body) as Body);
}

function common_bytes(previous: readonly string[], current: readonly string[]): number {
  let bytes = 0;
  for (const [index, part] of current.entries()) {
    if (previous[index] !== part) break;
    bytes += Buffer.byteLength(part);
  }
  return bytes;
}

function byte_total(parts: readonly string[]): number {
  return parts.reduce((total, part) => total + Buffer.byteLength(part), 0);
}

/** The report over a session's requests, in the order they were sent. */
export function prefix_report(bodies: readonly Body[]): PrefixReport {
  const turns: PrefixTurn[] = [];
  let eligible_later = 0;
  let bytes_later = 0;
  bodies.forEach((body, index) => {
    const current = normalized_segments(body);
    const bytes = byte_total(current);
    const previous = index === 0 ? undefined : bodies[index - 1];
    const eligible = previous === undefined ? 0 : common_bytes(normalized_segments(previous), current);
    let identical = true;
    if (previous !== undefined) {
      const stable = 2 + newest_turn_start(messages_of(previous));
      const before = segments(previous).slice(0, stable);
      const now = segments(body);
      identical = before.every((part, at) => part === now[at]);
    }
    turns.push({
      turn: index + 1,
      bytes,
      cache_eligible_bytes: eligible,
      cache_eligible_ratio: bytes === 0 ? 0 : eligible / bytes,
      input_tokens: Math.ceil(bytes / 4),
      cache_eligible_tokens: Math.floor(eligible / 4),
      prefix_identical: identical,
    });
    if (index >= 2) {
      eligible_later += eligible;
      bytes_later += bytes;
    }
  });
  const later = turns.slice(2).map((turn) => turn.cache_eligible_ratio);
  return {
    turns,
    all_prefixes_identical: turns.every((turn) => turn.prefix_identical),
    ratio_after_second: bytes_later === 0 ? 1 : eligible_later / bytes_later,
    min_ratio_after_second: later.length === 0 ? 1 : Math.min(...later),
  };
}

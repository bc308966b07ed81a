import { describe_matcher, describe_request, refines, request_matches, type MatchedRequest } from "./conversation.js";
import { expectation_mismatches } from "./expectations.js";
import type { Conversation, Script, Turn } from "./script.js";

/** The turn that answers a request: its index in its list, the conversation it belongs to, and how long to wait first. */
export type PickedTurn = { readonly turn: Turn; readonly index: number; readonly conversation?: string; readonly delay_ms: number };

/** Why a request gets no turn: a sentence for the 400, and the turn it was held against, if any. */
type TurnRefusal = { readonly reason: string; readonly index?: number; readonly conversation?: string };

export type Pick = { readonly ok: true; readonly picked: PickedTurn } | { readonly ok: false; readonly refusal: TurnRefusal };

const PREFIX = "scripted model server:";

/**
 * Hands out the script's turns. A conversation's cursor moves only with the requests its matcher selects,
 * a requester's only with its requests no conversation selects, so concurrent workers never take each
 * other's turns. A cursor moves when a request arrives, before any delay, so arrival order alone decides.
 */
export class TurnPicker {
  readonly #script: Script;
  readonly #default_delay_ms: number;
  readonly #conversation_cursors = new Map<string, number>();
  readonly #requester_cursors = new Map<string, number>();

  /** `default_delay_ms`: the delay of a turn whose conversation and script set none (the server's `delay_ms` option). */
  constructor(script: Script, default_delay_ms = 0) {
    this.#script = script;
    this.#default_delay_ms = default_delay_ms;
  }

  pick(request: MatchedRequest): Pick {
    const matching = this.#script.conversations.filter((conversation) => request_matches(conversation.match, request));
    const conversation = most_specific(matching);
    if (conversation === undefined && matching.length > 0) {
      const names = matching.map((c) => `"${c.name}"`).join(", ");
      return refuse(
        `${PREFIX} the request matches more than one conversation (${names}) and no one of them refines all the others; make their matchers disjoint, or one of them the others' conditions and more. The request: ${describe_request(request)}`,
      );
    }
    if (conversation !== undefined) return this.#from_conversation(conversation, request);
    return this.#from_requester(request);
  }

  #from_conversation(conversation: Conversation, request: MatchedRequest): Pick {
    const index = this.#conversation_cursors.get(conversation.name) ?? 0;
    const turn = conversation.turns[index];
    if (turn === undefined) {
      return refuse(
        `${PREFIX} conversation "${conversation.name}" has no turn left (it has ${conversation.turns.length}; ` +
          `this is its request ${index + 1}). The request: ${describe_request(request)}`,
        { index, conversation: conversation.name },
      );
    }
    this.#conversation_cursors.set(conversation.name, index + 1);
    const label = `turn ${index} of conversation "${conversation.name}"`;
    return this.#checked(
      { turn, index, conversation: conversation.name, delay_ms: turn.delay_ms ?? conversation.delay_ms ?? this.#default_delay() },
      label,
      request,
    );
  }

  #from_requester(request: MatchedRequest): Pick {
    const { requester } = request;
    const turns = this.#script.turns[requester] ?? [];
    const index = this.#requester_cursors.get(requester) ?? 0;
    const turn = turns[index];
    if (turn === undefined) {
      return refuse(
        `${PREFIX} the script has no turn left for requester "${requester}" (it has ${turns.length}; this is request ${index + 1} from "${requester}")` +
          `${this.#unmatched_note()}. The request: ${describe_request(request)}`,
        { index },
      );
    }
    this.#requester_cursors.set(requester, index + 1);
    return this.#checked({ turn, index, delay_ms: turn.delay_ms ?? this.#default_delay() }, `turn ${index} of requester "${requester}"`, request);
  }

  #checked(picked: PickedTurn, label: string, request: MatchedRequest): Pick {
    const mismatches = expectation_mismatches(picked.turn.expect, request.view);
    if (mismatches.length > 0) {
      return refuse(`${PREFIX} the request does not match ${label}: ${mismatches.join("; ")}`, { index: picked.index, conversation: picked.conversation });
    }
    return { ok: true, picked };
  }

  #default_delay(): number {
    return this.#script.delay_ms ?? this.#default_delay_ms;
  }

  /** What the conversations would have matched, so an unmatched worker shows which key it missed. */
  #unmatched_note(): string {
    const conversations = this.#script.conversations;
    if (conversations.length === 0) return "";
    return `, and no conversation matches it (${conversations.map((c) => `"${c.name}": ${describe_matcher(c.match)}`).join("; ")})`;
  }
}

/** The one conversation of several whose matcher refines every other's; undefined when there is none such. */
function most_specific(matching: readonly Conversation[]): Conversation | undefined {
  const [first, ...others] = matching;
  if (others.length === 0) return first;
  return matching.find((candidate) => matching.every((other) => other === candidate || refines(candidate.match, other.match)));
}

function refuse(reason: string, where: { readonly index?: number; readonly conversation?: string | undefined } = {}): Pick {
  return { ok: false, refusal: { reason, ...where } };
}

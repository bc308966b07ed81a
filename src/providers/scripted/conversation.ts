import * as v from "valibot";
import { TASK_SPEC_HEADING } from "../../context/layers.js";
import type { RequestView } from "./request-body.js";

const NonEmpty = v.pipe(v.string(), v.minLength(1));

/** A JavaScript regular expression, checked when the script is loaded rather than at the first request. */
const Pattern = v.pipe(
  NonEmpty,
  v.check((source) => {
    try {
      new RegExp(source, "m");
      return true;
    } catch {
      return false;
    }
  }, "not a valid regular expression"),
);

/** Milliseconds the server waits before it answers, as a real model takes time. */
export const DelayMs = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(600_000));

/**
 * Which requests a conversation answers: every condition given must hold. `task_title` is the title of the
 * task in the request's L5 task specification (the line `# Task specification: <title>` of the system
 * prompt), compared whole, so a fixture can say "this conversation is the worker of task X".
 */
export const RequestMatcher = v.pipe(
  v.strictObject({
    /** The `x-air-requester` header ("main" when absent): "executor" for a worker. */
    requester: v.optional(NonEmpty),
    task_title: v.optional(NonEmpty),
    system_contains: v.optional(NonEmpty),
    /** A regular expression the system prompt must match; multiline, so ^ and $ match at each line. */
    system_matches: v.optional(Pattern),
    /** The conversation's first user message: a worker's task instruction, the Main Agent's request. */
    first_user_contains: v.optional(NonEmpty),
  }),
  v.check((matcher) => Object.values(matcher).some((value) => value !== undefined), "a matcher needs at least one condition"),
);
export type RequestMatcher = v.InferOutput<typeof RequestMatcher>;

/** What a matcher looks at: the request as expectations see it, and who sent it. */
export type MatchedRequest = { readonly requester: string; readonly view: RequestView };

/** The title of the task whose L5 specification the system prompt carries; undefined when it carries none. */
function task_title_of(view: RequestView): string | undefined {
  const line = view.system.split("\n").find((text) => text.startsWith(TASK_SPEC_HEADING));
  return line?.slice(TASK_SPEC_HEADING.length).trim();
}

export function request_matches(matcher: RequestMatcher, request: MatchedRequest): boolean {
  const { view } = request;
  if (matcher.requester !== undefined && matcher.requester !== request.requester) return false;
  if (matcher.task_title !== undefined && matcher.task_title.trim() !== task_title_of(view)) return false;
  if (matcher.system_contains !== undefined && !view.system.includes(matcher.system_contains)) return false;
  if (matcher.system_matches !== undefined && !new RegExp(matcher.system_matches, "m").test(view.system)) return false;
  if (matcher.first_user_contains !== undefined && !view.first_user_text.includes(matcher.first_user_contains)) return false;
  return true;
}

/**
 * Whether `a` selects a subset of what `b` selects by its conditions alone: it has every condition of `b`,
 * with the same value, and at least one more. A retry's conversation (`task_title` and `first_user_contains`)
 * refines its task's first conversation (`task_title`), so the retried worker is answered by the former.
 */
export function refines(a: RequestMatcher, b: RequestMatcher): boolean {
  const own = Object.entries(a).filter(([, value]) => value !== undefined);
  const others = Object.entries(b).filter(([, value]) => value !== undefined);
  return own.length > others.length && others.every(([name, value]) => own.some(([key, mine]) => key === name && mine === value));
}

/** A matcher in one line, for the server's refusals. */
export function describe_matcher(matcher: RequestMatcher): string {
  return Object.entries(matcher)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name} ${JSON.stringify(value)}`)
    .join(", ");
}

/** A request in one line, for the server's refusals: who sent it and what a matcher could have keyed on. */
export function describe_request(request: MatchedRequest): string {
  const title = task_title_of(request.view);
  return [
    `requester "${request.requester}"`,
    title === undefined ? "no task specification" : `task_title ${JSON.stringify(title)}`,
    `system ${excerpt(request.view.system)}`,
    `first user message ${excerpt(request.view.first_user_text)}`,
  ].join(", ");
}

function excerpt(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}

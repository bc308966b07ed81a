import * as v from "valibot";
import { air_failure, is_air_failure, type AirFailure } from "../contracts/errors.js";
import { Reason } from "../contracts/events/common.js";
import { PermissionGrantScope } from "../contracts/events/permission.js";
import { PermissionPromptId } from "../contracts/ids.js";

/**
 * A user decision on its way from a UI to the runtime (seeds 000 §13.2, contracts §17): the only thing a
 * UI may ask of the runtime. Validated here, so the runtime side receives well-formed commands only.
 */
export const UiCommand = v.variant("type", [
  v.strictObject({
    type: v.literal("send_message"),
    text: v.pipe(
      v.string(),
      v.check((text) => text.trim().length > 0, "a message needs some text"),
      v.maxLength(200_000),
    ),
    /** Typed in direct mode (003 §10.5): for the running agent, not a new request to the Main Agent. */
    direct: v.optional(v.literal(true)),
    /** The user already waited for it (queued, or held before the runtime was ready): a turn still ending goes first; it is not refused. */
    after_turn: v.optional(v.literal(true)),
  }),
  v.strictObject({
    type: v.literal("answer_permission"),
    prompt_id: PermissionPromptId,
    answer: v.picklist(["allow", "deny"]),
    grant_scope: PermissionGrantScope,
    note: v.optional(Reason),
  }),
  v.strictObject({ type: v.literal("interrupt"), reason: Reason }),
  v.strictObject({ type: v.literal("compact") }),
  /** `/direct` enters direct mode, `/done` leaves it (evidence, summary, back to idle: 003 §10.5). */
  v.strictObject({ type: v.literal("direct_mode"), enabled: v.boolean() }),
  /** `/approve` runs the plan that waits for confirmation, `/reject` drops it unrecorded. */
  v.strictObject({ type: v.literal("plan_decision"), approve: v.boolean(), reason: v.optional(Reason) }),
]);
export type UiCommand = v.InferOutput<typeof UiCommand>;
export type UiCommandInput = v.InferInput<typeof UiCommand>;
export type UiCommandType = UiCommand["type"];
export type UiCommandOf<T extends UiCommandType> = Extract<UiCommand, { type: T }>;

type MessageOptions = { direct?: boolean; after_turn?: boolean };

/** What a UI is handed to send decisions with. */
export type UiCommandSender = {
  send(command: UiCommandInput): UiCommand;
  send_message(text: string, options?: MessageOptions): UiCommand;
  /**
   * Hands a message over unless the runtime must end its running turn first: then false, and nothing was
   * sent (the UI keeps it queued). Any other refusal throws.
   */
  offer_message(text: string, options?: { direct?: boolean }): boolean;
  answer_permission(prompt_id: string, answer: "allow" | "deny", grant_scope: PermissionGrantScope, note?: string): UiCommand;
  interrupt(reason?: string): UiCommand;
  compact(): UiCommand;
  direct_mode(enabled: boolean): UiCommand;
  decide_plan(approve: boolean, reason?: string): UiCommand;
};

type Handler = (command: UiCommand) => void;

const TURN_RUNNING = "turn_running";

/** A runtime's refusal of a message while a turn runs that cannot take it: the UI queues the message instead. */
export function turn_running_failure(): AirFailure {
  return air_failure({
    kind: "user_error",
    message: "a turn is still running; the message waits for it",
    retryability: "retryable",
    user_action: "The message is sent when the turn ends; press Esc to interrupt the turn.",
    metadata: { refusal: TURN_RUNNING },
  });
}

function is_turn_running(error: unknown): boolean {
  return is_air_failure(error) && error.error.metadata?.refusal === TURN_RUNNING;
}

/** A message held for a handler to come was accepted already: when it is delivered, it waits rather than being refused. */
function held(command: UiCommand): UiCommand {
  return command.type === "send_message" ? { ...command, after_turn: true } : command;
}

/**
 * A typed in-process queue from the UI to the runtime (V1 transport is a direct reference, seeds 000 §13.2).
 * Delivery is synchronous, so a handler that refuses a command (an answer to a prompt nobody asked)
 * throws to the sender. A command sent before anyone handles its type waits, in order, for the first
 * handler — the UI may take a message before the Main Agent is ready.
 */
export class UiCommandChannel implements UiCommandSender {
  readonly #handlers = new Map<UiCommandType, Set<Handler>>();
  readonly #queued: UiCommand[] = [];
  #closed = false;

  send(input: UiCommandInput): UiCommand {
    if (this.#closed) {
      throw air_failure({
        kind: "user_error",
        message: "the session has ended; the command was not sent",
        retryability: "not_retryable",
        user_action: "Resume the session with `air resume` to continue.",
      });
    }
    const parsed = v.safeParse(UiCommand, input);
    if (!parsed.success) {
      throw air_failure({
        kind: "user_error",
        message: `invalid UI command: ${v.summarize(parsed.issues)}`,
        retryability: "not_retryable",
        user_action: "This is a bug in the UI that sent it; report it.",
      });
    }
    const command = parsed.output;
    const handlers = this.#handlers.get(command.type);
    if (handlers === undefined || handlers.size === 0) this.#queued.push(held(command));
    else for (const handler of [...handlers]) handler(command);
    return command;
  }

  /** Handles commands of one type, starting with those queued for it; returns the unsubscribe. */
  on<T extends UiCommandType>(type: T, handler: (command: UiCommandOf<T>) => void): () => void {
    const handlers = this.#handlers.get(type) ?? new Set<Handler>();
    this.#handlers.set(type, handlers);
    handlers.add(handler as Handler);
    const waiting = this.#queued.filter((command) => command.type === type);
    if (waiting.length > 0) {
      this.#queued.splice(0, this.#queued.length, ...this.#queued.filter((command) => command.type !== type));
      for (const command of waiting) handler(command as UiCommandOf<T>);
    }
    return () => handlers.delete(handler as Handler);
  }

  send_message(text: string, options: MessageOptions = {}): UiCommand {
    return this.send({
      type: "send_message",
      text,
      ...(options.direct === true ? { direct: true as const } : {}),
      ...(options.after_turn === true ? { after_turn: true as const } : {}),
    });
  }

  offer_message(text: string, options: { direct?: boolean } = {}): boolean {
    try {
      this.send_message(text, options);
      return true;
    } catch (error) {
      if (is_turn_running(error)) return false;
      throw error;
    }
  }

  answer_permission(prompt_id: string, answer: "allow" | "deny", grant_scope: PermissionGrantScope, note?: string): UiCommand {
    return this.send({ type: "answer_permission", prompt_id, answer, grant_scope, ...(note === undefined ? {} : { note }) });
  }

  interrupt(reason = "interrupted by the user"): UiCommand {
    return this.send({ type: "interrupt", reason });
  }

  compact(): UiCommand {
    return this.send({ type: "compact" });
  }

  direct_mode(enabled: boolean): UiCommand {
    return this.send({ type: "direct_mode", enabled });
  }

  decide_plan(approve: boolean, reason?: string): UiCommand {
    return this.send({ type: "plan_decision", approve, ...(reason === undefined ? {} : { reason }) });
  }

  /** No more commands: later sends fail, queued ones are dropped. */
  close(): void {
    this.#closed = true;
    this.#queued.length = 0;
    this.#handlers.clear();
  }
}

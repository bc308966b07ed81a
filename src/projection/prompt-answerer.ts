import { air_failure } from "../contracts/errors.js";
import type { PermissionGrantScope } from "../contracts/events/permission.js";
import type { PermissionPrompt, PromptAnswer, PromptAnswerer } from "../permissions/prompts.js";
import type { ProjectionClient } from "./types.js";
import type { UiCommandChannel, UiCommandOf } from "./ui-command-channel.js";

type Waiter = { readonly prompt: PermissionPrompt; readonly resolve: (answer: PromptAnswer) => void };

export type UiPromptAnswerer = PromptAnswerer & { close(): void };

const CANCELLED: PromptAnswer = { answer: "deny", grant_scope: "once", resolved_by: "policy", note: "the call was cancelled while waiting" };

function refused(message: string, prompt_id: string) {
  return air_failure({
    kind: "user_error",
    message,
    retryability: "not_retryable",
    user_action: "Answer the permission prompt that is shown, with one of the scopes it offers.",
    metadata: { prompt_id },
  });
}

/**
 * The permission engine's `PromptAnswerer` for a UI: `answer(prompt)` waits until the user answers that
 * prompt through the channel. The engine records `permission.prompt.requested` before it asks, so the
 * projection already shows the prompt when the user can answer it. An answer to a prompt that is neither
 * awaited nor pending in the projection, or with a scope the prompt did not offer, is refused to the sender.
 * An answer that arrives before the engine asks (a resumed session's prompts are asked one after another)
 * is kept for that prompt.
 */
export function ui_prompt_answerer(channel: UiCommandChannel, projection: ProjectionClient): UiPromptAnswerer {
  const waiting = new Map<string, Waiter>();
  const early = new Map<string, PromptAnswer>();

  function offered_scopes(prompt_id: string): readonly PermissionGrantScope[] | undefined {
    const awaited = waiting.get(prompt_id);
    if (awaited !== undefined) return awaited.prompt.offered_scopes;
    return projection.snapshot().permission_prompts.find((prompt) => prompt.prompt_id === prompt_id && prompt.status === "pending")?.offered_scopes;
  }

  function on_answer(command: UiCommandOf<"answer_permission">): void {
    const { prompt_id, answer, grant_scope, note } = command;
    const offered = offered_scopes(prompt_id);
    if (offered === undefined) throw refused(`no permission prompt ${prompt_id} is waiting for an answer`, prompt_id);
    if (answer === "allow" && !offered.includes(grant_scope)) {
      throw refused(`prompt ${prompt_id} does not offer "${grant_scope}" (it offers ${offered.join(", ")})`, prompt_id);
    }
    const given: PromptAnswer = { answer, grant_scope, resolved_by: "user", ...(note === undefined ? {} : { note }) };
    const waiter = waiting.get(prompt_id);
    if (waiter === undefined) {
      early.set(prompt_id, given);
      return;
    }
    waiting.delete(prompt_id);
    waiter.resolve(given);
  }

  const unsubscribe = channel.on("answer_permission", on_answer);

  return {
    answer(prompt: PermissionPrompt, signal?: AbortSignal): Promise<PromptAnswer> {
      const given = early.get(prompt.prompt_id);
      early.delete(prompt.prompt_id);
      if (given !== undefined) return Promise.resolve(given);
      if (signal?.aborted === true) return Promise.resolve(CANCELLED);
      return new Promise((resolve) => {
        const on_abort = () => {
          waiting.delete(prompt.prompt_id);
          resolve(CANCELLED);
        };
        signal?.addEventListener("abort", on_abort, { once: true });
        waiting.set(prompt.prompt_id, {
          prompt,
          resolve: (answer) => {
            signal?.removeEventListener("abort", on_abort);
            resolve(answer);
          },
        });
      });
    },
    /** Stops listening; prompts still waiting are denied, so no tool call hangs. */
    close(): void {
      unsubscribe();
      for (const waiter of waiting.values())
        waiter.resolve({ answer: "deny", grant_scope: "once", resolved_by: "policy", note: "the UI closed before the prompt was answered" });
      waiting.clear();
      early.clear();
    },
  };
}

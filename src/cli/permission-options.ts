import * as v from "valibot";
import { air_failure } from "../contracts/errors.js";
import { PermissionMode } from "../contracts/events/permission.js";
import { DENY_PROMPTS, LinePromptAnswerer, type PromptAnswerer } from "../permissions/prompts.js";

/** `--prompts`: where permission prompts are answered. `auto` asks on a terminal and denies otherwise. */
const PROMPT_SOURCES = ["auto", "stdin", "policy"] as const;
export type PromptSource = (typeof PROMPT_SOURCES)[number];

/** What `air run` and `air resume` take about permissions, checked. */
export type PermissionOptions = { readonly mode?: PermissionMode; readonly prompts: PromptSource };

export function parse_permission_options(raw: { permission_mode?: string; prompts?: string }): PermissionOptions {
  let mode: PermissionMode | undefined;
  if (raw.permission_mode !== undefined) {
    const parsed = v.safeParse(PermissionMode, raw.permission_mode);
    if (!parsed.success) {
      throw air_failure({
        kind: "user_error",
        message: `unknown permission mode "${raw.permission_mode}"`,
        retryability: "not_retryable",
        user_action: `Use one of: ${PermissionMode.options.join(", ")}.`,
      });
    }
    mode = parsed.output;
  }
  const prompts = (raw.prompts ?? "auto") as PromptSource;
  if (!PROMPT_SOURCES.includes(prompts)) {
    throw air_failure({
      kind: "user_error",
      message: `unknown prompt source "${raw.prompts}"`,
      retryability: "not_retryable",
      user_action: `Use one of: ${PROMPT_SOURCES.join(", ")} (auto asks on a terminal and denies when there is none).`,
    });
  }
  return { ...(mode === undefined ? {} : { mode }), prompts };
}

/** The answerer for a run, and how to let go of standard input afterwards. */
export function prompt_answerer(source: PromptSource): { answerer: PromptAnswerer; close(): void } {
  const ask = source === "stdin" || (source === "auto" && process.stdin.isTTY === true);
  if (!ask) return { answerer: DENY_PROMPTS, close: () => undefined };
  const answerer = new LinePromptAnswerer(process.stdin, process.stderr);
  return { answerer, close: () => answerer.close() };
}

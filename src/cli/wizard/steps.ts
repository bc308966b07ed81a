import * as clack from "@clack/prompts";
import * as v from "valibot";
import type { PermissionMode } from "../../contracts/events/permission.js";
import { PROVIDER_ENV } from "../../providers/config.js";
import { HttpUrl, type ProviderId } from "../../providers/models-file.js";
import { DEMO_PROVIDER, type WizardProvider } from "./air-config.js";
import type { KeyChoice } from "./plan.js";

/** Thrown when the user cancels a prompt (Ctrl+C, Esc): the wizard then writes nothing. */
export class WizardCancelled extends Error {
  constructor() {
    super("setup cancelled");
  }
}

/** The prompt's answer, or WizardCancelled. */
export function answered<T>(value: T): Exclude<T, symbol> {
  if (clack.isCancel(value)) throw new WizardCancelled();
  return value as Exclude<T, symbol>;
}

/** What the user picks first: a provider, or a local server that speaks the OpenAI API at a usual address. */
export type ProviderChoice = { readonly provider: WizardProvider; readonly base_url?: string };

const CHOICES: ReadonlyArray<{ value: string; label: string; hint?: string; choice: ProviderChoice }> = [
  { value: "anthropic", label: "Anthropic", hint: "Claude", choice: { provider: "anthropic" } },
  { value: "openai", label: "OpenAI", choice: { provider: "openai" } },
  { value: "openrouter", label: "OpenRouter", hint: "many models, one key", choice: { provider: "openrouter" } },
  {
    value: "ollama",
    label: "Ollama",
    hint: "local, http://127.0.0.1:11434/v1",
    choice: { provider: "openai_compatible", base_url: "http://127.0.0.1:11434/v1" },
  },
  {
    value: "lmstudio",
    label: "LM Studio",
    hint: "local, http://127.0.0.1:1234/v1",
    choice: { provider: "openai_compatible", base_url: "http://127.0.0.1:1234/v1" },
  },
  { value: "vllm", label: "vLLM", hint: "http://127.0.0.1:8000/v1", choice: { provider: "openai_compatible", base_url: "http://127.0.0.1:8000/v1" } },
  {
    value: "custom",
    label: "Another OpenAI-compatible server",
    hint: "you give the URL",
    choice: { provider: "openai_compatible", base_url: "http://127.0.0.1:8080/v1" },
  },
  { value: "demo", label: "Offline demo", hint: "a scripted model, no key, nothing leaves the machine", choice: { provider: DEMO_PROVIDER } },
];

export async function ask_provider(): Promise<ProviderChoice> {
  const value = answered(await clack.select({ message: "Which model provider?", options: CHOICES.map(({ value, label, hint }) => ({ value, label, hint })) }));
  // biome-ignore lint/style/noNonNullAssertion: the select offered only CHOICES' values
  const picked = CHOICES.find((choice) => choice.value === value)!.choice;
  if (picked.provider !== "openai_compatible") return picked;
  const base_url = answered(
    await clack.text({
      message: "The server's base URL",
      initialValue: picked.base_url,
      validate: (text) => (v.is(HttpUrl, (text ?? "").trim()) ? undefined : "an http:// or https:// URL, e.g. http://127.0.0.1:11434/v1"),
    }),
  );
  return { provider: "openai_compatible", base_url: base_url.trim().replace(/\/+$/, "") };
}

/** The key: the provider's variable when it is set (kept there, not copied), else typed in, masked. */
export async function ask_key(provider: ProviderId, env: NodeJS.ProcessEnv): Promise<KeyChoice> {
  const variable = PROVIDER_ENV[provider].key;
  if (variable !== undefined && (env[variable]?.trim() ?? "") !== "") {
    const use_env = answered(
      await clack.select({
        message: `${variable} is set. Use it?`,
        options: [
          { value: true, label: `Use ${variable}`, hint: "read from the environment each run; nothing stored" },
          { value: false, label: "Enter another key", hint: "stored in ~/.air/credentials.yaml (mode 0600)" },
        ],
      }),
    );
    if (use_env) return { source: "env", variable };
  }
  const optional = provider === "openai_compatible";
  const typed = answered(
    await clack.password({
      message: optional ? "API key (leave empty if the server takes none)" : "API key (stored in ~/.air/credentials.yaml, mode 0600)",
      validate: (text) => (optional || (text ?? "").trim() !== "" ? undefined : "a key is needed"),
    }),
  );
  return typed.trim() === "" ? { source: "none" } : { source: "typed", value: typed.trim() };
}

const OTHER = "\u0000other";

/** A model of the provider's list, or any id typed in (a list may be long, or lack a new model). */
export async function ask_model(models: readonly string[], preferred: string | undefined): Promise<string> {
  if (models.length > 0) {
    const picked = answered(
      await clack.select({
        message: "Which model?",
        options: [...models.map((id) => ({ value: id, label: id })), { value: OTHER, label: "Another model id…" }],
        initialValue: preferred !== undefined && models.includes(preferred) ? preferred : models[0],
        maxItems: 12,
      }),
    );
    if (picked !== OTHER) return picked;
  }
  const typed = answered(await clack.text({ message: "Model id", validate: (text) => ((text ?? "").trim() === "" ? "a model id" : undefined) }));
  return typed.trim();
}

export async function ask_permission_mode(): Promise<PermissionMode> {
  return answered(
    await clack.select<PermissionMode>({
      message: "Default permission mode",
      options: [
        { value: "default", label: "default", hint: "ask before edits and commands that change things" },
        { value: "accept-edits", label: "accept-edits", hint: "edit project files freely, ask for the rest" },
        { value: "plan", label: "plan", hint: "read and plan only, change nothing" },
        { value: "bypass", label: "bypass", hint: "ask nothing (still never touches credentials or the system)" },
      ],
      initialValue: "default",
    }),
  );
}

/**
 * Runs `work` under a spinner; Ctrl+C while it runs cancels the wizard at once and aborts the request,
 * so no open socket keeps the process alive.
 */
export async function with_spinner<T>(message: string, work: (signal: AbortSignal) => Promise<T>, done: (value: T) => string): Promise<T> {
  const abort = new AbortController();
  const cancelled = new Promise<never>((_, reject) => {
    abort.signal.addEventListener("abort", () => reject(new WizardCancelled()));
  });
  const spin = clack.spinner({ onCancel: () => abort.abort(), cancelMessage: "Cancelled" });
  spin.start(message);
  // The spinner puts the terminal in raw mode and exits the process (code 0) on a raw Ctrl+C; in cooked
  // mode Ctrl+C is a SIGINT instead, which the spinner hands to onCancel: the wizard then ends as cancelled.
  if (process.stdin.isTTY) process.stdin.setRawMode(false);
  try {
    const value = await Promise.race([work(abort.signal), cancelled]);
    spin.stop(done(value));
    return value;
  } catch (error) {
    if (!(error instanceof WizardCancelled)) spin.error(error instanceof Error ? error.message : String(error));
    throw error;
  }
}

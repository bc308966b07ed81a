import path from "node:path";
import * as v from "valibot";
import { default_redactor } from "../permissions/secret-redactor.js";
import { air_failure, type AirFailure } from "../contracts/errors.js";
import { air_home, project_layout } from "../project/layout.js";
import { capability_matrix, type CapabilityMatrix } from "./capabilities.js";
import { DEFAULT_MODELS } from "./capability-defaults.js";
import {
  HttpUrl,
  MODELS_FILE_EXAMPLE,
  PROVIDER_IDS,
  models_file_path,
  read_models_file,
  read_project_models_file,
  type ModelsFile,
  type ProviderEntry,
  type ProviderId,
} from "./models-file.js";
import { credentials_file_path, resolve_auth_ref } from "./credentials-file.js";
import { Secret } from "./secret.js";

export { PROVIDER_IDS, type ProviderId } from "./models-file.js";

export const DEFAULT_MODEL_ID: string = DEFAULT_MODELS.anthropic;

/** Where a setting came from, for `air doctor`, `air provider list` and error messages. */
export type SettingSource = `env:${string}` | "models.yaml" | "credentials.yaml" | "default" | "unset";

/** The environment variables of each provider, and where it is when no base URL is configured. */
export const PROVIDER_ENV: Readonly<Record<ProviderId, { key?: string; base_url?: string; default_base_url?: string }>> = {
  anthropic: { key: "ANTHROPIC_API_KEY", base_url: "ANTHROPIC_BASE_URL", default_base_url: "https://api.anthropic.com" },
  openai: { key: "OPENAI_API_KEY", base_url: "OPENAI_BASE_URL", default_base_url: "https://api.openai.com/v1" },
  openrouter: { key: "OPENROUTER_API_KEY", default_base_url: "https://openrouter.ai/api/v1" },
  // Ollama, LM Studio, vLLM…: nothing to assume, the file names the server (and the key, if it takes one).
  openai_compatible: {},
};

/**
 * One provider's settings. The key is a Secret: serialised or printed it shows "[redacted]", so these
 * settings can be logged as they are.
 */
export type ProviderSettings = {
  readonly provider_id: ProviderId;
  readonly api_key: Secret | undefined;
  /** As configured; undefined means the provider's own (`PROVIDER_ENV[…].default_base_url`). */
  readonly base_url: string | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;
  readonly model_id: string;
  readonly models_file: string;
  readonly sources: { readonly api_key: SettingSource; readonly base_url: SettingSource; readonly model_id: SettingSource };
  /** The variables the key is looked for in, in order: the provider's own, then the one `api_key_env` names. */
  readonly key_variables: readonly string[];
  /** Whether requests need a key: a local server takes none, unless models.yaml names a variable for one. */
  readonly key_required: boolean;
};

/** Every provider of this machine and project: the one selected, the others on demand. */
export type ProviderConfig = {
  readonly selected: ProviderId;
  readonly selected_source: SettingSource;
  readonly models_file: string;
  readonly project_models_file: string | undefined;
  readonly matrix: CapabilityMatrix;
  /** Whether the provider has a key, or (openai_compatible) a server in models.yaml. */
  is_set_up(provider_id: ProviderId): boolean;
  /** Throws what is wrong with that provider's settings (a base URL that is not a URL, no server). */
  settings(provider_id: ProviderId): ProviderSettings;
};

export type LoadSettingsOptions = {
  readonly env?: NodeJS.ProcessEnv;
  /** The air home folder; default `air_home(env)`. */
  readonly home?: string;
  /** The project whose `.air/shared/models.yaml` corrects model capabilities; none when absent. */
  readonly project_root?: string;
};

function from_env(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

function env_base_url(env: NodeJS.ProcessEnv, variable: string | undefined): string | undefined {
  const value = variable === undefined ? undefined : from_env(env, variable);
  if (value !== undefined && !v.is(HttpUrl, value)) {
    throw air_failure({
      kind: "env_error",
      message: `${variable} is not an http(s) URL: ${JSON.stringify(value)}`,
      retryability: "not_retryable",
      user_action: `Set ${variable} to the server's base URL, e.g. http://127.0.0.1:8080${variable === "OPENAI_BASE_URL" ? "/v1" : ""}, or unset it.`,
      metadata: { variable },
    });
  }
  return value;
}

function key_variables(provider_id: ProviderId, entry: ProviderEntry | undefined): string[] {
  return [...new Set([PROVIDER_ENV[provider_id].key, entry?.api_key_env].filter((name): name is string => name !== undefined))];
}

/**
 * The provider's own variable, else the one `api_key_env` names, else the key `auth_ref` names in
 * credentials.yaml, else the file's `api_key`.
 */
function key_of(
  context: Pick<Context, "env" | "home" | "models_file">,
  provider_id: ProviderId,
  entry: ProviderEntry | undefined,
): { key?: string; source: SettingSource } {
  for (const name of key_variables(provider_id, entry)) {
    const value = from_env(context.env, name);
    if (value !== undefined) return { key: value, source: `env:${name}` };
  }
  if (entry?.auth_ref !== undefined) return { key: resolve_auth_ref(context.home, entry.auth_ref, context.models_file), source: "credentials.yaml" };
  if (entry?.api_key !== undefined) return { key: entry.api_key, source: "models.yaml" };
  return { source: "unset" };
}

type Context = { env: NodeJS.ProcessEnv; home: string; file: ModelsFile | undefined; models_file: string; selected: ProviderId };

function provider_settings(provider_id: ProviderId, context: Context): ProviderSettings {
  const { env, file, selected } = context;
  const entry = file?.providers?.[provider_id];
  if (provider_id === "openai_compatible" && entry === undefined) throw no_server_failure(context.models_file);
  const base_url_variable = PROVIDER_ENV[provider_id].base_url;
  const env_url = env_base_url(env, base_url_variable);
  const { key, source: key_source } = key_of(context, provider_id, entry);
  // A key from the environment is known to the redactor already; one from a file or a named variable is made known here.
  if (key !== undefined) default_redactor().add({ label: `${provider_id}_api_key`, value: key });
  const env_model = provider_id === selected ? from_env(env, "AIR_MODEL") : undefined;
  // The top-level default_model belongs to the file's default provider (to any selected one when it names none).
  const file_default = (file?.default_provider ?? selected) === provider_id ? file?.default_model : undefined;
  const file_model = entry?.default_model ?? file_default;
  const model_id = env_model ?? file_model ?? DEFAULT_MODELS[provider_id];
  if (model_id === undefined) throw no_model_failure(provider_id, context.models_file);
  return {
    provider_id,
    api_key: key === undefined ? undefined : new Secret(key),
    base_url: env_url ?? entry?.base_url,
    headers: entry?.headers,
    model_id,
    models_file: context.models_file,
    sources: {
      api_key: key_source,
      base_url: env_url !== undefined ? `env:${base_url_variable}` : entry?.base_url !== undefined ? "models.yaml" : "default",
      model_id: env_model !== undefined ? "env:AIR_MODEL" : file_model !== undefined ? "models.yaml" : "default",
    },
    key_variables: key_variables(provider_id, entry),
    key_required: provider_id !== "openai_compatible" || entry?.api_key_env !== undefined,
  };
}

export function no_server_action(models_file: string): string {
  return `Add the server under providers.openai_compatible in ${models_file}, e.g.\n\nproviders:\n  openai_compatible:\n    base_url: http://127.0.0.1:11434/v1\n    default_model: qwen2.5-coder:32b\n`;
}

function no_server_failure(models_file: string): AirFailure {
  return air_failure({
    kind: "user_error",
    message: `openai_compatible is selected but ${models_file} names no server for it`,
    retryability: "not_retryable",
    user_action: no_server_action(models_file),
    metadata: { provider_id: "openai_compatible", models_file },
  });
}

/** A local server serves whatever was pulled into it; air cannot guess which. */
function no_model_failure(provider_id: ProviderId, models_file: string): AirFailure {
  return air_failure({
    kind: "user_error",
    message: `no model is named for ${provider_id}`,
    retryability: "not_retryable",
    user_action: `Set AIR_MODEL, or default_model under providers.${provider_id} in ${models_file} (for Ollama, a name from \`ollama list\`).`,
    metadata: { provider_id, models_file },
  });
}

function is_set_up(context: Pick<Context, "env" | "home" | "models_file" | "file">, provider_id: ProviderId): boolean {
  const entry = context.file?.providers?.[provider_id];
  if (provider_id === "openai_compatible") return entry !== undefined;
  return key_of(context, provider_id, entry).key !== undefined;
}

/**
 * AIR_PROVIDER, else `default_provider` in models.yaml, else the first provider that is set up (a key, or
 * an `openai_compatible` server), else Anthropic — whose "no key" error then says how to configure one.
 */
function select_provider(context: Omit<Context, "selected">): { selected: ProviderId; source: SettingSource } {
  const { env, file } = context;
  const named = from_env(env, "AIR_PROVIDER");
  if (named !== undefined) {
    if (!(PROVIDER_IDS as readonly string[]).includes(named)) {
      throw air_failure({
        kind: "env_error",
        message: `AIR_PROVIDER names an unknown provider: ${JSON.stringify(named)}`,
        retryability: "not_retryable",
        user_action: `Set AIR_PROVIDER to one of ${PROVIDER_IDS.join(", ")}, or unset it.`,
        metadata: { variable: "AIR_PROVIDER" },
      });
    }
    return { selected: named as ProviderId, source: "env:AIR_PROVIDER" };
  }
  if (file?.default_provider !== undefined) return { selected: file.default_provider, source: "models.yaml" };
  return { selected: PROVIDER_IDS.find((id) => is_set_up(context, id)) ?? "anthropic", source: "default" };
}

/**
 * The environment and `~/.air/models.yaml` (the environment wins, setting by setting), plus the project's
 * capability corrections. Both files are read even when the environment has everything: a broken file is
 * reported rather than silently shadowed.
 */
export function load_provider_config(options: LoadSettingsOptions = {}): ProviderConfig {
  const env = options.env ?? process.env;
  const home = options.home ?? air_home(env);
  const models_file = models_file_path(home);
  const file = read_models_file(models_file);
  const project_models_file = options.project_root === undefined ? undefined : path.join(project_layout(options.project_root).shared, "models.yaml");
  const project_file = project_models_file === undefined ? undefined : read_project_models_file(project_models_file);
  const { selected, source } = select_provider({ env, home, file, models_file });
  const context: Context = { env, home, file, models_file, selected };
  // The selected provider is checked now, so that a broken setting stops a run before it starts.
  const chosen = provider_settings(selected, context);
  return {
    selected,
    selected_source: source,
    models_file,
    project_models_file,
    matrix: capability_matrix(
      { file: models_file, models: file?.models },
      project_models_file === undefined ? undefined : { file: project_models_file, models: project_file?.models },
    ),
    is_set_up: (provider_id) => is_set_up(context, provider_id),
    settings: (provider_id) => (provider_id === selected ? chosen : provider_settings(provider_id, context)),
  };
}

/** The selected provider's settings (see `load_provider_config`). */
export function load_provider_settings(options: LoadSettingsOptions = {}): ProviderSettings {
  const config = load_provider_config(options);
  return config.settings(config.selected);
}

/** What to do when the selected provider has no key; shows the real path of models.yaml. */
export function no_provider_action(models_file: string, provider_id: ProviderId = "anthropic", variables?: readonly string[]): string {
  if (provider_id === "anthropic" && (variables === undefined || variables.length === 1)) {
    return (
      "Set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for an Anthropic-compatible server), " +
      `or write ${models_file}, for example:\n\n${MODELS_FILE_EXAMPLE}\n`
    );
  }
  const names = variables ?? [PROVIDER_ENV[provider_id].key].filter((name) => name !== undefined);
  return `Set ${names.join(" or ")}, or api_key under providers.${provider_id} in ${models_file}.`;
}

/** Where the key of `settings` comes from, or is looked for first, as a person would check it. */
export function key_hint(settings: ProviderSettings): string {
  const { api_key } = settings.sources;
  const in_file = `api_key under providers.${settings.provider_id} in ${settings.models_file}`;
  if (api_key.startsWith("env:")) return api_key.slice("env:".length);
  if (api_key === "credentials.yaml")
    return `the key auth_ref names under providers.${settings.provider_id} in ${settings.models_file} (kept in ${credentials_file_path(path.dirname(settings.models_file))})`;
  return api_key === "models.yaml" ? in_file : (settings.key_variables[0] ?? in_file);
}

export function no_provider_failure(settings: ProviderSettings): AirFailure {
  const places = `${[...settings.key_variables].join(", ") || "the environment"} or in ${settings.models_file}`;
  return air_failure({
    kind: "env_error",
    message:
      settings.provider_id === "anthropic"
        ? `no model provider is configured: no API key in ${places}`
        : `no API key for ${settings.provider_id}: none in ${places}`,
    retryability: "not_retryable",
    user_action: no_provider_action(settings.models_file, settings.provider_id, settings.key_variables),
    metadata: { models_file: settings.models_file, provider_id: settings.provider_id },
  });
}

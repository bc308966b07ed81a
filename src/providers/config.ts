import * as v from "valibot";
import { default_redactor } from "../permissions/secret-redactor.js";
import { air_failure } from "../contracts/errors.js";
import { air_home } from "../project/layout.js";
import { models_file_path, read_models_file, MODELS_FILE_EXAMPLE } from "./models-file.js";
import { Secret } from "./secret.js";

export const DEFAULT_MODEL_ID = "claude-sonnet-4-5";

/** Where a setting came from, for `air doctor` and error messages: an env variable, the file, or a default. */
export type SettingSource = `env:${string}` | "models.yaml" | "default" | "unset";

/**
 * The provider settings of this machine. The key is a Secret: serialised or printed it shows
 * "[redacted]", so these settings can be logged as they are.
 */
export type ProviderSettings = {
  readonly provider_id: "anthropic";
  readonly api_key: Secret | undefined;
  readonly base_url: string | undefined;
  readonly model_id: string;
  readonly models_file: string;
  readonly sources: { readonly api_key: SettingSource; readonly base_url: SettingSource; readonly model_id: SettingSource };
};

export type LoadSettingsOptions = {
  readonly env?: NodeJS.ProcessEnv;
  /** The air home folder; default `air_home(env)`. */
  readonly home?: string;
};

function from_env(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/**
 * ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL and AIR_MODEL, each falling back to `models.yaml` in the air home.
 * The environment wins, setting by setting. The file is read even when the environment has everything:
 * a broken file is reported rather than silently shadowed.
 */
export function load_provider_settings(options: LoadSettingsOptions = {}): ProviderSettings {
  const env = options.env ?? process.env;
  const models_file = models_file_path(options.home ?? air_home(env));
  const file = read_models_file(models_file);
  const anthropic = file?.providers?.anthropic;

  const env_key = from_env(env, "ANTHROPIC_API_KEY");
  const env_base_url = from_env(env, "ANTHROPIC_BASE_URL");
  const env_model = from_env(env, "AIR_MODEL");
  if (env_base_url !== undefined && !v.is(v.pipe(v.string(), v.url()), env_base_url)) {
    throw air_failure({
      kind: "env_error",
      message: `ANTHROPIC_BASE_URL is not a URL: ${JSON.stringify(env_base_url)}`,
      retryability: "not_retryable",
      user_action: "Set ANTHROPIC_BASE_URL to the server's base URL, e.g. https://api.anthropic.com, or unset it.",
    });
  }

  const key = env_key ?? anthropic?.api_key;
  // Keys from the environment are known to the redactor already; one from models.yaml is made known here.
  if (anthropic?.api_key !== undefined) default_redactor().add({ label: "models_yaml_key", value: anthropic.api_key });
  const base_url = env_base_url ?? anthropic?.base_url;
  return {
    provider_id: "anthropic",
    api_key: key === undefined ? undefined : new Secret(key),
    base_url,
    model_id: env_model ?? file?.default_model ?? DEFAULT_MODEL_ID,
    models_file,
    sources: {
      api_key: env_key !== undefined ? "env:ANTHROPIC_API_KEY" : anthropic?.api_key !== undefined ? "models.yaml" : "unset",
      base_url: env_base_url !== undefined ? "env:ANTHROPIC_BASE_URL" : anthropic?.base_url !== undefined ? "models.yaml" : "default",
      model_id: env_model !== undefined ? "env:AIR_MODEL" : file?.default_model !== undefined ? "models.yaml" : "default",
    },
  };
}

/** What to do when no key is configured anywhere; shows the real path of models.yaml. */
export function no_provider_action(models_file: string): string {
  return (
    "Set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for an Anthropic-compatible server), " +
    `or write ${models_file}, for example:\n\n${MODELS_FILE_EXAMPLE}\n`
  );
}

export function no_provider_failure(settings: ProviderSettings) {
  return air_failure({
    kind: "env_error",
    message: "no model provider is configured: no API key in ANTHROPIC_API_KEY or in " + settings.models_file,
    retryability: "not_retryable",
    user_action: no_provider_action(settings.models_file),
    metadata: { models_file: settings.models_file },
  });
}

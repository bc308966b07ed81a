import * as clack from "@clack/prompts";
import { is_air_failure } from "../../contracts/errors.js";
import { default_redactor } from "../../permissions/secret-redactor.js";
import { DEFAULT_MODELS } from "../../providers/capability-defaults.js";
import { PROVIDER_ENV } from "../../providers/config.js";
import type { ProviderId } from "../../providers/models-file.js";
import { start_scripted_server } from "../../providers/scripted/server.js";
import { DEMO_PROVIDER } from "./air-config.js";
import { list_models } from "./model-list.js";
import type { KeyChoice, WizardChoices } from "./plan.js";
import { answered, ask_key, ask_model, ask_permission_mode, ask_provider, with_spinner, WizardCancelled } from "./steps.js";

/** The demo's model list comes from the scripted server itself, asked through the real Anthropic SDK as `air e2e` does. */
async function demo_models(signal: AbortSignal): Promise<string[]> {
  const server = await start_scripted_server({ script: { turns: {} } });
  try {
    return await list_models({ provider_id: "anthropic", base_url: server.url, api_key: "scripted-demo-key" }, signal);
  } finally {
    await server.close();
  }
}

function key_value(key: KeyChoice, env: NodeJS.ProcessEnv): string | undefined {
  if (key.source === "env") return env[key.variable]?.trim();
  return key.source === "typed" ? key.value : undefined;
}

/** Where requests go: what was typed for a server, else the variable the runtime also honours, else the provider's own. */
function base_url_for(provider: ProviderId, typed: string | undefined, env: NodeJS.ProcessEnv): string {
  const variable = PROVIDER_ENV[provider].base_url;
  const from_env = variable === undefined ? undefined : env[variable]?.trim();
  return typed ?? (from_env !== undefined && from_env !== "" ? from_env : (PROVIDER_ENV[provider].default_base_url ?? ""));
}

type Connected = { readonly key: KeyChoice; readonly models: readonly string[] };

/** Key, then a model list as the connection test; on failure: another key, save unchecked, or cancel. */
async function connect(provider: ProviderId, typed_url: string | undefined, env: NodeJS.ProcessEnv): Promise<Connected> {
  const base_url = base_url_for(provider, typed_url, env);
  for (;;) {
    const key = await ask_key(provider, env);
    const api_key = key_value(key, env);
    // Known to the redactor before the first request: an error message quoting it is redacted too.
    if (api_key !== undefined) default_redactor().add({ label: `${provider}_api_key`, value: api_key });
    try {
      const models = await with_spinner(
        `Connecting to ${base_url}`,
        (signal) => list_models({ provider_id: provider, base_url, api_key }, signal),
        (ids) => `Connected: ${ids.length} model${ids.length === 1 ? "" : "s"}`,
      );
      return { key, models };
    } catch (error) {
      if (!is_air_failure(error)) throw error;
      const next = answered(
        await clack.select({
          message: "The connection test failed. What now?",
          options: [
            { value: "retry", label: "Enter the key again" },
            { value: "save", label: "Save anyway", hint: "type the model id; check later with `air doctor`" },
            { value: "cancel", label: "Cancel", hint: "write nothing" },
          ],
        }),
      );
      if (next === "cancel") throw new WizardCancelled();
      if (next === "save") return { key, models: [] };
    }
  }
}

/** Every answer, asked in order; nothing is written here. Throws WizardCancelled on Ctrl+C at any step. */
export async function collect_choices(env: NodeJS.ProcessEnv): Promise<WizardChoices> {
  const picked = await ask_provider();
  if (picked.provider === DEMO_PROVIDER) {
    const models = await with_spinner("Starting the offline demo model server", demo_models, () => "The demo model server answers");
    const model = await ask_model(models, models[0]);
    return { provider: DEMO_PROVIDER, key: { source: "none" }, model, permission_mode: await ask_permission_mode() };
  }
  const provider = picked.provider;
  const { key, models } = await connect(provider, picked.base_url, env);
  const model = await ask_model(models, DEFAULT_MODELS[provider]);
  const permission_mode = await ask_permission_mode();
  return { provider, ...(picked.base_url === undefined ? {} : { base_url: picked.base_url }), key, model, permission_mode };
}

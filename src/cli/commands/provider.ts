import { air_failure, to_air_error, type AirError } from "../../contracts/errors.js";
import type { ModelCapabilities } from "../../contracts/provider.js";
import { session_db_path } from "../../project/layout.js";
import { locate_project_root, open_project } from "../../project/project-store.js";
import { has_session, latest_session_id } from "../../project/session-catalog.js";
import type { ResolvedModel } from "../../providers/capabilities.js";
import { KNOWN_MODELS } from "../../providers/capability-defaults.js";
import {
  load_provider_config,
  no_provider_action,
  no_server_action,
  PROVIDER_ENV,
  PROVIDER_IDS,
  type ProviderConfig,
  type ProviderId,
  type ProviderSettings,
  type SettingSource,
} from "../../providers/config.js";
import { render_error, table, type Io } from "../output.js";

/** `env` for tests; the process environment otherwise. */
export type ProviderCommandOptions = { readonly json: boolean; readonly env?: NodeJS.ProcessEnv };

export type ModelListing = {
  readonly model_id: string;
  readonly default: boolean;
  readonly known: boolean;
  readonly capabilities: ModelCapabilities;
  /** `built-in` or `default for unknown models`, then each models.yaml that corrected the model. */
  readonly capability_sources: readonly string[];
  readonly thinking_budget_tokens?: number;
};

/** One provider, never its key: where the key comes from, at most. */
export type ProviderListing = {
  readonly provider_id: ProviderId;
  readonly default: boolean;
  readonly configured: boolean;
  readonly base_url?: string;
  /** Header names only: a proxy's header may hold a credential. */
  readonly headers?: readonly string[];
  readonly sources?: ProviderSettings["sources"];
  readonly default_model?: string;
  readonly models: readonly ModelListing[];
  /** How to configure it, when it is not. */
  readonly user_action?: string;
  /** What is wrong with its settings, when something is. */
  readonly error?: AirError;
};

export type ProviderList = {
  readonly selected: ProviderId;
  readonly selected_source: SettingSource;
  readonly models_file: string;
  readonly project_models_file: string | null;
  readonly providers: readonly ProviderListing[];
};

function config_for(io: Io, env: NodeJS.ProcessEnv | undefined): ProviderConfig {
  const project_root = locate_project_root(io.cwd);
  return load_provider_config({ ...(env === undefined ? {} : { env }), ...(project_root === undefined ? {} : { project_root }) });
}

function model_listing(model: ResolvedModel, default_model: string | undefined): ModelListing {
  return {
    model_id: model.model_id,
    default: model.model_id === default_model,
    known: model.known,
    capabilities: model.capabilities,
    capability_sources: model.sources,
    ...(model.thinking_budget_tokens === undefined ? {} : { thinking_budget_tokens: model.thinking_budget_tokens }),
  };
}

function provider_listing(config: ProviderConfig, provider_id: ProviderId): ProviderListing {
  const is_default = provider_id === config.selected;
  if (provider_id === "openai_compatible" && !config.is_set_up(provider_id)) {
    return { provider_id, default: is_default, configured: false, models: [], user_action: no_server_action(config.models_file) };
  }
  let settings: ProviderSettings;
  try {
    settings = config.settings(provider_id);
  } catch (error) {
    return { provider_id, default: is_default, configured: false, models: [], error: to_air_error(error) };
  }
  const configured = !settings.key_required || settings.api_key !== undefined;
  const model_ids = [...new Set([settings.model_id, ...config.matrix.configured_models(provider_id), ...KNOWN_MODELS[provider_id]])];
  return {
    provider_id,
    default: is_default,
    configured,
    base_url: settings.base_url ?? PROVIDER_ENV[provider_id].default_base_url ?? "",
    headers: Object.keys(settings.headers ?? {}),
    sources: settings.sources,
    default_model: settings.model_id,
    models: model_ids.map((model_id) => model_listing(config.matrix.resolve(provider_id, model_id), settings.model_id)),
    ...(configured ? {} : { user_action: no_provider_action(settings.models_file, provider_id, settings.key_variables) }),
  };
}

/** Every provider air knows, how each is configured and from where, and its models with their capabilities. */
export function provider_list(io: Io, env?: NodeJS.ProcessEnv): ProviderList {
  const config = config_for(io, env);
  return {
    selected: config.selected,
    selected_source: config.selected_source,
    models_file: config.models_file,
    project_models_file: config.project_models_file ?? null,
    providers: PROVIDER_IDS.map((provider_id) => provider_listing(config, provider_id)),
  };
}

const yes = (value: boolean) => (value ? "yes" : "-");

function models_table(models: readonly ModelListing[]): string {
  const rows = [["", "MODEL", "QUALITY", "COST", "CONTEXT", "OUTPUT", "TOOLS", "VISION", "THINKING", "CACHE", "FROM"]];
  for (const model of models) {
    const { capabilities: c } = model;
    rows.push([
      model.default ? "*" : "",
      model.model_id,
      c.quality_tier,
      c.cost_tier,
      String(c.context_window),
      String(c.max_output_tokens),
      yes(c.supports.tools),
      yes(c.supports.vision),
      model.thinking_budget_tokens === undefined ? yes(c.supports.thinking) : `${model.thinking_budget_tokens}`,
      yes(c.supports.prompt_caching),
      model.capability_sources.join(" + "),
    ]);
  }
  return table(rows).replace(/^(?=.)/gm, "  ");
}

function key_text(provider: ProviderListing): string {
  const source = provider.sources?.api_key;
  if (source !== undefined && source !== "unset") return `key from ${source}`;
  return provider.configured ? "no key needed" : "key not set";
}

function render_provider(provider: ProviderListing): string {
  const mark = provider.default ? "* " : "  ";
  if (provider.error !== undefined) return `${mark}${provider.provider_id}: broken settings\n${render_error(provider.error).replace(/^/gm, "    ")}`;
  if (provider.sources === undefined)
    return `${mark}${provider.provider_id}: not configured${provider.user_action === undefined ? "" : ` — ${provider.user_action.split("\n")[0]}`}\n`;
  const lines = [
    `${mark}${provider.provider_id}: ${provider.configured ? "configured" : "no key"}` +
      `, ${key_text(provider)}` +
      `, base URL ${provider.base_url} (${provider.sources.base_url})` +
      `, model ${provider.default_model} (${provider.sources.model_id})` +
      (provider.headers !== undefined && provider.headers.length > 0 ? `, headers ${provider.headers.join(", ")}` : ""),
  ];
  if (!provider.configured && provider.user_action !== undefined) lines.push(`    → ${provider.user_action.split("\n")[0]}`);
  return `${lines.join("\n")}\n${models_table(provider.models)}`;
}

/** `air provider list [--json]`: read-only, never a key. */
export async function run_provider_list(io: Io, options: ProviderCommandOptions): Promise<number> {
  const listing = provider_list(io, options.env);
  if (options.json) {
    io.out(`${JSON.stringify(listing, null, 2)}\n`);
    return 0;
  }
  io.out(`Default provider: ${listing.selected} (${listing.selected_source})\n`);
  io.out(`Settings: ${listing.models_file}${listing.project_models_file === null ? "" : `, capabilities also from ${listing.project_models_file}`}\n\n`);
  io.out(listing.providers.map(render_provider).join("\n"));
  return 0;
}

/** The provider and model of a session, or of the session `air run` would start now. */
export type CurrentProvider = {
  /** `session`: the model is fixed for that session; `configuration`: what a new session would use. */
  readonly from: "session" | "configuration";
  readonly session_id?: string;
  readonly provider_id: string | null;
  readonly model_id: string | null;
  readonly capabilities?: ModelCapabilities;
  readonly configured?: boolean;
  readonly sources?: ProviderSettings["sources"] & { readonly provider: SettingSource };
};

async function session_model(file: string): Promise<{ provider_id: string | null; model_id: string | null }> {
  // libsql only when a session is read, as `air session list` does.
  const { open_client } = await import("../../db/sqlite.js");
  const client = open_client(file);
  try {
    const row = client.prepare("SELECT model_provider_id, model_id FROM sessions LIMIT 1").get() as
      | { model_provider_id: string | null; model_id: string | null }
      | undefined;
    return { provider_id: row?.model_provider_id ?? null, model_id: row?.model_id ?? null };
  } finally {
    client.close();
  }
}

/** The given session, else the project's latest; undefined when the project has none yet. */
function session_of(io: Io, session?: string): { id: string; file: string } | undefined {
  if (session === undefined) {
    const root = locate_project_root(io.cwd);
    if (root === undefined) return undefined;
    const { layout } = open_project(root);
    const latest = latest_session_id(layout);
    return latest === undefined ? undefined : { id: latest, file: session_db_path(layout, latest) };
  }
  const { layout } = open_project(io.cwd);
  if (!has_session(layout, session)) {
    throw air_failure({
      kind: "user_error",
      message: `no session ${session} in this project`,
      retryability: "not_retryable",
      user_action: "List the sessions with `air session list`.",
    });
  }
  return { id: session, file: session_db_path(layout, session) };
}

export async function provider_current(io: Io, options: { session?: string; env?: NodeJS.ProcessEnv }): Promise<CurrentProvider> {
  const config = config_for(io, options.env);
  const session = session_of(io, options.session);
  if (session !== undefined) {
    const { provider_id, model_id } = await session_model(session.file);
    const known = provider_id !== null && (PROVIDER_IDS as readonly string[]).includes(provider_id) && model_id !== null;
    return {
      from: "session",
      session_id: session.id,
      provider_id,
      model_id,
      ...(known ? { capabilities: config.matrix.resolve(provider_id as ProviderId, model_id).capabilities } : {}),
    };
  }
  const settings = config.settings(config.selected);
  return {
    from: "configuration",
    provider_id: settings.provider_id,
    model_id: settings.model_id,
    capabilities: config.matrix.resolve(settings.provider_id, settings.model_id).capabilities,
    configured: !settings.key_required || settings.api_key !== undefined,
    sources: { provider: config.selected_source, ...settings.sources },
  };
}

/** `air provider current [--json] [--session ID]`: read-only — the model is fixed for a session. */
export async function run_provider_current(io: Io, options: ProviderCommandOptions & { readonly session?: string }): Promise<number> {
  const current = await provider_current(io, options);
  if (options.json) {
    io.out(`${JSON.stringify(current, null, 2)}\n`);
    return 0;
  }
  const model = `${current.provider_id ?? "unknown provider"} ${current.model_id ?? "unknown model"}`;
  if (current.from === "session") {
    io.out(`Session ${current.session_id}: ${model} (fixed for the session; a new session picks up changed settings)\n`);
  } else {
    const from = current.sources === undefined ? "" : ` (provider from ${current.sources.provider}, model from ${current.sources.model_id})`;
    io.out(`No session yet; a new session would use ${model}${from}${current.configured === false ? " — not configured: see `air provider list`" : ""}\n`);
  }
  const c = current.capabilities;
  if (c !== undefined) {
    const supports = Object.entries(c.supports)
      .filter(([, on]) => on)
      .map(([name]) => name)
      .join(", ");
    io.out(
      `  ${c.quality_tier} quality, ${c.cost_tier} cost, context ${c.context_window}, output ${c.max_output_tokens}; supports ${supports || "nothing listed"}\n`,
    );
  }
  return 0;
}

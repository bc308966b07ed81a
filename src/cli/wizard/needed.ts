import { is_air_failure } from "../../contracts/errors.js";
import { air_home } from "../../project/layout.js";
import { load_provider_config } from "../../providers/config.js";
import { read_air_config } from "./air-config.js";

/**
 * True when nothing is set up: no `~/.air/config.yaml` (the wizard's record; the demo has nothing else)
 * and the selected provider has no key or server. A broken models.yaml is not "nothing": the run reports it.
 *
 * Apart from the wizard: every `air run` asks this, and only a first run loads the wizard (its prompts,
 * the SDKs that list a provider's models, the demo's model server).
 */
export function needs_wizard(env: NodeJS.ProcessEnv = process.env): boolean {
  const home = air_home(env);
  if (read_air_config(home) !== undefined) return false;
  try {
    const config = load_provider_config({ env, home });
    const settings = config.settings(config.selected);
    return settings.key_required && settings.api_key === undefined;
  } catch (error) {
    if (is_air_failure(error)) return false;
    throw error;
  }
}

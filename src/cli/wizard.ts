import * as clack from "@clack/prompts";
import type { PermissionMode } from "../contracts/events/permission.js";
import { air_failure, type AirFailure } from "../contracts/errors.js";
import { air_home } from "../project/layout.js";
import { read_yaml_file } from "../project/yaml-file.js";
import { PERMISSIONS_FILE_EXAMPLE, PermissionsFile, user_permissions_file } from "../permissions/policy.js";
import { load_provider_config, no_provider_failure } from "../providers/config.js";
import { credentials_file_path, read_credentials_file } from "../providers/credentials-file.js";
import { models_file_path, read_models_file } from "../providers/models-file.js";
import type { Io } from "./output.js";
import { DEMO_PROVIDER, type WizardProvider } from "./wizard/air-config.js";
import { collect_choices } from "./wizard/collect.js";
import { commit_files } from "./wizard/commit.js";
import { plan_home_files, plan_project_files, type ExistingFiles } from "./wizard/plan.js";
import { WizardCancelled } from "./wizard/steps.js";
import { in_ci, is_interactive } from "./terminal.js";

export { is_interactive };

export type WizardOptions = {
  /** `air init`: also the project's `.air/shared` starter files (rules, permissions). */
  readonly for_init: boolean;
  /** The project whose `.air/shared` gets the starter files; with `for_init` only. */
  readonly project_root?: string;
  readonly env?: NodeJS.ProcessEnv;
};

export type WizardResult =
  | {
      readonly status: "configured";
      readonly provider: WizardProvider;
      readonly model: string;
      readonly permission_mode: PermissionMode;
      readonly files: readonly string[];
    }
  | { readonly status: "cancelled" };

/** No terminal to ask in: the same guidance as a run without a provider, plus the wizard. */
export function wizard_unavailable_failure(env: NodeJS.ProcessEnv = process.env): AirFailure {
  const home = air_home(env);
  const guidance = no_provider_failure(load_provider_config({ env, home }).settings("anthropic")).error;
  return air_failure({
    kind: "env_error",
    message: `${guidance.message} (and no terminal to set one up in: ${in_ci(env) ? "CI is set" : "stdin or stdout is not a terminal"})`,
    retryability: "not_retryable",
    user_action: `${guidance.user_action ?? ""}\nOr run \`air init\` in a terminal to set one up step by step.`,
    metadata: { ...guidance.metadata },
  });
}

/** What is on disk now, read before the first prompt: a broken file stops the wizard before any question. */
function existing_files(home: string): ExistingFiles {
  return {
    models: read_models_file(models_file_path(home)),
    credentials: read_credentials_file(credentials_file_path(home)),
    permissions: read_yaml_file(user_permissions_file(home), { schema: PermissionsFile, example: PERMISSIONS_FILE_EXAMPLE }),
  };
}

/**
 * The first-run wizard (@clack/prompts): provider, key, connection test, model, permission mode; then all
 * files at once (`commit_files`). Cancelled at any step, it writes nothing. Without a terminal it never
 * prompts: it throws `wizard_unavailable_failure`.
 */
export async function run_wizard(io: Io, options: WizardOptions): Promise<WizardResult> {
  const env = options.env ?? process.env;
  if (!is_interactive(env)) throw wizard_unavailable_failure(env);
  const home = air_home(env);
  const existing = existing_files(home);
  clack.intro("air: first-run setup");
  try {
    const choices = await collect_choices(env);
    const project = options.for_init && options.project_root !== undefined ? plan_project_files(options.project_root) : [];
    const files = commit_files([...plan_home_files(home, choices, existing), ...project]);
    const next = choices.provider === DEMO_PROVIDER ? "Opening the offline demo (air demo)" : `Ready: ${choices.provider} / ${choices.model}`;
    clack.outro(next);
    io.out(`Wrote:\n${files.map((file) => `  ${file}\n`).join("")}`);
    return { status: "configured", provider: choices.provider, model: choices.model, permission_mode: choices.permission_mode, files };
  } catch (error) {
    if (!(error instanceof WizardCancelled)) throw error;
    clack.cancel("Setup cancelled: nothing was written.");
    return { status: "cancelled" };
  }
}

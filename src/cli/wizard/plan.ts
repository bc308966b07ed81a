import path from "node:path";
import YAML from "yaml";
import type { PermissionMode } from "../../contracts/events/permission.js";
import { project_layout } from "../../project/layout.js";
import { user_permissions_file, type PermissionsFile } from "../../permissions/policy.js";
import { credentials_file_path, type CredentialsFile } from "../../providers/credentials-file.js";
import { models_file_path, type ModelsFile, type ProviderEntry, type ProviderId } from "../../providers/models-file.js";
import { air_config_path, DEMO_PROVIDER, type AirConfigFile, type WizardProvider } from "./air-config.js";

/** Where the key comes from: a variable the runtime reads each time, one typed in (stored), or none (a local server). */
export type KeyChoice =
  | { readonly source: "env"; readonly variable: string }
  | { readonly source: "typed"; readonly value: string }
  | { readonly source: "none" };

/** Everything the wizard asked, before anything is written. */
export type WizardChoices = {
  readonly provider: WizardProvider;
  /** The server of an OpenAI-compatible provider (Ollama, LM Studio, vLLM, another URL). */
  readonly base_url?: string;
  readonly key: KeyChoice;
  readonly model: string;
  readonly permission_mode: PermissionMode;
};

/** What is on disk now; the wizard adds to these files rather than replacing what else they hold. */
export type ExistingFiles = {
  readonly models?: ModelsFile;
  readonly credentials?: CredentialsFile;
  readonly permissions?: PermissionsFile;
};

/** One file to write; `mode` 0600 for the key, and `only_if_absent` for project files a user may have already. */
export type PlannedFile = { readonly path: string; readonly content: string; readonly mode: number; readonly only_if_absent?: true };

const HEADER = "# Written by `air init` (the first-run wizard); edit freely.\n";

function yaml(value: unknown): string {
  return HEADER + YAML.stringify(value);
}

/** models.yaml with the chosen provider selected; the key is only ever named (auth_ref), never written here. */
function models_yaml(choices: WizardChoices & { provider: ProviderId }, existing: ModelsFile | undefined, auth_ref: string | undefined): ModelsFile {
  const previous: ProviderEntry = existing?.providers?.[choices.provider] ?? {};
  // A key in the file is superseded by the stored one; the wizard leaves no key in models.yaml.
  const { api_key: _dropped, auth_ref: _old_ref, ...kept } = previous;
  const entry: ProviderEntry = {
    ...kept,
    ...(choices.base_url === undefined ? {} : { base_url: choices.base_url }),
    ...(auth_ref === undefined ? {} : { auth_ref }),
    default_model: choices.model,
  };
  return { ...existing, default_provider: choices.provider, providers: { ...existing?.providers, [choices.provider]: entry } };
}

function permissions_yaml(mode: PermissionMode, existing: PermissionsFile | undefined): unknown {
  return { ...existing, version: 1, mode };
}

/** The files of `~/.air` for these choices: config.yaml always; models.yaml, credentials.yaml and permissions.yaml as needed. */
export function plan_home_files(home: string, choices: WizardChoices, existing: ExistingFiles): PlannedFile[] {
  const config: AirConfigFile = { version: 1, provider: choices.provider, model: choices.model, permission_mode: choices.permission_mode };
  const files: PlannedFile[] = [
    { path: air_config_path(home), content: yaml(config), mode: 0o644 },
    { path: user_permissions_file(home), content: yaml(permissions_yaml(choices.permission_mode, existing.permissions)), mode: 0o644 },
  ];
  if (choices.provider === DEMO_PROVIDER) return files;
  const provider_choices = { ...choices, provider: choices.provider };
  const auth_ref = choices.key.source === "typed" ? choices.provider : undefined;
  if (choices.key.source === "typed") {
    const credentials: CredentialsFile = { version: 1, keys: { ...existing.credentials?.keys, [choices.provider]: choices.key.value } };
    files.push({ path: credentials_file_path(home), content: yaml(credentials), mode: 0o600 });
  }
  files.push({ path: models_file_path(home), content: yaml(models_yaml(provider_choices, existing.models, auth_ref)), mode: 0o644 });
  return files;
}

const STARTER_RULES = `# Project rules

Rules every agent working in this project follows; they are part of each agent's instructions.
Keep them short and concrete, for example:

- Build with \`npm run build\`; run the tests with \`npm test\` before calling a task done.
- Follow the existing code style; do not reformat files you do not change.
`;

const STARTER_PERMISSIONS = `# What air may do in this project without asking (committed with the project).
# Rules tighten anything; they loosen only ordinary edits and commands, never credential or system access.
# The permission mode is your own (~/.air/permissions.yaml); set mode: here only to impose one on everybody.
version: 1
allow: []
ask:
  - command: "git push*"
deny: []
`;

/** For `air init`: a starter rules file and permissions.yaml in `.air/shared`, never over the project's own. */
export function plan_project_files(project_root: string): PlannedFile[] {
  const layout = project_layout(project_root);
  return [
    { path: path.join(layout.rules, "project.md"), content: STARTER_RULES, mode: 0o644, only_if_absent: true },
    { path: layout.shared_permissions, content: STARTER_PERMISSIONS, mode: 0o644, only_if_absent: true },
  ];
}

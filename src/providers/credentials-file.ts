import path from "node:path";
import * as v from "valibot";
import { air_failure, type AirFailure } from "../contracts/errors.js";
import { read_yaml_file } from "../project/yaml-file.js";

/** A name models.yaml refers to by `auth_ref`: a plain word, so it reads the same in both files. */
export const AuthRef = v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "a name of letters, digits, '_', '.' or '-'"));

/**
 * `~/.air/credentials.yaml` (mode 0600): the keys themselves, by name. models.yaml names a key with
 * `auth_ref` and never holds it, so models.yaml can be shown, shared or committed to dotfiles.
 */
export const CredentialsFile = v.strictObject({
  version: v.optional(v.literal(1), 1),
  keys: v.optional(v.record(AuthRef, v.pipe(v.string(), v.minLength(1))), {}),
});
export type CredentialsFile = v.InferOutput<typeof CredentialsFile>;

const EXAMPLE = ["version: 1", "keys:", "  anthropic: sk-ant-..."].join("\n");

export function credentials_file_path(home: string): string {
  return path.join(home, "credentials.yaml");
}

/** The parsed file, or undefined when there is none; a broken file is an AirError naming it (never its content). */
export function read_credentials_file(file: string): CredentialsFile | undefined {
  return read_yaml_file(file, { schema: CredentialsFile, example: EXAMPLE });
}

function missing_ref(file: string, auth_ref: string, models_file: string): AirFailure {
  return air_failure({
    kind: "user_error",
    message: `${models_file} refers to the key "${auth_ref}" (auth_ref) but ${file} has no such key`,
    retryability: "not_retryable",
    user_action: `Add it under keys: in ${file} (keep the file mode 0600), or run \`air init\` again to set up the provider.`,
    metadata: { file, auth_ref, models_file },
  });
}

/** The key `auth_ref` names; a reference to nothing is an error, not a silent "no key". */
export function resolve_auth_ref(home: string, auth_ref: string, models_file: string): string {
  const file = credentials_file_path(home);
  const key = read_credentials_file(file)?.keys[auth_ref];
  if (key === undefined) throw missing_ref(file, auth_ref, models_file);
  return key;
}

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import YAML from "yaml";
import { REMOVED, scrub_config } from "../logs/config-secrets.js";
import { log_paths } from "../logs/log.js";
import { RotatingFile } from "../logs/rotating-file.js";
import { is_credential_variable } from "../permissions/credentials.js";
import type { SecretRedactor } from "../permissions/secret-redactor.js";
import { AIR_VERSION } from "../version.js";
import type { ArchiveEntry } from "./tar.js";

/** A file the bundle leaves out, and why: the user is told, so nobody wonders where it went. */
type LeftOut = { readonly file: string; readonly reason: string };
export type BundleContents = { readonly entries: ArchiveEntry[]; readonly left_out: LeftOut[] };

function json_entry(name: string, value: unknown): ArchiveEntry {
  return { name, data: Buffer.from(`${JSON.stringify(value, null, 2)}\n`) };
}

/** The machine air runs on, and the toolchain the doctor found (its checks' summaries carry the versions). */
export function environment_entry(checks: readonly { readonly id: string; readonly summary: string }[], redactor: SecretRedactor): ArchiveEntry {
  const air_variables = Object.fromEntries(
    Object.entries(process.env)
      .filter(([name]) => name.startsWith("AIR_"))
      .map(([name, value]) => [name, is_credential_variable(name) ? REMOVED : redactor.redact(value ?? "")]),
  );
  return json_entry("environment.json", {
    air_version: AIR_VERSION,
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    os: `${os.type()} ${os.release()}`,
    cpus: os.cpus().length,
    memory_bytes: os.totalmem(),
    shell: process.env.SHELL ?? null,
    term: process.env.TERM ?? null,
    air_variables,
    toolchain: Object.fromEntries(checks.map((check) => [check.id, check.summary])),
  });
}

/**
 * The logs as they are: air.log was redacted when written and is redacted again here (a secret configured
 * since is caught too); the developer log is sealed and goes in untouched.
 */
export function log_entries(home: string, redactor: SecretRedactor): ArchiveEntry[] {
  const paths = log_paths(home);
  const user = new RotatingFile(paths.air_log).files().map((file) => ({
    name: `logs/${path.basename(file)}`,
    data: Buffer.from(redactor.redact(fs.readFileSync(file, "utf8"))),
  }));
  const developer = new RotatingFile(paths.developer_log).files().map((file) => ({ name: `logs/${path.basename(file)}`, data: fs.readFileSync(file) }));
  return [...user, ...developer];
}

/** The YAML and JSON files of `.air/shared`, at any depth. */
function shared_config_files(folder: string): string[] {
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((name) => /\.(ya?ml|json)$/i.test(name))
    .map((name) => path.join(folder, name))
    .filter((file) => fs.statSync(file).isFile());
}

/**
 * One configuration file with every secret removed, written back in its own format; a file that does not
 * parse cannot be scrubbed, so it stays out.
 */
function config_entry(file: string, name: string, redactor: SecretRedactor, left_out: LeftOut[]): ArchiveEntry[] {
  if (!fs.existsSync(file)) return [];
  let parsed: unknown;
  try {
    parsed = YAML.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    left_out.push({ file, reason: `it does not parse (${(error as Error).message.split("\n")[0]}), so its secrets cannot be removed` });
    return [];
  }
  const scrubbed = scrub_config(parsed, (text) => redactor.redact(text));
  const text = /\.json$/i.test(file) ? `${JSON.stringify(scrubbed, null, 2)}\n` : YAML.stringify(scrubbed);
  return [{ name, data: Buffer.from(text) }];
}

/** The user's configuration (the air home's files) and the project's (.air/shared, .mcp.json), secrets removed. */
export function config_entries(home: string, project_root: string, redactor: SecretRedactor): BundleContents {
  const left_out: LeftOut[] = [];
  const home_files = ["config.yaml", "models.yaml", "credentials.yaml", "mcp.json"].map((name) => ({
    file: path.join(home, name),
    name: `config/home/${name}`,
  }));
  const shared = path.join(project_root, ".air", "shared");
  const project_files = [...shared_config_files(shared), path.join(project_root, ".mcp.json")].map((file) => ({
    file,
    name: `config/project/${path.relative(project_root, file).split(path.sep).join("/")}`,
  }));
  const entries = [...home_files, ...project_files].flatMap(({ file, name }) => config_entry(file, name, redactor, left_out));
  return { entries, left_out };
}

import fs from "node:fs";
import path from "node:path";
import { config_entries, environment_entry, log_entries } from "../../doctor/bundle-contents.js";
import { tar_gz } from "../../doctor/tar.js";
import { file_secrets, home_config_secrets } from "../../logs/config-secrets.js";
import { project_mcp_file } from "../../mcp/config.js";
import { credential_env_secrets, SecretRedactor } from "../../permissions/secret-redactor.js";
import { air_home } from "../../project/layout.js";
import type { Io } from "../output.js";
import type { DoctorReport } from "./doctor.js";

export type BundleOptions = { readonly json: boolean; readonly project_root: string; readonly out?: string };

/** `air-doctor-20261203-162053.tar.gz`, in the air home's `bundles/` (outside any project, so never committed). */
function default_out(home: string, now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return path.join(home, "bundles", `air-doctor-${stamp}.tar.gz`);
}

/** Every secret this process can know of: credential variables, and the keys of the configuration files. */
function bundle_redactor(home: string, project_root: string): SecretRedactor {
  const config = [...home_config_secrets(home), ...file_secrets(project_mcp_file(project_root))];
  return new SecretRedactor([...credential_env_secrets(), ...config.map((value) => ({ label: "config_secret", value }))]);
}

function write_atomically(file: string, data: Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, data, { mode: 0o600 });
  fs.renameSync(temporary, file);
}

/**
 * `air doctor --bundle [--out PATH]`: one local archive for a bug report — the environment, the doctor's
 * results, the logs and the configuration with every secret removed (seeds 003 §15). It says what it holds
 * and where it is, and sends nothing anywhere: sharing it is the user's act (D-050).
 */
export function run_doctor_bundle(io: Io, report: DoctorReport, options: BundleOptions): number {
  const home = air_home(process.env);
  const { project_root } = options;
  const redactor = bundle_redactor(home, project_root);
  const config = config_entries(home, project_root, redactor);
  const entries = [
    environment_entry(report.checks, redactor),
    { name: "doctor.json", data: Buffer.from(`${JSON.stringify(redactor.redact_value(report), null, 2)}\n`) },
    ...log_entries(home, redactor),
    ...config.entries,
  ];
  const now = new Date();
  const out = path.resolve(io.cwd, options.out ?? default_out(home, now));
  const archive = tar_gz(entries, now);
  write_atomically(out, archive);
  const files = entries.map((entry) => entry.name);
  if (options.json) {
    io.out(`${JSON.stringify({ path: out, bytes: archive.length, files, left_out: config.left_out, uploaded: false }, null, 2)}\n`);
    return 0;
  }
  io.out(`Wrote the doctor bundle ${out} (${archive.length} bytes), holding:\n${files.map((name) => `  ${name}\n`).join("")}`);
  if (config.left_out.length > 0) io.out(`Left out:\n${config.left_out.map(({ file, reason }) => `  ${file}: ${reason}\n`).join("")}`);
  io.out(
    "Every secret was removed from the configuration; the developer log is encrypted for air's developers.\n" +
      "Nothing was uploaded: attach the file to a bug report yourself if you want help.\n",
  );
  return 0;
}

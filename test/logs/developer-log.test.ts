/**
 * `air.developer.log` (D-050): every record sealed to the development team's public key (AES-256-GCM per
 * record, its key wrapped with RSA-OAEP-SHA256). The file holds nothing readable; the team's private key,
 * through scripts/decrypt-developer-log.ts, gives each record back; any other key opens nothing.
 */
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { air_failure } from "../../src/contracts/errors.js";
import { parse_public_key } from "../../src/logs/developer-cipher.js";
import { log_detail, log_error, log_paths } from "../../src/logs/log.js";
import { REPO_ROOT, TSX_LOADER } from "../fixtures/cli.js";

const MARKER = "marker-7f3c9a2e-developer-only";
const DECRYPT = path.join(REPO_ROOT, "scripts", "decrypt-developer-log.ts");

let temp: string;
let saved: Record<string, string | undefined>;
let private_key_file: string;

function write_key_pair(name: string): { public_file: string; private_file: string } {
  const { publicKey, privateKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  const public_file = path.join(temp, `${name}.pub.pem`);
  const private_file = path.join(temp, `${name}.pem`);
  fs.writeFileSync(public_file, publicKey.export({ type: "spki", format: "pem" }));
  fs.writeFileSync(private_file, privateKey.export({ type: "pkcs8", format: "pem" }));
  return { public_file, private_file };
}

beforeEach(() => {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), "air-devlog-"));
  saved = { AIR_HOME: process.env.AIR_HOME, AIR_DEVELOPER_LOG_PUBLIC_KEY: process.env.AIR_DEVELOPER_LOG_PUBLIC_KEY };
  const team = write_key_pair("team");
  private_key_file = team.private_file;
  process.env.AIR_HOME = path.join(temp, "home");
  process.env.AIR_DEVELOPER_LOG_PUBLIC_KEY = team.public_file;
});
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  fs.rmSync(temp, { recursive: true, force: true });
});

function decrypt(key_file: string, log_file: string) {
  const result = spawnSync(process.execPath, ["--import", TSX_LOADER, DECRYPT, "--key", key_file, log_file], { cwd: REPO_ROOT, encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("the developer log", () => {
  it("holds no plaintext of what was logged; the private key gives every record back, whole", () => {
    const failure = air_failure({ kind: "tool_error", message: `the tool broke on ${MARKER}`, retryability: "retryable" }, new Error("the cause"));
    log_error("test", `first ${MARKER}`, failure, { step: 3 });
    log_detail("test", `second ${MARKER}`);
    const file = log_paths(process.env.AIR_HOME!).developer_log;
    const sealed = fs.readFileSync(file, "utf8");
    expect(sealed).not.toContain(MARKER);
    expect(sealed).not.toContain("the cause");
    expect(sealed.trim().split("\n")).toHaveLength(2);

    const opened = decrypt(private_key_file, file);
    expect(opened.stderr).toBe("");
    expect(opened.status).toBe(0);
    const [first, second] = opened.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown> & { error?: { stack?: string } });
    expect(first).toMatchObject({ level: "error", area: "test", message: `first ${MARKER}`, data: { step: 3 }, node: process.version });
    expect(first?.error).toMatchObject({ air_error: { kind: "tool_error", message: `the tool broke on ${MARKER}` }, cause: { message: "the cause" } });
    expect(first?.error?.stack).toContain("developer-log.test.ts");
    expect(second).toMatchObject({ level: "warning", message: `second ${MARKER}` });
  });

  it("cannot be read with another private key", () => {
    log_error("test", `sealed ${MARKER}`);
    const stranger = write_key_pair("stranger");
    const opened = decrypt(stranger.private_file, log_paths(process.env.AIR_HOME!).developer_log);
    expect(opened.status).toBe(1);
    expect(opened.stdout).toBe("");
    expect(opened.stderr).toMatch(/air\.developer\.log:1: cannot open this record/);
  });

  it("goes to the key shipped in the package when no other is named, and the package ships no private key", () => {
    const keys = path.join(REPO_ROOT, "keys");
    for (const name of fs.readdirSync(keys)) expect(fs.readFileSync(path.join(keys, name), "utf8")).not.toMatch(/PRIVATE KEY/);
    const shipped = fs.readFileSync(path.join(keys, "developer-log.pub.pem"), "utf8");
    expect(parse_public_key(shipped).asymmetricKeyDetails?.modulusLength).toBeGreaterThanOrEqual(3072);
    const package_json = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { files: string[] };
    expect(package_json.files).toContain("keys/developer-log.pub.pem");

    delete process.env.AIR_DEVELOPER_LOG_PUBLIC_KEY;
    log_error("test", `for the team ${MARKER}`);
    const opened = decrypt(private_key_file, log_paths(process.env.AIR_HOME!).developer_log);
    expect(opened.status).toBe(1);
    expect(opened.stdout).toBe("");
  });

  it("never throws into its caller: a log that cannot be written is noted once on stderr", () => {
    const script = [
      `import { log_error } from ${JSON.stringify(path.join(REPO_ROOT, "src", "logs", "log.ts"))};`,
      `log_error("test", "one"); log_error("test", "two");`,
      `process.stdout.write("carried on");`,
    ].join("\n");
    fs.writeFileSync(path.join(temp, "not-a-folder"), "");
    const result = spawnSync(process.execPath, ["--import", TSX_LOADER, "--input-type=module", "-e", script], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      env: { ...process.env, AIR_HOME: path.join(temp, "not-a-folder") },
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe("carried on");
    expect(result.stderr.match(/air: cannot write its log/g)).toHaveLength(1);
  });
});

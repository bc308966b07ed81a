import { describe, expect, it } from "vitest";
import { ID_PREFIXES, new_id, type IdKind } from "../../src/contracts/ids.js";
import { credential_env_secrets, SecretRedactor } from "../../src/permissions/secret-redactor.js";

/** Fake credentials, assembled at run time so that no scanner mistakes this file for a leak. */
const fake = {
  anthropic: "sk-" + "ant-api03-" + "Xy9_".repeat(20) + "AA",
  openai: "sk-" + "proj-" + "Ab3d".repeat(12),
  openai_legacy: "sk-" + "T3BlbkFJ".repeat(6),
  openrouter: "sk-" + "or-v1-" + "0f3a".repeat(16),
  github: "ghp" + "_" + "R2d2C3po".repeat(4) + "ab12",
  github_pat: "github" + "_pat_" + "11ABCDEFG0".repeat(8),
  gitlab: "glpat" + "-" + "xY7zQ2wE9rT4uI1oP3aS",
  slack: "xox" + "b-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
  aws_id: "AKIA" + "IOSFODNN7EXAMPLE",
  aws_secret: "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY",
  google: "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
  stripe: "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc",
  npm: "npm" + "_" + "a1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
  jwt: ["eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ", "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"].join("."),
};

const pem = [
  "-----BEGIN " + "RSA PRIVATE KEY-----",
  "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB",
  "aFDrBz9vFqU4yN5R4bWQ6v0v3u7b8p2l9k1m3n5o7q9s1u3w5y7A9C1E3G5I7K9M",
  "-----END RSA PRIVATE KEY-----",
].join("\n");

const redactor = new SecretRedactor();

describe("SecretRedactor.redact: credential shapes", () => {
  const cases: [name: string, secret: string, hint: string][] = [
    ["an Anthropic key", fake.anthropic, "anthropic_key"],
    ["an OpenAI project key", fake.openai, "openai_key"],
    ["a legacy OpenAI key", fake.openai_legacy, "openai_key"],
    ["an OpenRouter key", fake.openrouter, "openrouter_key"],
    ["a GitHub classic token", fake.github, "github_token"],
    ["a GitHub fine-grained token", fake.github_pat, "github_token"],
    ["a GitLab token", fake.gitlab, "gitlab_token"],
    ["a Slack token", fake.slack, "slack_token"],
    ["an AWS access key id", fake.aws_id, "aws_access_key_id"],
    ["a Google API key", fake.google, "google_api_key"],
    ["a Stripe live key", fake.stripe, "stripe_key"],
    ["an npm token", fake.npm, "npm_token"],
    ["a JWT", fake.jwt, "jwt"],
  ];
  for (const [name, secret, hint] of cases) {
    it(`replaces ${name} wherever it sits in the text`, () => {
      for (const text of [secret, `export KEY=${secret}`, `"${secret}"`, `line one\n${secret}\nline three`, `(${secret}).`]) {
        const redacted = redactor.redact(text);
        expect(redacted).not.toContain(secret);
        expect(redacted).toContain(`[REDACTED:${hint}]`);
      }
    });
  }

  it("keeps the text around a token intact", () => {
    expect(redactor.redact(`token is ${fake.github}, use it.`)).toBe("token is [REDACTED:github_token], use it.");
    expect(redactor.redact(`Signed: ${fake.jwt}.`)).toBe("Signed: [REDACTED:jwt].");
  });

  it("replaces a PEM private key block whole, and one cut off before its END line", () => {
    const redacted = redactor.redact(`before\n${pem}\nafter`);
    expect(redacted).toBe("before\n[REDACTED:private_key]\nafter");
    const cut = pem.split("\n").slice(0, 2).join("\n");
    expect(redactor.redact(`log tail:\n${cut}`)).toBe("log tail:\n[REDACTED:private_key]");
    expect(redactor.redact("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----")).toContain("MIIB");
  });

  it("replaces Authorization headers and bearer tokens", () => {
    expect(redactor.redact("Authorization: Bearer abc123DEF456ghi789")).toBe("Authorization: Bearer [REDACTED:authorization]");
    expect(redactor.redact("authorization: Basic dXNlcjpwYXNzd29yZA==")).toBe("authorization: Basic [REDACTED:authorization]");
    expect(redactor.redact(`curl -H 'Authorization: token ${"c0ffee".repeat(6)}' x`)).toBe("curl -H 'Authorization: token [REDACTED:authorization]' x");
    expect(redactor.redact("sent bearer 0123456789abcdefXYZ to the server")).toBe("sent bearer [REDACTED:bearer_token] to the server");
  });

  it("replaces the password of a URL and keeps the user and host", () => {
    expect(redactor.redact("git clone https://alice:s3cretPassw0rd@example.com/repo.git")).toBe(
      "git clone https://alice:[REDACTED:url_password]@example.com/repo.git",
    );
    expect(redactor.redact("redis://:hunter22@localhost:6379")).toBe("redis://:[REDACTED:url_password]@localhost:6379");
  });

  it("replaces credential assignments in env, CLI, JSON and YAML styles", () => {
    expect(redactor.redact("DB_PASSWORD=hunter22x")).toBe("DB_PASSWORD=[REDACTED:password]");
    expect(redactor.redact("mysql --password=Tr0ub4dor&3 db")).toBe("mysql --password=[REDACTED:password]&3 db");
    expect(redactor.redact(`{"api_key": "k3y-value-1234"}`)).toBe(`{"api_key": "[REDACTED:api_key]"}`);
    expect(redactor.redact("client_secret: 9f8e7d6c5b4a")).toBe("client_secret: [REDACTED:secret]");
    expect(redactor.redact("x-api-key: abcd1234efgh")).toBe("x-api-key: [REDACTED:api_key]");
    expect(redactor.redact("GET /cb?access_token=ya29abc123&state=1")).toBe("GET /cb?access_token=[REDACTED:token]&state=1");
    expect(redactor.redact(`aws_secret_access_key = ${fake.aws_secret}`)).toBe("aws_secret_access_key = [REDACTED:aws_secret_key]");
    expect(redactor.redact(`password: 'correct-horse'`)).toBe(`password: '[REDACTED:password]'`);
  });

  it("is idempotent: redacting redacted text changes nothing", () => {
    const text = [fake.anthropic, pem, "Authorization: Bearer abc123DEF456ghi789", "https://u:p4ssw0rd1@h/", "password=hunter22x"].join("\n");
    const once = redactor.redact(text);
    expect(redactor.redact(once)).toBe(once);
  });
});

describe("SecretRedactor.redact: known values", () => {
  it("replaces every occurrence of a known secret, labelled with where it came from", () => {
    const known = new SecretRedactor([{ label: "MY_SERVICE_TOKEN", value: "plainlookingvalue" }]);
    expect(known.redact("a plainlookingvalue b plainlookingvalue")).toBe("a [REDACTED:MY_SERVICE_TOKEN] b [REDACTED:MY_SERVICE_TOKEN]");
  });

  it("ignores values shorter than 8 characters and prefers the longest of overlapping values", () => {
    const known = new SecretRedactor([
      { label: "SHORT", value: "abc" },
      { label: "INNER", value: "value1234" },
      { label: "OUTER", value: "value1234-and-more" },
    ]);
    expect(known.redact("abc value1234-and-more value1234")).toBe("abc [REDACTED:OUTER] [REDACTED:INNER]");
  });

  it("takes secrets added after construction, with regex characters literally", () => {
    const known = new SecretRedactor();
    known.add({ label: "models.yaml", value: "a.b*c+d?(e)[f]" });
    expect(known.redact("key a.b*c+d?(e)[f] and axbbbcd")).toBe("key [REDACTED:models.yaml] and axbbbcd");
  });

  it("collects the credential variables of an environment, not paths or plain URLs", () => {
    const secrets = credential_env_secrets({
      ANTHROPIC_API_KEY: "key-value-0001",
      GITHUB_TOKEN: "gh-value-0002",
      HF_HOME: "/home/me/.cache/huggingface",
      ANTHROPIC_BASE_URL: "https://api.example.com",
      HOME: "/home/me",
      PATH: "/usr/bin",
    });
    expect(secrets).toEqual([
      { label: "ANTHROPIC_API_KEY", value: "key-value-0001" },
      { label: "GITHUB_TOKEN", value: "gh-value-0002" },
    ]);
  });
});

const REALISTIC_DIFF = `diff --git a/src/auth/session.ts b/src/auth/session.ts
index 3b18e51..a9c2f07 100644
--- a/src/auth/session.ts
+++ b/src/auth/session.ts
@@ -1,14 +1,18 @@
 import { createHash } from "node:crypto";
+import type { Token } from "./token.js";
 
 export type Credentials = { user: string; password: string; token?: Token };
-const api_key = process.env.API_KEY;
+const api_key = process.env.API_KEY ?? config.api_key;
+const password = request.body.password;
 export function login(user: string, password: string) {
-  return connect({ user, password: password, token: get_token() });
+  return connect(user=user, password=password, token=token);
+  // sha256 of the empty file: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
+  const token_count = max_tokens * 2; const secret_name = "db";
+  headers["Authorization"] = \`Bearer \${session.token}\`;
+  const icon = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
+  const payload = btoa(JSON.stringify(x)); // eyJmb28iOiJiYXIifQ== style data
+  fetch("https://example.com:8443/api/v1/items?page=2", { credentials: "same-origin" });
+  const skLearnPipeline = "sk-learn-preprocessing-pipeline-config";
 }
+// tasks: task-runner-configuration-manager, disk-usage-monitor-settings
+// commit 9fceb02d0ae598e95dc970b74767f19372d61af8, ULID 01J9ZQ4X8K2M5N7P9R1T3V5W7Y
+// max_tokens=4096 temperature=0.2 bearer tokens are described in RFC 6750
`;

describe("SecretRedactor.redact: ordinary code stays", () => {
  it("leaves a realistic diff byte-identical", () => {
    expect(redactor.redact(REALISTIC_DIFF)).toBe(REALISTIC_DIFF);
  });

  it("leaves every kind of entity id alone", () => {
    for (const kind of Object.keys(ID_PREFIXES) as IdKind[]) {
      for (let index = 0; index < 50; index += 1) {
        const id = new_id(kind);
        expect(redactor.redact(`${kind} id=${id} ref:${id}`)).toBe(`${kind} id=${id} ref:${id}`);
      }
    }
  });

  it("leaves sha256 digests and base64 of ordinary data alone", () => {
    const digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    const base64 = Buffer.from("x".repeat(300) + JSON.stringify({ a: 1 })).toString("base64");
    const text = `sha256:${digest}\n${base64}\nartifact://project/p/session/s/art_01J9ZQ4X8K2M5N7P9R1T3V5W7Y`;
    expect(redactor.redact(text)).toBe(text);
  });
});

describe("SecretRedactor.redact: hostile input", () => {
  const FIVE_MB = 5 * 1024 * 1024;
  const adversarial: [name: string, unit: string][] = [
    ["one endless word", "a"],
    ["repeated sk- prefixes", "sk-"],
    ["repeated JWT starts", "eyJ"],
    ["JWT-like runs without dots", "eyJhbGciOiJIUzI1NiIsInR5cCI6"],
    ["URL user info that never reaches @", "://a:b"],
    ["assignments without values", "password="],
    ["quotes that never close", 'token: "abcdefgh'],
    ["PEM headers without END", "-----BEGIN RSA PRIVATE KEY-----\n"],
    ["bearer with short values", "bearer abc "],
    ["authorization headers", "Authorization: Bearer "],
    ["AWS-like ids that run on", "AKIAAAAAAAAAAAAAAAAAAAAA"],
    ["nothing but URL passwords", "://u:p@"],
    ["nothing but password assignments", "password=abc123def "],
  ];
  for (const [name, unit] of adversarial) {
    // Linear work is well under a second here; backtracking would take minutes, past the test's timeout. The
    // timeout is the bound: a wall-clock assertion would measure the machine's load as much as the redactor.
    it(`finishes 5 MB of ${name} in linear time`, () => {
      const text = unit.repeat(Math.ceil(FIVE_MB / unit.length));
      expect(redactor.redact(text).length).toBeGreaterThan(0);
    });
  }
});

describe("SecretRedactor.redact_value", () => {
  it("redacts every string of a nested value and keeps keys, numbers and structure", () => {
    const value = { output: { stdout_tail: `key ${fake.github}`, exit_code: 0 }, lines: ["ok", `password=hunter22x`], flag: true, none: null };
    expect(redactor.redact_value(value)).toEqual({
      output: { stdout_tail: "key [REDACTED:github_token]", exit_code: 0 },
      lines: ["ok", "password=[REDACTED:password]"],
      flag: true,
      none: null,
    });
    expect(value.output.stdout_tail).toContain(fake.github);
  });

  it("returns the very same value when nothing needed redacting", () => {
    const value = { a: ["x", { b: "plain text about tokens" }], c: 1 };
    expect(redactor.redact_value(value)).toBe(value);
  });

  it("leaves values that are not JSON-like untouched", () => {
    const bytes = Buffer.from(fake.github);
    expect(redactor.redact_value(bytes)).toBe(bytes);
  });
});

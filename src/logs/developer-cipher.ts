import crypto, { type KeyObject } from "node:crypto";
import * as v from "valibot";

/**
 * The framing of `air.developer.log` (D-050): one JSON line per record, each sealed on its own — a fresh
 * AES-256-GCM key per record, wrapped with the development team's RSA public key (OAEP, SHA-256). Records are
 * independent, so the file is appendable by any number of processes, survives a torn last line and rotates
 * at any line; only the holder of the private key can read any of it.
 */
const DeveloperLogFrame = v.strictObject({
  v: v.literal(1),
  alg: v.literal("RSA-OAEP-256+A256GCM"),
  /** The first 16 hex digits of the SHA-256 of the public key (SPKI DER): which team key to use. */
  kid: v.pipe(v.string(), v.regex(/^[0-9a-f]{16}$/)),
  key: v.string(),
  iv: v.string(),
  tag: v.string(),
  data: v.string(),
});
type DeveloperLogFrame = v.InferOutput<typeof DeveloperLogFrame>;

const ALGORITHM = "RSA-OAEP-256+A256GCM";
const OAEP = { padding: crypto.constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" } as const;

/** The header fields are bound to the ciphertext, so a frame cannot be relabelled to another key or version. */
function associated_data(kid: string): Buffer {
  return Buffer.from(`air-developer-log:1:${ALGORITHM}:${kid}`);
}

export function key_id(public_key: KeyObject): string {
  return crypto
    .createHash("sha256")
    .update(public_key.export({ type: "spki", format: "der" }))
    .digest("hex")
    .slice(0, 16);
}

/** An RSA public key from PEM text; anything else (a private key, an EC key) is refused. */
export function parse_public_key(pem: string): KeyObject {
  const key = crypto.createPublicKey(pem);
  if (key.asymmetricKeyType !== "rsa") throw new Error(`the developer log key must be an RSA public key, not ${key.asymmetricKeyType ?? "unknown"}`);
  return key;
}

/** One sealed record, as the line to append (newline included). */
export function seal_record(public_key: KeyObject, kid: string, plaintext: string): string {
  const content_key = crypto.randomBytes(32);
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", content_key, iv);
  cipher.setAAD(associated_data(kid));
  const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const frame: DeveloperLogFrame = {
    v: 1,
    alg: ALGORITHM,
    kid,
    key: crypto.publicEncrypt({ key: public_key, ...OAEP }, content_key).toString("base64"),
    iv: iv.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
    data: data.toString("base64"),
  };
  return `${JSON.stringify(frame)}\n`;
}

/** The plaintext of one line; throws when the line is not a frame or `private_key` is not the key it was sealed to. */
export function open_record(private_key: KeyObject, line: string): string {
  const frame = v.parse(DeveloperLogFrame, JSON.parse(line));
  const content_key = crypto.privateDecrypt({ key: private_key, ...OAEP }, Buffer.from(frame.key, "base64"));
  const decipher = crypto.createDecipheriv("aes-256-gcm", content_key, Buffer.from(frame.iv, "base64"));
  decipher.setAAD(associated_data(frame.kid));
  decipher.setAuthTag(Buffer.from(frame.tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(frame.data, "base64")), decipher.final()]).toString("utf8");
}

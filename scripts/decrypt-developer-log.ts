/**
 * Reads air.developer.log with the development team's private key (D-050):
 *   npx tsx scripts/decrypt-developer-log.ts --key PRIVATE.pem [LOG...]
 * Prints each record's JSON on its own line; LOG defaults to the air home's developer log and its rotated
 * files, oldest first. A line the key cannot open is named on stderr and the exit code is 1.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import { parseArgs } from "node:util";
import { open_record } from "../src/logs/developer-cipher.js";
import { log_paths } from "../src/logs/log.js";
import { RotatingFile } from "../src/logs/rotating-file.js";
import { air_home } from "../src/project/layout.js";

const { values, positionals } = parseArgs({ options: { key: { type: "string" } }, allowPositionals: true });
if (values.key === undefined) {
  process.stderr.write("usage: decrypt-developer-log --key PRIVATE.pem [LOG...]\n");
  process.exit(2);
}
const private_key = crypto.createPrivateKey(fs.readFileSync(values.key, "utf8"));
const files = positionals.length > 0 ? positionals : new RotatingFile(log_paths(air_home()).developer_log).files().reverse();

let unreadable = 0;
for (const file of files) {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  lines.forEach((line, index) => {
    if (line === "") return;
    try {
      process.stdout.write(`${open_record(private_key, line)}\n`);
    } catch (error) {
      unreadable++;
      process.stderr.write(`${file}:${index + 1}: cannot open this record: ${(error as Error).message}\n`);
    }
  });
}
process.exitCode = unreadable === 0 ? 0 : 1;

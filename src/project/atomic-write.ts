import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * Writes through a temp file in the same folder and renames it into place, so a reader or a crash sees
 * the old content or the new one, never half of it. `mode` (less the umask) is the file's from its first byte, so a
 * private file rewritten is never readable by others in between. Returns the sha256 and size of what was written.
 */
export function write_file_atomic(target: string, data: string | Uint8Array, mode = 0o644): { sha256: string; size_bytes: number } {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${crypto.randomUUID()}.tmp`);
  const fd = fs.openSync(temp, "wx", mode);
  try {
    fs.writeFileSync(fd, bytes);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  return { sha256: crypto.createHash("sha256").update(bytes).digest("hex"), size_bytes: bytes.byteLength };
}

import zlib from "node:zlib";

/** A file of an archive: its path inside it (forward slashes, no leading one) and its bytes. */
export type ArchiveEntry = { readonly name: string; readonly data: Buffer };

const BLOCK = 512;

function put(header: Buffer, offset: number, length: number, text: string): void {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length > length) throw new Error(`"${text}" does not fit a tar header field of ${length} bytes`);
  bytes.copy(header, offset);
}

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, "0")}\0`;
}

/** A name over 100 bytes goes into the ustar prefix field, split at a slash. */
function split_name(name: string): { prefix: string; name: string } {
  if (Buffer.byteLength(name) <= 100) return { prefix: "", name };
  for (let slash = name.lastIndexOf("/"); slash > 0; slash = name.lastIndexOf("/", slash - 1)) {
    const rest = name.slice(slash + 1);
    if (Buffer.byteLength(rest) <= 100 && Buffer.byteLength(name.slice(0, slash)) <= 155) return { prefix: name.slice(0, slash), name: rest };
  }
  throw new Error(`the archive path ${name} is too long for a tar header`);
}

function header_of(entry: ArchiveEntry, mtime_s: number): Buffer {
  const header = Buffer.alloc(BLOCK);
  const { prefix, name } = split_name(entry.name);
  put(header, 0, 100, name);
  put(header, 100, 8, octal(0o600, 8));
  put(header, 108, 8, octal(0, 8));
  put(header, 116, 8, octal(0, 8));
  put(header, 124, 12, octal(entry.data.length, 12));
  put(header, 136, 12, octal(mtime_s, 12));
  put(header, 148, 8, " ".repeat(8));
  put(header, 156, 1, "0");
  put(header, 257, 6, "ustar\0");
  put(header, 263, 2, "00");
  put(header, 345, 155, prefix);
  let sum = 0;
  for (const byte of header) sum += byte;
  put(header, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return header;
}

/**
 * A gzipped POSIX ustar archive of regular files (what `tar -xzf` unpacks), built in memory: a doctor bundle
 * is a handful of small files, and a tar writer this size spares the package a dependency.
 */
export function tar_gz(entries: readonly ArchiveEntry[], mtime: Date = new Date()): Buffer {
  const mtime_s = Math.floor(mtime.getTime() / 1000);
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(header_of(entry, mtime_s), entry.data);
    const padding = (BLOCK - (entry.data.length % BLOCK)) % BLOCK;
    if (padding > 0) parts.push(Buffer.alloc(padding));
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return zlib.gzipSync(Buffer.concat(parts));
}

import fs from "node:fs";

const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

export type LineWindow = {
  content: string;
  /** First and last line returned, 1-based (0 and 0 when none). */
  start: number;
  end: number;
  total_lines: number;
  truncated: boolean;
  /** The file's first 8 KiB hold a NUL byte: no text was returned. */
  binary: boolean;
};

/**
 * Lines `first` … `first + count - 1` of a file, read in chunks so a large artifact is never held whole;
 * whole lines only, up to `max_chars` bytes (a single longer line comes back cut, marked truncated).
 * The rest of the file is still read, to count its lines.
 */
export function read_lines(file: string, options: { first: number; count: number; max_chars: number }): LineWindow {
  const { first, count, max_chars } = options;
  const last_wanted = first + count - 1;
  const fd = fs.openSync(file, "r");
  const chunk = Buffer.alloc(CHUNK_BYTES);
  const kept: Buffer[] = [];
  let kept_bytes = 0;
  let current: Buffer[] = [];
  let current_bytes = 0;
  let line = 1;
  let start = 0;
  let end = 0;
  let capped = false;
  let size = 0;
  let ends_with_newline = false;
  /** The line that just ended (or the file's last, unterminated one): keep it if it is wanted and fits. */
  const close_line = () => {
    if (line >= first && line <= last_wanted && !capped) {
      const room = max_chars - kept_bytes;
      if (current_bytes <= room || kept.length === 0) {
        const bytes = Buffer.concat(current);
        kept.push(bytes.subarray(0, Math.min(bytes.byteLength, max_chars)));
        kept_bytes += Math.min(bytes.byteLength, max_chars);
        capped ||= bytes.byteLength > max_chars;
        if (start === 0) start = line;
        end = line;
      } else capped = true;
    }
    current = [];
    current_bytes = 0;
  };
  try {
    for (let read = fs.readSync(fd, chunk, 0, CHUNK_BYTES, null); read > 0; read = fs.readSync(fd, chunk, 0, CHUNK_BYTES, null)) {
      if (size === 0 && chunk.subarray(0, Math.min(read, 8192)).includes(0)) {
        return { content: "", start: 0, end: 0, total_lines: 0, truncated: false, binary: true };
      }
      size += read;
      const view = chunk.subarray(0, read);
      for (let position = 0; position < read; ) {
        const newline = view.indexOf(NEWLINE, position);
        const stop = newline === -1 ? read : newline + 1;
        // Bytes of a line that is not wanted, or past what could be kept, are counted, not copied.
        if (line >= first && line <= last_wanted && !capped && current_bytes <= max_chars) {
          current.push(Buffer.from(view.subarray(position, stop)));
          current_bytes += stop - position;
        }
        position = stop;
        ends_with_newline = newline !== -1;
        if (newline !== -1) {
          close_line();
          line += 1;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  if (size > 0 && !ends_with_newline) close_line();
  const total_lines = size === 0 ? 0 : ends_with_newline ? line - 1 : line;
  return {
    content: Buffer.concat(kept).toString("utf8"),
    start,
    end,
    total_lines,
    truncated: capped || start > 1 || end < total_lines,
    binary: false,
  };
}

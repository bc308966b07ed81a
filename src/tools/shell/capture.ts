import { StringDecoder } from "node:string_decoder";

/** One output stream: every chunk up to the cap, plus a rolling tail so the end is never lost. */
export class Capture {
  readonly #head: Buffer[] = [];
  #head_bytes = 0;
  #tail: Buffer[] = [];
  #tail_bytes = 0;
  total_bytes = 0;
  readonly #decoder = new StringDecoder("utf8");

  constructor(private readonly cap: number) {}

  /** Stores a chunk; returns its text for live deltas. */
  push(chunk: Buffer): string {
    this.total_bytes += chunk.byteLength;
    if (this.#head_bytes < this.cap) {
      const room = this.cap - this.#head_bytes;
      const part = chunk.byteLength <= room ? chunk : chunk.subarray(0, room);
      this.#head.push(part);
      this.#head_bytes += part.byteLength;
    }
    this.#tail.push(chunk);
    this.#tail_bytes += chunk.byteLength;
    let oldest = this.#tail[0];
    while (this.#tail.length > 1 && oldest !== undefined && this.#tail_bytes - oldest.byteLength >= this.cap / 4) {
      this.#tail.shift();
      this.#tail_bytes -= oldest.byteLength;
      oldest = this.#tail[0];
    }
    return this.#decoder.write(chunk);
  }

  flush(): string {
    return this.#decoder.end();
  }

  get overflowed(): boolean {
    return this.total_bytes > this.#head_bytes;
  }

  /** The full output, or (past the cap) its head and tail around a marker saying how much was dropped. */
  content(): Buffer {
    const head = Buffer.concat(this.#head);
    if (!this.overflowed) return head;
    const tail = Buffer.concat(this.#tail);
    const keep_tail = tail.subarray(Math.max(0, tail.byteLength - Math.floor(this.cap / 4)));
    const dropped = this.total_bytes - head.byteLength - keep_tail.byteLength;
    const marker = Buffer.from(`\n[air: ${dropped} bytes of output dropped here; ${this.total_bytes} bytes in all]\n`, "utf8");
    return Buffer.concat([head.subarray(0, head.byteLength - Math.floor(this.cap / 4)), marker, keep_tail]);
  }

  tail(chars: number): { text: string; truncated: boolean } {
    const source = this.overflowed ? Buffer.concat(this.#tail) : Buffer.concat(this.#head);
    const window = source.subarray(Math.max(0, source.byteLength - chars * 4));
    let text = window.toString("utf8");
    // A window that starts inside a multi-byte character decodes it as replacement characters.
    if (window.byteLength < source.byteLength) text = text.replace(/^\uFFFD+/, "");
    const sliced = text.length > chars;
    if (sliced) text = text.slice(text.length - chars);
    return { text, truncated: sliced || window.byteLength < this.total_bytes };
  }
}

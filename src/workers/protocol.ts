import * as v from "valibot";
import { AirFailure } from "../contracts/errors.js";
import {
  direction_of,
  IpcMessage,
  MAX_LINE_BYTES,
  PROTOCOL_VERSION,
  protocol_error,
  type IpcDirection,
  type IpcMessageOf,
  type IpcProtocolErrorCode,
  type ParentToWorkerKind,
  type WorkerToParentKind,
} from "../contracts/ipc.js";

/**
 * One NDJSON line ⇄ one validated `IpcMessage` (seeds 000 §8.2 `WorkerProtocol`). Both sides use it: the
 * worker decodes `parent_to_worker` lines, the parent `worker_to_parent` lines. Every failure is an
 * `IpcProtocolError` naming what was wrong; nothing here throws anything else.
 */

export class IpcProtocolError extends AirFailure {
  readonly code: IpcProtocolErrorCode;

  constructor(code: IpcProtocolErrorCode, message: string, metadata: Record<string, unknown> = {}) {
    super(protocol_error(code, message, metadata));
    this.code = code;
  }
}

export type ProtocolOptions = {
  /** The protocol version lines must carry (default `PROTOCOL_VERSION`). */
  protocol_version?: number;
  max_line_bytes?: number;
};

type Receivable<D extends IpcDirection> = D extends "parent_to_worker" ? IpcMessageOf<ParentToWorkerKind> : IpcMessageOf<WorkerToParentKind>;

const PREVIEW_CHARS = 120;

function preview(line: string): string {
  return line.length <= PREVIEW_CHARS ? line : `${line.slice(0, PREVIEW_CHARS)}…`;
}

/**
 * Parses one line (without its newline) sent in `direction`: size, JSON, envelope + payload schema, the
 * direction of its kind, and the protocol version.
 */
export function decode_line<D extends IpcDirection>(line: string, direction: D, options: ProtocolOptions = {}): Receivable<D> {
  const limit = options.max_line_bytes ?? MAX_LINE_BYTES;
  const bytes = Buffer.byteLength(line, "utf8");
  if (bytes > limit) throw new IpcProtocolError("line_too_long", `a line of ${bytes} bytes exceeds the limit of ${limit}`, { bytes, limit });
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    throw new IpcProtocolError("malformed_json", `not a JSON line: ${JSON.stringify(preview(line))}`);
  }
  const parsed = v.safeParse(IpcMessage, json);
  if (!parsed.success) {
    const kind = typeof json === "object" && json !== null ? (json as { kind?: unknown }).kind : undefined;
    throw new IpcProtocolError("invalid_message", `${typeof kind === "string" ? `"${kind}" ` : ""}message fails its schema: ${v.summarize(parsed.issues)}`, {
      kind: typeof kind === "string" ? kind : null,
    });
  }
  const message = parsed.output;
  check_direction(message, direction);
  const expected_version = options.protocol_version ?? PROTOCOL_VERSION;
  if (message.protocol_version !== expected_version) {
    throw new IpcProtocolError("version_mismatch", `protocol version ${message.protocol_version}, expected ${expected_version}`, {
      received: message.protocol_version,
      expected: expected_version,
    });
  }
  return message as Receivable<D>;
}

/** A message must travel in the direction its kind belongs to, and say so. */
function check_direction(message: IpcMessage, direction: IpcDirection): void {
  const belongs = direction_of(message.kind);
  if (belongs !== direction || message.direction !== direction) {
    throw new IpcProtocolError("wrong_direction", `"${message.kind}" (${belongs}, marked ${message.direction}) received on the ${direction} channel`, {
      kind: message.kind,
      direction: message.direction,
    });
  }
}

/** Validates a message for sending in `direction` and renders it as one line, newline included. */
export function encode_message(message: unknown, direction: IpcDirection, options: ProtocolOptions = {}): string {
  const parsed = v.safeParse(IpcMessage, message);
  if (!parsed.success) throw new IpcProtocolError("invalid_message", `refusing to send an invalid message: ${v.summarize(parsed.issues)}`);
  check_direction(parsed.output, direction);
  const line = JSON.stringify(parsed.output);
  const limit = options.max_line_bytes ?? MAX_LINE_BYTES;
  const bytes = Buffer.byteLength(line, "utf8");
  if (bytes > limit) {
    throw new IpcProtocolError("line_too_long", `a "${parsed.output.kind}" line of ${bytes} bytes exceeds the limit of ${limit}`, {
      bytes,
      limit,
      kind: parsed.output.kind,
    });
  }
  return `${line}\n`;
}

export type LineSink = {
  line(text: string): void;
  /** A line grew past the limit; its bytes up to the next newline are dropped. Called once per such line. */
  overflow(bytes_seen: number): void;
};

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into lines without ever holding more than `max_line_bytes` of one line: an
 * over-long line is reported as soon as it crosses the limit and skipped to its end, so a runaway writer
 * cannot grow the reader's memory (readline would buffer the whole line).
 */
export class LineSplitter {
  readonly #limit: number;
  #parts: Buffer[] = [];
  #size = 0;
  #skipping = false;

  constructor(
    private readonly sink: LineSink,
    max_line_bytes: number = MAX_LINE_BYTES,
  ) {
    this.#limit = max_line_bytes;
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      this.#take(chunk.subarray(start, end));
      if (newline === -1) return;
      this.#finish_line();
      start = newline + 1;
    }
  }

  /** The stream ended: a last line without its newline still counts. */
  end(): void {
    if (this.#size > 0 || this.#skipping) this.#finish_line();
  }

  #take(piece: Buffer): void {
    if (piece.length === 0 || this.#skipping) return;
    if (this.#size + piece.length > this.#limit) {
      const seen = this.#size + piece.length;
      this.#parts = [];
      this.#size = 0;
      this.#skipping = true;
      this.sink.overflow(seen);
      return;
    }
    this.#parts.push(piece);
    this.#size += piece.length;
  }

  #finish_line(): void {
    if (this.#skipping) {
      this.#skipping = false;
      return;
    }
    const text = Buffer.concat(this.#parts, this.#size).toString("utf8");
    this.#parts = [];
    this.#size = 0;
    // A trailing "\r" of a CRLF writer is not part of the JSON, and a blank line carries nothing.
    const line = text.endsWith("\r") ? text.slice(0, -1) : text;
    if (line.length > 0) this.sink.line(line);
  }
}

import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import * as v from "valibot";
import { DEFAULT_REQUESTER, REQUESTER_HEADER } from "../requester.js";
import { expectation_mismatches } from "./expectations.js";
import { broken_stream_events, message_start_events, message_stream_events, reply_message, sse, type SseEvent } from "./reply.js";
import { CountTokensRequestBody, estimate_tokens, MessagesRequestBody } from "./request-body.js";
import { load_script, parse_script, type ErrorStatus, type Script, type ScriptedError, type ScriptInput, type Turn } from "./script.js";

/** What the server did with a request. `rejected`: the request, not the script, was at fault (or the script ran out). */
export type RecordedOutcome =
  | { readonly kind: "reply"; readonly stream: boolean }
  | { readonly kind: "error"; readonly status: number; readonly type: string; readonly in_stream: boolean }
  | { readonly kind: "broken_stream" }
  | { readonly kind: "count_tokens"; readonly input_tokens: number }
  | { readonly kind: "rejected"; readonly status: number; readonly type: string; readonly reason: string };

export type RecordedRequest = {
  /** 1 for the first request the server received. */
  readonly seq: number;
  readonly method: string;
  readonly path: string;
  /** Lower-case names, as received (x-api-key included). */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  readonly body: unknown;
  readonly requester: string;
  /** The requester's turn that answered (0-based); absent when no turn was used. */
  readonly turn_index?: number;
  readonly outcome: RecordedOutcome;
};

export type ScriptedServerOptions = {
  /** A script file (JSON or YAML), or the script itself. */
  readonly script: string | ScriptInput | Script;
  /** Every request is appended here as a JSON line, with x-api-key and authorization redacted. */
  readonly record_file?: string;
  /** When set, a request without this x-api-key is refused with a 401, as the real API would. */
  readonly api_key?: string;
};

export type ScriptedServer = {
  /** The base URL to give the SDK (`http://127.0.0.1:<port>`). */
  readonly url: string;
  requests(): RecordedRequest[];
  close(): Promise<void>;
};

const DEFAULT_ERROR_TYPES: Record<ErrorStatus, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  429: "rate_limit_error",
  500: "api_error",
  503: "api_error",
  529: "overloaded_error",
};

const SECRET_HEADERS = new Set(["x-api-key", "authorization"]);

/**
 * A loopback server speaking the Anthropic Messages API (`POST /v1/messages`, streamed or not, and
 * `POST /v1/messages/count_tokens`) that answers from a script, so that the real SDK and our real
 * adapter are exercised over the wire. Anything off-script is answered with a 400 whose message says
 * what was expected, so a test fails with the reason rather than a hang or a vague mismatch.
 */
export async function start_scripted_server(options: ScriptedServerOptions): Promise<ScriptedServer> {
  const script = typeof options.script === "string" ? load_script(options.script) : parse_script(options.script);
  const recorded: RecordedRequest[] = [];
  const cursors = new Map<string, number>();
  let seq = 0;

  const record = (entry: RecordedRequest) => {
    recorded.push(entry);
    if (options.record_file !== undefined) fs.appendFileSync(options.record_file, `${JSON.stringify(for_file(entry))}\n`);
  };

  const server = http.createServer((req, res) => {
    // A client that goes away mid-request or mid-stream is normal here (aborts, broken-stream tests).
    req.on("error", () => undefined);
    res.on("error", () => undefined);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      seq += 1;
      const exchange = new Exchange(seq, req, res, Buffer.concat(chunks).toString("utf8"), record);
      try {
        answer(exchange, script, cursors, options.api_key);
      } catch (error) {
        // A bug in this server must show up in the test as a response, not as a hung request.
        exchange.reject(500, "api_error", `scripted model server failed: ${error instanceof Error ? error.stack : String(error)}`);
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  // Idempotent: a test may close the server early and the cleanup close it again.
  const close = () =>
    (closed ??= new Promise<void>((resolve, reject) => {
      server.close((error) => (error === undefined ? resolve() : reject(error)));
      server.closeAllConnections();
    }));

  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => recorded.map((entry) => structuredClone(entry)),
    close,
  };
}

function for_file(entry: RecordedRequest): RecordedRequest {
  const headers = Object.fromEntries(Object.entries(entry.headers).map(([name, value]) => [name, SECRET_HEADERS.has(name) ? "[redacted]" : value]));
  return { ...entry, headers };
}

function answer(exchange: Exchange, script: Script, cursors: Map<string, number>, api_key: string | undefined): void {
  const route = exchange.req.method === "POST" ? exchange.path : undefined;
  if (route !== "/v1/messages" && route !== "/v1/messages/count_tokens") {
    return exchange.reject(404, "not_found_error", `${exchange.req.method} ${exchange.path} is not served (only POST /v1/messages and /v1/messages/count_tokens)`);
  }
  if (exchange.body === undefined) return exchange.reject(400, "invalid_request_error", "the request body is not JSON");
  if (api_key !== undefined && exchange.header("x-api-key") !== api_key) {
    return exchange.reject(401, "authentication_error", "invalid x-api-key");
  }

  if (route === "/v1/messages/count_tokens") {
    const body = v.safeParse(CountTokensRequestBody, exchange.body);
    if (!body.success) return exchange.reject(400, "invalid_request_error", v.summarize(body.issues));
    const input_tokens = estimate_tokens([body.output.system, body.output.tools, body.output.messages]);
    exchange.record({ kind: "count_tokens", input_tokens });
    return exchange.json(200, { input_tokens });
  }

  const body = v.safeParse(MessagesRequestBody, exchange.body);
  if (!body.success) return exchange.reject(400, "invalid_request_error", v.summarize(body.issues));

  const requester = exchange.requester;
  const turns = script.turns[requester] ?? [];
  const index = cursors.get(requester) ?? 0;
  const turn = turns[index];
  if (turn === undefined) {
    return exchange.reject(400, "invalid_request_error",
      `scripted model server: the script has no turn left for requester "${requester}" ` +
      `(it has ${turns.length}; this is request ${index + 1} from "${requester}")`, index);
  }
  cursors.set(requester, index + 1);

  const mismatches = expectation_mismatches(turn.expect, body.output);
  if (mismatches.length > 0) {
    return exchange.reject(400, "invalid_request_error",
      `scripted model server: the request does not match turn ${index} of requester "${requester}": ${mismatches.join("; ")}`, index);
  }
  play(exchange, turn, body.output, index);
}

function play(exchange: Exchange, turn: Turn, body: MessagesRequestBody, turn_index: number): void {
  const stream = body.stream === true;
  const message_id = `msg_scripted_${exchange.seq}`;
  switch (turn.kind) {
    case "reply": {
      const message = reply_message(turn.reply, body, message_id);
      exchange.record({ kind: "reply", stream }, turn_index);
      return stream ? exchange.stream(message_stream_events(message)) : exchange.json(200, message);
    }
    case "error":
      return play_error(exchange, turn.error, body, turn_index, stream, message_id);
    case "broken_stream": {
      exchange.record({ kind: "broken_stream" }, turn_index);
      if (!stream) return exchange.cut();
      const message = reply_message({ content: [{ type: "text", text: "" }] }, body, message_id);
      return exchange.stream(broken_stream_events(message), { cut: true });
    }
  }
}

function play_error(exchange: Exchange, error: ScriptedError, body: MessagesRequestBody, turn_index: number, stream: boolean, message_id: string): void {
  const type = error.type ?? DEFAULT_ERROR_TYPES[error.status];
  const message = error.message ?? `scripted ${type}`;
  const in_stream = stream && error.in_stream === true;
  exchange.record({ kind: "error", status: error.status, type, in_stream }, turn_index);
  if (in_stream) {
    const start = message_start_events(reply_message({ content: [{ type: "text", text: "" }] }, body, message_id));
    return exchange.stream([...start, { event: "error", data: { type: "error", error: { type, message } } }]);
  }
  const headers: Record<string, string> = error.retry_after_s === undefined ? {} : { "retry-after": String(error.retry_after_s) };
  exchange.json(error.status, { type: "error", error: { type, message } }, headers);
}

/** One request and its response: recording and the few ways of answering. */
class Exchange {
  readonly path: string;
  readonly body: unknown;
  readonly #raw: string;
  #recorded = false;

  constructor(
    readonly seq: number,
    readonly req: http.IncomingMessage,
    readonly res: http.ServerResponse,
    raw: string,
    readonly on_record: (entry: RecordedRequest) => void,
  ) {
    this.path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    this.#raw = raw;
    try {
      this.body = JSON.parse(raw);
    } catch {
      this.body = undefined;
    }
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name];
    return Array.isArray(value) ? value.join(", ") : value;
  }

  get requester(): string {
    const value = this.header(REQUESTER_HEADER);
    return value === undefined || value === "" ? DEFAULT_REQUESTER : value;
  }

  record(outcome: RecordedOutcome, turn_index?: number): void {
    if (this.#recorded) return;
    this.#recorded = true;
    const headers: Record<string, string> = {};
    for (const name of Object.keys(this.req.headers)) headers[name] = this.header(name) ?? "";
    this.on_record({
      seq: this.seq,
      method: this.req.method ?? "",
      path: this.path,
      headers,
      body: this.body ?? this.#raw,
      requester: this.requester,
      ...(turn_index === undefined ? {} : { turn_index }),
      outcome,
    });
  }

  /** Refuses the request with an API-shaped error body; recorded as `rejected`. */
  reject(status: number, type: string, reason: string, turn_index?: number): void {
    this.record({ kind: "rejected", status, type, reason }, turn_index);
    if (this.res.headersSent) return void this.res.destroy();
    this.json(status, { type: "error", error: { type, message: reason } });
  }

  json(status: number, body: unknown, headers: Record<string, string> = {}): void {
    this.res.writeHead(status, { "content-type": "application/json", "request-id": `req_scripted_${this.seq}`, ...headers });
    this.res.end(JSON.stringify(body));
  }

  /** Writes each event separately so the client's SSE parser sees them arrive piece by piece. */
  stream(events: readonly SseEvent[], options: { cut?: boolean } = {}): void {
    this.res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": `req_scripted_${this.seq}` });
    const text = events.map(sse);
    const last = text.pop() ?? "";
    for (const piece of text) this.res.write(piece);
    if (options.cut === true) {
      // Once the events are flushed, drop the connection without ending the chunked response.
      this.res.write(last, () => this.res.socket?.destroy());
    } else {
      this.res.end(last);
    }
  }

  /** Drops the connection without any response. */
  cut(): void {
    this.req.socket.destroy();
  }
}

import type http from "node:http";
import { DEFAULT_REQUESTER, REQUESTER_HEADER } from "../requester.js";

/** The API a request came in on: the Anthropic Messages API or OpenAI Chat Completions. */
export type ScriptedApi = "anthropic_messages" | "openai_chat";

/** What the server did with a request. `rejected`: the request, not the script, was at fault (or the script ran out). */
export type RecordedOutcome =
  | { readonly kind: "reply"; readonly stream: boolean }
  | { readonly kind: "error"; readonly status: number; readonly type: string; readonly in_stream: boolean }
  | { readonly kind: "broken_stream" }
  | { readonly kind: "count_tokens"; readonly input_tokens: number }
  | { readonly kind: "models"; readonly count: number }
  | { readonly kind: "rejected"; readonly status: number; readonly type: string; readonly reason: string };

export type RecordedRequest = {
  /** 1 for the first request the server received. */
  readonly seq: number;
  readonly method: string;
  readonly path: string;
  /** Absent for a path the server does not serve. */
  readonly api?: ScriptedApi;
  /** Lower-case names, as received (x-api-key and authorization included). */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  readonly body: unknown;
  readonly requester: string;
  /** The conversation whose matcher selected the request; absent when its requester's own turns answered. */
  readonly conversation?: string;
  /** The turn that answered (0-based, in its conversation or its requester's turns); absent when no turn was used. */
  readonly turn_index?: number;
  readonly outcome: RecordedOutcome;
};

/** An error as the body of the API the request came in on; `code` only exists in OpenAI's. */
export type ApiError = { readonly type: string; readonly message: string; readonly code?: string | null };

export function error_body(api: ScriptedApi | undefined, error: ApiError): unknown {
  if (api === "openai_chat") return { error: { message: error.message, type: error.type, param: null, code: error.code ?? null } };
  return { type: "error", error: { type: error.type, message: error.message } };
}

/** One request and its response: recording and the few ways of answering. */
export class Exchange {
  readonly path: string;
  readonly body: unknown;
  /** Set once the path is known to be served. */
  api: ScriptedApi | undefined;
  /** Set once a conversation has selected the request. */
  conversation: string | undefined;
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
      ...(this.api === undefined ? {} : { api: this.api }),
      headers,
      body: this.body ?? this.#raw,
      requester: this.requester,
      ...(this.conversation === undefined ? {} : { conversation: this.conversation }),
      ...(turn_index === undefined ? {} : { turn_index }),
      outcome,
    });
  }

  /** Refuses the request with an API-shaped error body; recorded as `rejected`. */
  reject(status: number, type: string, reason: string, turn_index?: number, code?: string): void {
    this.record({ kind: "rejected", status, type, reason }, turn_index);
    if (this.res.headersSent) return void this.res.destroy();
    this.json(status, error_body(this.api, { type, message: reason, code: code ?? null }));
  }

  json(status: number, body: unknown, headers: Record<string, string> = {}): void {
    this.res.writeHead(status, { "content-type": "application/json", ...this.#id_headers(), ...headers });
    this.res.end(JSON.stringify(body));
  }

  /** Writes each server-sent event separately so the client's SSE parser sees them arrive piece by piece. */
  stream(events: readonly string[], options: { cut?: boolean } = {}): void {
    this.res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...this.#id_headers() });
    const text = [...events];
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

  /** Each API's request id header, which its SDK reports as `requestID`. */
  #id_headers(): Record<string, string> {
    const id = `req_scripted_${this.seq}`;
    return this.api === "openai_chat" ? { "x-request-id": id } : { "request-id": id };
  }
}

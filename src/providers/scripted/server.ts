import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import * as v from "valibot";
import { ChatRequestBody, chat_view } from "./chat-body.js";
import { play_chat } from "./chat-route.js";
import { Exchange, type RecordedRequest, type ScriptedApi } from "./exchange.js";
import { play_messages } from "./messages-route.js";
import { answer_models, SCRIPTED_MODELS } from "./models-route.js";
import { CountTokensRequestBody, estimate_tokens, messages_view, MessagesRequestBody, type RequestView } from "./request-body.js";
import { load_script, parse_script, type Script, type ScriptInput } from "./script.js";
import { TurnPicker, type PickedTurn } from "./turn-picker.js";

export type { RecordedRequest } from "./exchange.js";

export type ScriptedServerOptions = {
  /** A script file (JSON or YAML), or the script itself. */
  readonly script: string | ScriptInput | Script;
  /** Every request is appended here as a JSON line, with x-api-key and authorization redacted. */
  readonly record_file?: string;
  /**
   * When set, a request without this key is refused with a 401, as the real API would: as x-api-key on
   * the Messages API, as `Authorization: Bearer` on Chat Completions.
   */
  readonly api_key?: string;
  /**
   * Milliseconds to wait before each answer whose turn, conversation and script give no `delay_ms`: a
   * benchmark's stand-in for a real model's latency over a script written without one.
   */
  readonly delay_ms?: number;
  /** What `GET /v1/models` lists (default `SCRIPTED_MODELS`). */
  readonly models?: readonly string[];
  /**
   * Called with each request's turn once it is picked, before its delay: a returned promise holds the answer
   * until it settles. A test holds a worker's turn while it looks at the project, so what it sees there is
   * the same under any timing.
   */
  readonly hold?: (turn: HeldTurn) => Promise<unknown> | undefined;
};

/** The turn a request was given, as `hold` sees it. */
export type HeldTurn = { readonly requester: string; readonly conversation?: string; readonly index: number };

export type ScriptedServer = {
  /** The base URL to give the SDK (`http://127.0.0.1:<port>`). */
  readonly url: string;
  requests(): RecordedRequest[];
  close(): Promise<void>;
};

const SECRET_HEADERS = new Set(["x-api-key", "authorization"]);

/**
 * A loopback server speaking the Anthropic Messages API (`POST /v1/messages`, streamed or not, and
 * `POST /v1/messages/count_tokens`) and OpenAI Chat Completions (`POST /v1/chat/completions`, streamed
 * or not), plus `GET /v1/models` in either API's shape, that answers from one script, so that the real SDKs and our real adapters are exercised over
 * the wire. Anything off-script is answered with a 400 whose message says
 * what was expected, so a test fails with the reason rather than a hang or a vague mismatch.
 */
export async function start_scripted_server(options: ScriptedServerOptions): Promise<ScriptedServer> {
  const script = typeof options.script === "string" ? load_script(options.script) : parse_script(options.script);
  const recorded: RecordedRequest[] = [];
  const picker = new TurnPicker(script, options.delay_ms);
  const delays = new Delays();
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
      guarded(exchange, () => {
        if (exchange.req.method === "GET" && MODEL_LIST_PATHS.has(exchange.path)) answer_models(exchange, options.models ?? SCRIPTED_MODELS, options.api_key);
        else answer(exchange, { picker, delays, api_key: options.api_key, hold: options.hold });
      });
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
      delays.cancel();
      server.close((error) => (error === undefined ? resolve() : reject(error)));
      server.closeAllConnections();
    }));

  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => recorded.map((entry) => structuredClone(entry)),
    close,
  };
}

/** A bug in this server must show up in the test as a response, not as a hung request or a crashed process. */
function guarded(exchange: Exchange, work: () => void): void {
  try {
    work();
  } catch (error) {
    exchange.reject(500, "api_error", `scripted model server failed: ${error instanceof Error ? error.stack : String(error)}`);
  }
}

function for_file(entry: RecordedRequest): RecordedRequest {
  const headers = Object.fromEntries(Object.entries(entry.headers).map(([name, value]) => [name, SECRET_HEADERS.has(name) ? "[redacted]" : value]));
  return { ...entry, headers };
}

type Route = { readonly api: ScriptedApi; readonly count_tokens?: true };

/** `/chat/completions` too: an OpenAI base URL usually ends in /v1, but a compatible server's may not. */
const ROUTES: Readonly<Record<string, Route>> = {
  "/v1/messages": { api: "anthropic_messages" },
  "/v1/messages/count_tokens": { api: "anthropic_messages", count_tokens: true },
  "/v1/chat/completions": { api: "openai_chat" },
  "/chat/completions": { api: "openai_chat" },
};

/** `/models` too, for a base URL without /v1 (as for chat completions). */
const MODEL_LIST_PATHS = new Set(["/v1/models", "/models"]);

/** What answering a request needs besides the request: the turns, the pending delays, the key to check. */
type Answering = {
  readonly picker: TurnPicker;
  readonly delays: Delays;
  readonly api_key: string | undefined;
  readonly hold: ScriptedServerOptions["hold"];
};

function answer(exchange: Exchange, answering: Answering): void {
  const route = exchange.req.method === "POST" ? ROUTES[exchange.path] : undefined;
  if (route === undefined) {
    return exchange.reject(
      404,
      "not_found_error",
      `${exchange.req.method} ${exchange.path} is not served (only POST ${Object.keys(ROUTES).join(", ")} and GET ${[...MODEL_LIST_PATHS].join(", ")})`,
    );
  }
  exchange.api = route.api;
  if (exchange.body === undefined) return exchange.reject(400, "invalid_request_error", "the request body is not JSON");
  if (route.api === "openai_chat") return answer_chat(exchange, answering);

  if (answering.api_key !== undefined && exchange.header("x-api-key") !== answering.api_key) {
    return exchange.reject(401, "authentication_error", "invalid x-api-key");
  }
  if (route.count_tokens === true) {
    const body = v.safeParse(CountTokensRequestBody, exchange.body);
    if (!body.success) return exchange.reject(400, "invalid_request_error", v.summarize(body.issues));
    const input_tokens = estimate_tokens([body.output.system, body.output.tools, body.output.messages]);
    exchange.record({ kind: "count_tokens", input_tokens });
    return exchange.json(200, { input_tokens });
  }
  const body = v.safeParse(MessagesRequestBody, exchange.body);
  if (!body.success) return exchange.reject(400, "invalid_request_error", v.summarize(body.issues));
  play_picked(exchange, answering, messages_view(body.output), (picked) => play_messages(exchange, picked.turn, body.output, picked.index));
}

function answer_chat(exchange: Exchange, answering: Answering): void {
  if (answering.api_key !== undefined && exchange.header("authorization") !== `Bearer ${answering.api_key}`) {
    return exchange.reject(401, "invalid_request_error", "Incorrect API key provided (Authorization: Bearer <key>)", undefined, "invalid_api_key");
  }
  const body = v.safeParse(ChatRequestBody, exchange.body);
  if (!body.success) return exchange.reject(400, "invalid_request_error", v.summarize(body.issues));
  play_picked(exchange, answering, chat_view(body.output), (picked) => play_chat(exchange, picked.turn, body.output, picked.index));
}

/** Takes the request's turn now and plays it after the turn's delay; a request no turn answers gets a 400 at once. */
function play_picked(exchange: Exchange, answering: Answering, view: RequestView, play: (picked: PickedTurn) => void): void {
  const pick = answering.picker.pick({ requester: exchange.requester, view });
  exchange.conversation = pick.ok ? pick.picked.conversation : pick.refusal.conversation;
  if (!pick.ok) return exchange.reject(400, "invalid_request_error", pick.refusal.reason, pick.refusal.index);
  const { picked } = pick;
  const answer_later = () => answering.delays.after(picked.delay_ms, () => guarded(exchange, () => play(picked)));
  const held = answering.hold?.({
    requester: exchange.requester,
    index: picked.index,
    ...(picked.conversation === undefined ? {} : { conversation: picked.conversation }),
  });
  if (held === undefined) return answer_later();
  held.then(answer_later, (error: unknown) => exchange.reject(500, "api_error", `scripted model server: the hold failed: ${String(error)}`));
}

/** The answers waiting out their delay; closing the server drops them with their connections. */
class Delays {
  readonly #pending = new Set<NodeJS.Timeout>();
  #cancelled = false;

  /** After `cancel`, nothing more runs: an answer held past the server's close is dropped like a delayed one. */
  after(ms: number, run: () => void): void {
    if (this.#cancelled) return;
    if (ms === 0) return run();
    const timer = setTimeout(() => {
      this.#pending.delete(timer);
      run();
    }, ms);
    this.#pending.add(timer);
  }

  cancel(): void {
    this.#cancelled = true;
    for (const timer of this.#pending) clearTimeout(timer);
    this.#pending.clear();
  }
}

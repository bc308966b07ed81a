import path from "node:path";
import { pathToFileURL } from "node:url";
import {
  CancellationTokenSource,
  createMessageConnection,
  ErrorCodes,
  type MessageConnection,
  type RequestParam,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-jsonrpc/node";
import {
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  type Diagnostic as LspDiagnostic,
  MarkupKind,
  PublishDiagnosticsNotification,
  type RequestType,
  ShutdownRequest,
} from "vscode-languageserver-protocol";
import { air_failure } from "../../contracts/errors.js";
import { clangd_cancelled, clangd_exited, clangd_timeout } from "./errors.js";
import { type ClangdLaunch, ClangdProcess, settled_within } from "./process.js";

export type ClangdClientOptions = ClangdLaunch & {
  /** How long any one request (or wait for a file's diagnostics) may take before the clangd is stopped. */
  readonly request_timeout_ms: number;
};

type Document = { version: number; text: string };
type Published = { version: number | undefined; diagnostics: LspDiagnostic[] };
type Waiter = { version: number; resolve(diagnostics: LspDiagnostic[]): void };

/** vscode-jsonrpc's own failures of a closed or broken pipe: the process exit that comes with them is the error. */
const TRANSPORT_ERRORS = new Set<number>([
  ErrorCodes.MessageWriteError,
  ErrorCodes.MessageReadError,
  ErrorCodes.PendingResponseRejected,
  ErrorCodes.ConnectionInactive,
]);

/** How long `shutdown` may take on close before clangd is told to exit anyway. */
const SHUTDOWN_MS = 2000;

export function file_uri(file: string): string {
  return pathToFileURL(file).href;
}

function language_of(file: string): string {
  return path.extname(file) === ".c" ? "c" : "cpp";
}

/**
 * One clangd for one workspace root, spoken to over LSP on its stdio. Every request is bounded: it resolves,
 * or fails with an AirError when clangd errs, dies (its stderr tail quoted) or does not answer in time (then
 * this clangd is killed, so nothing waits behind a hung server).
 */
export class ClangdClient {
  readonly #process: ClangdProcess;
  readonly #connection: MessageConnection;
  readonly #timeout_ms: number;
  readonly #documents = new Map<string, Document>();
  readonly #published = new Map<string, Published>();
  readonly #waiters = new Map<string, Waiter[]>();

  private constructor(options: ClangdClientOptions) {
    this.#timeout_ms = options.request_timeout_ms;
    this.#process = new ClangdProcess(options);
    const { stdout, stdin } = this.#process.child;
    this.#connection = createMessageConnection(new StreamMessageReader(stdout), new StreamMessageWriter(stdin));
    this.#connection.onNotification(PublishDiagnosticsNotification.type, (params) => this.#on_diagnostics(params.uri, params.version, params.diagnostics));
    // A closed stream is reported through the process exit; the connection's own error events add nothing.
    this.#connection.onError(() => undefined);
    this.#connection.listen();
  }

  /** Starts clangd and completes the LSP handshake. */
  static async start(options: ClangdClientOptions): Promise<ClangdClient> {
    const client = new ClangdClient(options);
    try {
      await client.request(InitializeRequest.type, {
        processId: process.pid,
        rootUri: file_uri(options.root),
        workspaceFolders: null,
        capabilities: {
          textDocument: {
            publishDiagnostics: { relatedInformation: true, versionSupport: true },
            hover: { contentFormat: [MarkupKind.PlainText] },
            documentSymbol: { hierarchicalDocumentSymbolSupport: true },
          },
        },
      });
      await client.#guard("initialized", () => client.#connection.sendNotification(InitializedNotification.type, {}));
    } catch (error) {
      await client.#process.kill();
      client.#connection.dispose();
      throw error;
    }
    return client;
  }

  get pid(): number | null {
    return this.#process.pid;
  }

  get alive(): boolean {
    return this.#process.alive;
  }

  /** Gives clangd the file's current text: opened on first use, replaced when it changed on disk since. */
  async sync(file: string, text: string, signal?: AbortSignal): Promise<void> {
    const uri = file_uri(file);
    const known = this.#documents.get(uri);
    if (known?.text === text) return;
    if (known === undefined) {
      this.#documents.set(uri, { version: 1, text });
      const text_document = { uri, languageId: language_of(file), version: 1, text };
      await this.#guard(
        `didOpen of ${file}`,
        () => this.#connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: text_document }),
        signal,
      );
      return;
    }
    const version = known.version + 1;
    this.#documents.set(uri, { version, text });
    const params = { textDocument: { uri, version }, contentChanges: [{ text }] };
    await this.#guard(`didChange of ${file}`, () => this.#connection.sendNotification(DidChangeTextDocumentNotification.type, params), signal);
  }

  /** The diagnostics clangd publishes for the synced text of `file` (waits for them: clangd pushes, never answers). */
  async diagnostics(file: string, signal?: AbortSignal): Promise<LspDiagnostic[]> {
    const uri = file_uri(file);
    const document = this.#documents.get(uri);
    if (document === undefined) {
      throw air_failure({ kind: "system_error", message: `${file} was not synced before its diagnostics were asked`, retryability: "not_retryable" });
    }
    const published = this.#published.get(uri);
    if (published !== undefined && (published.version ?? document.version) >= document.version) return published.diagnostics;
    const arrived = new Promise<LspDiagnostic[]>((resolve) => {
      this.#waiters.set(uri, [...(this.#waiters.get(uri) ?? []), { version: document.version, resolve }]);
    });
    return this.#guard(`diagnostics of ${file}`, () => arrived, signal);
  }

  /** One LSP request, bounded by the timeout, the caller's signal and the process's life. */
  async request<P, R>(type: RequestType<P, R, unknown>, params: RequestParam<P>, signal?: AbortSignal): Promise<R> {
    const cancel = new CancellationTokenSource();
    try {
      return await this.#guard(type.method, () => this.#connection.sendRequest(type, params, cancel.token), signal);
    } catch (error) {
      // Only an abandoned request of a live clangd needs cancelling: a timeout has killed the process already.
      if (signal?.aborted === true && this.#process.alive) cancel.cancel();
      throw error;
    } finally {
      cancel.dispose();
    }
  }

  /** `shutdown` and `exit` as LSP asks, then SIGKILL if clangd is still there after `grace_ms`. */
  async close(grace_ms: number): Promise<void> {
    if (this.#process.alive) {
      // As promises, so a connection that closed meanwhile rejects instead of throwing out of close().
      await settled_within(
        Promise.resolve().then(() => this.#connection.sendRequest(ShutdownRequest.type)),
        SHUTDOWN_MS,
      );
      await settled_within(
        Promise.resolve().then(() => this.#connection.sendNotification(ExitNotification.type)),
        SHUTDOWN_MS,
      );
      this.#process.child.stdin.end();
    }
    await this.#process.wait_or_kill(grace_ms);
    this.#connection.dispose();
  }

  #on_diagnostics(uri: string, version: number | undefined, diagnostics: LspDiagnostic[]): void {
    this.#published.set(uri, { version, diagnostics });
    const waiting = this.#waiters.get(uri) ?? [];
    const ready = waiting.filter((waiter) => version === undefined || version >= waiter.version);
    this.#waiters.set(
      uri,
      waiting.filter((waiter) => !ready.includes(waiter)),
    );
    for (const waiter of ready) waiter.resolve(diagnostics);
  }

  /**
   * What `start` sends, unless clangd dies first (crash error), the timeout passes (clangd is killed) or the caller
   * aborts. A transport failure (thrown or rejected) is not reported itself: the exit it comes with is.
   */
  #guard<T>(what: string, start: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const child = this.#process;
    return new Promise<T>((resolve, reject) => {
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", on_abort);
        stop_listening();
        outcome();
      };
      const on_abort = () => settle(() => reject(clangd_cancelled(what)));
      const timer = setTimeout(() => {
        void child.kill();
        settle(() => reject(clangd_timeout(what, this.#timeout_ms)));
      }, this.#timeout_ms);
      let stop_listening: () => void = () => undefined;
      if (signal?.aborted === true) return on_abort();
      signal?.addEventListener("abort", on_abort, { once: true });
      stop_listening = child.on_exit((exit) => settle(() => reject(clangd_exited(what, exit, child.stderr_tail()))));
      let work: Promise<T>;
      try {
        work = start();
      } catch {
        return;
      }
      work.then(
        (value) => settle(() => resolve(value)),
        (error: unknown) => {
          if (error instanceof ResponseError && !TRANSPORT_ERRORS.has(error.code)) settle(() => reject(clangd_refused(what, error)));
        },
      );
    });
  }
}

function clangd_refused(what: string, error: ResponseError<unknown>) {
  return air_failure(
    {
      kind: "tool_error",
      message: `clangd refused ${what}: ${error.message}`,
      retryability: "retryable_after_change",
      user_action: "Check the file and position; clangd answers only for files it can parse.",
      metadata: { what, lsp_code: error.code },
    },
    error,
  );
}

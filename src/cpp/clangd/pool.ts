import { air_failure } from "../../contracts/errors.js";
import type { ClangdClient } from "./client.js";
import { find_compile_commands_dir } from "./compile-db.js";
import { clangd_missing } from "./errors.js";
import { find_clangd } from "./executable.js";

export type ClangdPoolOptions = {
  /** The clangd to run; by default the one `find_clangd` finds when the first client starts. */
  readonly executable?: string;
  readonly request_timeout_ms?: number;
  /** How long a closing clangd may take to exit after `shutdown`/`exit` before it is killed. */
  readonly close_grace_ms?: number;
};

type Entry = { readonly compile_commands_dir: string | null; readonly client: Promise<ClangdClient> };

const REQUEST_TIMEOUT_MS = 30_000;
const CLOSE_GRACE_MS = 2000;

/**
 * One clangd per workspace root, started by the first call that needs it and kept for the next ones. A clangd
 * that died or timed out is replaced on the next call, and so is one started before the workspace had the
 * `compile_commands.json` it has now. `close` stops them all; no call starts one afterwards.
 */
export class ClangdPool {
  readonly #options: ClangdPoolOptions;
  readonly #entries = new Map<string, Entry>();
  #started = 0;
  #closed = false;

  constructor(options: ClangdPoolOptions = {}) {
    this.#options = options;
  }

  /** How many clangd processes this pool has started over its life. */
  get started(): number {
    return this.#started;
  }

  /** The pids of the clangd processes running now. */
  async pids(): Promise<number[]> {
    const clients = await Promise.all([...this.#entries.values()].map((entry) => entry.client.catch(() => null)));
    return clients.flatMap((client) => (client?.alive === true && client.pid !== null ? [client.pid] : []));
  }

  /** The running clangd of `root` (an absolute, real path), started or restarted as needed. */
  async client(root: string): Promise<{ client: ClangdClient; compile_commands_dir: string | null }> {
    if (this.#closed) {
      throw air_failure({
        kind: "system_error",
        message: "the clangd pool is closed: its session stopped",
        retryability: "not_retryable",
        user_action: "Query clangd from a running session.",
      });
    }
    const compile_commands_dir = find_compile_commands_dir(root);
    const entry = this.#entries.get(root);
    if (entry !== undefined) {
      const client = await entry.client.catch(() => null);
      if (client?.alive === true && entry.compile_commands_dir === compile_commands_dir) return { client, compile_commands_dir };
      if (this.#entries.get(root) === entry) {
        this.#entries.delete(root);
        await client?.close(0);
      }
      return this.client(root);
    }
    const started = this.#start(root, compile_commands_dir);
    this.#entries.set(root, { compile_commands_dir, client: started });
    return { client: await started, compile_commands_dir };
  }

  /** Stops every clangd: `shutdown` and `exit`, then SIGKILL after the grace; resolves once all are gone. */
  async close(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    const grace = this.#options.close_grace_ms ?? CLOSE_GRACE_MS;
    await Promise.all(entries.map(async (entry) => (await entry.client.catch(() => null))?.close(grace)));
  }

  async #start(root: string, compile_commands_dir: string | null): Promise<ClangdClient> {
    const executable = this.#options.executable ?? find_clangd();
    if (executable === null) throw clangd_missing();
    this.#started += 1;
    // Loaded with the first clangd: the JSON-RPC and LSP modules stay out of every session that never asks it.
    const { ClangdClient } = await import("./client.js");
    return ClangdClient.start({
      executable,
      root,
      compile_commands_dir,
      request_timeout_ms: this.#options.request_timeout_ms ?? REQUEST_TIMEOUT_MS,
    });
  }
}

/**
 * Blocks the thread for `ms`. Only for the short waits of synchronous lock retries (SQLite's own busy
 * handler blocks the same way); never on a path that serves other work.
 */
export function sleep_sync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

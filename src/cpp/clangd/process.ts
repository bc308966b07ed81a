import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";

/** How much of clangd's stderr a crash report quotes. */
const STDERR_TAIL_BYTES = 4096;

export type ClangdLaunch = {
  readonly executable: string;
  /** The workspace root: clangd's working folder. */
  readonly root: string;
  /** The folder of `compile_commands.json`, or null (clangd then guesses flags per file). */
  readonly compile_commands_dir: string | null;
};

export type ClangdExit = { readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly error?: string };

/**
 * One clangd child over stdio. It is not detached and owns no other pipe: when air dies, even by SIGKILL, clangd
 * reads EOF on stdin and exits by itself (the pool's tests kill a real owner to prove it).
 */
export class ClangdProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Settles once the process has exited, or failed to start. */
  readonly exited: Promise<ClangdExit>;
  #stderr = "";
  #exit: ClangdExit | undefined;
  readonly #exit_listeners = new Set<(exit: ClangdExit) => void>();

  constructor(launch: ClangdLaunch) {
    const args = ["--background-index=false", "--log=error", "-j=1", "--pch-storage=memory"];
    if (launch.compile_commands_dir !== null) args.unshift(`--compile-commands-dir=${launch.compile_commands_dir}`);
    this.child = spawn(launch.executable, args, { cwd: launch.root, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL_BYTES);
    });
    // Writes racing the exit fail with EPIPE; the exit itself is what callers are told about.
    this.child.stdin.on("error", () => undefined);
    this.exited = new Promise((resolve) => {
      const ended = (exit: ClangdExit) => {
        this.#exit ??= exit;
        for (const listener of this.#exit_listeners) listener(this.#exit);
        this.#exit_listeners.clear();
        resolve(this.#exit);
      };
      this.child.once("error", (error) => ended({ code: null, signal: null, error: error.message }));
      this.child.once("close", (code, signal) => ended({ code, signal }));
    });
  }

  /** Calls `listener` once the process has exited (at once if it has); returns how to stop listening. */
  on_exit(listener: (exit: ClangdExit) => void): () => void {
    if (this.#exit !== undefined) {
      listener(this.#exit);
      return () => undefined;
    }
    this.#exit_listeners.add(listener);
    return () => this.#exit_listeners.delete(listener);
  }

  get pid(): number | null {
    return this.child.pid ?? null;
  }

  get alive(): boolean {
    return this.#exit === undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  get exit(): ClangdExit | undefined {
    return this.#exit;
  }

  stderr_tail(): string {
    return this.#stderr.trim();
  }

  /** Ends the process now; resolves once it is gone. */
  async kill(): Promise<ClangdExit> {
    if (this.alive) this.child.kill("SIGKILL");
    return this.exited;
  }

  /** Waits up to `grace_ms` for the process to exit by itself, then kills it. */
  async wait_or_kill(grace_ms: number): Promise<ClangdExit> {
    return (await settled_within(this.exited, grace_ms)) ? this.exited : this.kill();
  }
}

/** Whether `work` settles within `ms`; the timer is cleared either way, so it never holds the event loop. */
export async function settled_within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = work.then(
    () => true,
    () => true,
  );
  const first = await Promise.race([settled, late]);
  clearTimeout(timer);
  return first;
}

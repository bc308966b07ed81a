import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import type { Readable } from "node:stream";
import type { Capture } from "./capture.js";

/** Between SIGTERM and SIGKILL of the process group. */
const KILL_GRACE_MS = 2_000;

export type StreamName = "stdout" | "stderr";

/** How to start the command: directly, or inside bwrap. */
export type Launch = {
  /** The program and its arguments (bash …). */
  readonly argv: readonly [string, ...string[]];
  /** Set: run inside bwrap, found at `path`, with these options. */
  readonly bwrap?: { readonly path: string; readonly args: readonly string[] };
  readonly cwd: string;
  readonly env: Record<string, string>;
};

export type Ending =
  | { kind: "exited"; code: number }
  | { kind: "signalled"; signal: NodeJS.Signals; code: number | null }
  | { kind: "timed_out"; signal: NodeJS.Signals | null; code: number | null }
  | { kind: "cancelled"; signal: NodeJS.Signals | null; code: number | null }
  | { kind: "spawn_failed"; error: Error };

/** The fd bwrap writes `{"child-pid": N}` to; the command never sees it. */
const INFO_FD = 3;

/** The sandboxed gate's end of the lifeline: a socket whose other end only this process holds. */
const LIFELINE_FD = 4;

/**
 * bwrap's `--die-with-parent` (PR_SET_PDEATHSIG) does not always end the sandbox with the runtime: it is armed
 * some time after bwrap's exec without a check that the parent is still there, and a runtime SIGKILLed at the
 * wrong moment left bwrap's init (pid 1 of the sandbox) and the command running, orphaned (the crash e2e test,
 * under load). So the sandbox watches the runtime itself, over a lifeline only the runtime holds the other end
 * of: the gate does not start a command once the runtime is gone (`read -t 0` only polls), and leaves a watcher,
 * detached to the sandbox's init so the command never sees it as its child, that kills every process of the
 * sandbox's pid namespace (`kill -1`, which cannot reach outside it) when the lifeline closes.
 */
const LIFELINE_GATE = `read -t 0 -u ${LIFELINE_FD} && exit 125; ( ( read -r -u ${LIFELINE_FD} _; kill -KILL -1 ) </dev/null >/dev/null 2>&1 & ); exec "$@" ${LIFELINE_FD}<&-`;

function sandboxed_argv(launch: Launch & { bwrap: NonNullable<Launch["bwrap"]> }): [string, ...string[]] {
  const gated = ["bash", "--noprofile", "--norc", "-c", LIFELINE_GATE, "air-gate", ...launch.argv];
  return [launch.bwrap.path, ...launch.bwrap.args, "--info-fd", String(INFO_FD), "--", ...gated];
}

function kill_group(pgid: number | undefined, signal: NodeJS.Signals): void {
  if (pgid === undefined) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}

/**
 * Who a stop signal reaches. Unsandboxed: bash's process group. Sandboxed, bash runs in a session of
 * its own under the pid namespace's init (bwrap's child, `inner`): SIGTERM goes to that session, where
 * init ignores it and the command may clean up; SIGKILL kills init, and with it every process of the
 * namespace — even one that left the session — and bwrap itself. Until bwrap has reported its child,
 * signals go to bwrap, whose death takes the namespace down (`--die-with-parent`).
 */
class StopTargets {
  inner: number | undefined;

  constructor(
    private readonly child: ChildProcess,
    private readonly sandboxed: boolean,
  ) {}

  signal(signal: NodeJS.Signals): void {
    if (!this.sandboxed || this.inner === undefined || signal === "SIGKILL") kill_group(this.child.pid, signal);
    if (this.sandboxed) kill_group(this.inner, signal);
  }

  /** After bash (or bwrap) exited: only an unsandboxed group can still hold processes (`cmd &`). */
  leftovers(): boolean {
    return !this.sandboxed;
  }
}

/** Reads bwrap's info document for the pid of its child. */
function read_child_pid(stream: Readable, targets: StopTargets): void {
  let text = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    text += chunk;
    try {
      const pid = (JSON.parse(text) as { "child-pid"?: unknown })["child-pid"];
      if (typeof pid === "number" && Number.isSafeInteger(pid) && pid > 1) targets.inner = pid;
      stream.destroy();
    } catch {
      // not complete yet
    }
  });
}

/** bwrap reports a child killed by signal N as exit code 128 + N. */
function signal_of(code: number | null): NodeJS.Signals | null {
  if (code === null || code <= 128) return null;
  const entry = Object.entries(os.constants.signals).find(([, number]) => number === code - 128);
  return entry === undefined ? null : (entry[0] as NodeJS.Signals);
}

/** Runs bash in its own process group (or sandbox), streaming both outputs, until it exits or is stopped. */
export function run_process(
  launch: Launch,
  timeout_ms: number,
  signal: AbortSignal,
  on_chunk: (stream: StreamName, text: string) => void,
  captures: Record<StreamName, Capture>,
): Promise<Ending> {
  return new Promise((resolve) => {
    let stopping: "timed_out" | "cancelled" | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const sandboxed = launch.bwrap !== undefined;
    const [file, ...args] = launch.bwrap === undefined ? launch.argv : sandboxed_argv({ ...launch, bwrap: launch.bwrap });
    let child: ChildProcess;
    try {
      child = spawn(file, args, {
        cwd: launch.cwd,
        env: launch.env,
        detached: true,
        stdio: sandboxed ? ["ignore", "pipe", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      resolve({ kind: "spawn_failed", error: error as Error });
      return;
    }
    const targets = new StopTargets(child, sandboxed);
    if (sandboxed) {
      read_child_pid(child.stdio[INFO_FD] as Readable, targets);
      // Nothing comes down the lifeline; reading it lets its end be seen, so the process's "close" is not held up.
      const lifeline = child.stdio[LIFELINE_FD] as Readable;
      lifeline.on("error", () => undefined);
      lifeline.resume();
    }
    const finish = (ending: Ending) => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      signal.removeEventListener("abort", on_abort);
      resolve(ending);
    };
    const stop = (reason: "timed_out" | "cancelled") => {
      if (stopping !== undefined || exit !== undefined) return;
      stopping = reason;
      targets.signal("SIGTERM");
      timers.push(setTimeout(() => targets.signal("SIGKILL"), KILL_GRACE_MS));
    };
    const on_abort = () => stop("cancelled");
    signal.addEventListener("abort", on_abort, { once: true });
    if (signal.aborted) stop("cancelled");
    timers.push(setTimeout(() => stop("timed_out"), timeout_ms));

    for (const name of ["stdout", "stderr"] as const) {
      // biome-ignore lint/style/noNonNullAssertion: both stdio layouts above spawn stdout and stderr as pipes, so the child has both streams.
      child[name]!.on("data", (chunk: Buffer) => {
        const text = captures[name].push(chunk);
        if (text !== "") on_chunk(name, text);
      });
    }
    child.on("error", (error) => {
      // Spawn failures (no bash, cwd vanished) arrive here; a kill failure would too, but kill_group catches it.
      if (child.pid === undefined) finish({ kind: "spawn_failed", error });
    });
    child.on("exit", (code, exit_signal) => {
      exit = { code, signal: exit_signal ?? (sandboxed && stopping !== undefined ? signal_of(code) : null) };
      if (targets.leftovers()) {
        // Whatever the command left running in its group (`cmd &`) would hold the pipes open: stop it.
        kill_group(child.pid, "SIGTERM");
        timers.push(setTimeout(() => kill_group(child.pid, "SIGKILL"), KILL_GRACE_MS));
      }
      timers.push(
        setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          conclude();
        }, KILL_GRACE_MS * 2),
      );
    });
    const conclude = () => {
      if (exit === undefined) return;
      for (const name of ["stdout", "stderr"] as const) {
        const rest = captures[name].flush();
        if (rest !== "") on_chunk(name, rest);
      }
      if (stopping === "timed_out") finish({ kind: "timed_out", signal: exit.signal, code: exit.code });
      else if (stopping === "cancelled") finish({ kind: "cancelled", signal: exit.signal, code: exit.code });
      else if (exit.code === null) finish({ kind: "signalled", signal: exit.signal ?? "SIGKILL", code: null });
      else finish({ kind: "exited", code: exit.code });
    };
    child.on("close", conclude);
  });
}

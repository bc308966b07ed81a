import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { VerificationError } from "./verify.js";

/**
 * A program in a tmux pane of its own server (120×40, as the TUI tests use): the harness of the start-up
 * benches, for air and for its peers alike.
 */
export class Pane {
  readonly #socket: string;

  constructor(
    label: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.#socket = `air-bench-${process.pid}-${label}`;
  }

  run(...args: string[]): string {
    const result = spawnSync("tmux", ["-L", this.#socket, "-f", "/dev/null", ...args], { encoding: "utf8", env: this.env });
    if (result.status !== 0) throw new VerificationError(`tmux ${args[0]} failed: ${result.stderr}`);
    return result.stdout;
  }

  /** Starts `command` in `cwd`; the pane stays after it exits. Returns the epoch ms just before the spawn. */
  start(cwd: string, command: string): number {
    const spawned_at = Date.now();
    this.run("new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", "-c", cwd, `${command}; sleep 60`);
    return spawned_at;
  }

  screen(): string {
    return this.run("capture-pane", "-p", "-t", "bench");
  }

  keys(...keys: string[]): void {
    this.run("send-keys", "-t", "bench", ...keys);
  }

  /** Ends the server and removes the socket file tmux leaves behind. */
  kill(): void {
    spawnSync("tmux", ["-L", this.#socket, "kill-server"], { env: this.env });
    fs.rmSync(path.join(this.env.TMUX_TMPDIR || "/tmp", `tmux-${process.getuid?.() ?? 0}`, this.#socket), { force: true });
  }
}

export async function until(what: string, probe: () => boolean, timeout_ms = 20_000, every_ms = 20): Promise<void> {
  const deadline = Date.now() + timeout_ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new VerificationError(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, every_ms));
  }
}

/** Epoch ms of the first capture of `pane` with anything but blanks on it (polled every 5 ms). */
export async function first_visible_at(pane: Pane, what: string): Promise<number> {
  let seen = 0;
  await until(
    what,
    () => {
      if (pane.screen().trim() === "") return false;
      seen = Date.now();
      return true;
    },
    30_000,
    5,
  );
  return seen;
}

export const tmux_missing = (): string | undefined => (spawnSync("tmux", ["-V"]).status === 0 ? undefined : "tmux is not installed (apt-get install tmux)");

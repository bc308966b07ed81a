/** The bridge's pending timers (handshake, hard timeout, grace periods), cleared together when the process closes or the actor stops. */
export class Timers {
  readonly #pending = new Set<NodeJS.Timeout>();

  after(ms: number, work: () => void): void {
    const timer = setTimeout(() => {
      this.#pending.delete(timer);
      work();
    }, ms);
    this.#pending.add(timer);
  }

  clear(): void {
    for (const timer of this.#pending) clearTimeout(timer);
    this.#pending.clear();
  }
}

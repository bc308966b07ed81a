/**
 * Read observations (seeds 003 §10.9 rule 1, 000 §9.4): what a reader saw of a file — its sha256 when
 * it was read — so that an edit can prove it starts from the content its author looked at. Kept per
 * (session, agent), or (session, task) when there is no agent, or the session alone.
 */
export type ReadObservation = { readonly sha256: string; readonly observed_at: number };

export type ReadObservationScope = {
  get(real_path: string): ReadObservation | undefined;
  record(real_path: string, sha256: string): void;
  forget(real_path: string): void;
};

export type ObserverKey = { session_id: string; agent_id?: string; task_id?: string };

export class ReadObservations {
  readonly #by_observer = new Map<string, Map<string, ReadObservation>>();

  static key_of(observer: ObserverKey): string {
    if (observer.agent_id !== undefined) return `${observer.session_id}\u0000agent\u0000${observer.agent_id}`;
    if (observer.task_id !== undefined) return `${observer.session_id}\u0000task\u0000${observer.task_id}`;
    return `${observer.session_id}\u0000session`;
  }

  scope(observer: ObserverKey): ReadObservationScope {
    const key = ReadObservations.key_of(observer);
    const table = () => {
      let found = this.#by_observer.get(key);
      if (found === undefined) {
        found = new Map();
        this.#by_observer.set(key, found);
      }
      return found;
    };
    return {
      get: (real_path) => this.#by_observer.get(key)?.get(real_path),
      record: (real_path, sha256) => void table().set(real_path, { sha256, observed_at: Date.now() }),
      forget: (real_path) => void this.#by_observer.get(key)?.delete(real_path),
    };
  }

  /** Drops every observation of a session (when it closes) or of one agent/task in it. */
  clear(observer?: ObserverKey & { all_of_session?: boolean }): void {
    if (observer === undefined) {
      this.#by_observer.clear();
      return;
    }
    if (observer.all_of_session === true) {
      for (const key of [...this.#by_observer.keys()]) {
        if (key.startsWith(`${observer.session_id}\u0000`)) this.#by_observer.delete(key);
      }
      return;
    }
    this.#by_observer.delete(ReadObservations.key_of(observer));
  }
}

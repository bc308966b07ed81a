import { eq } from "drizzle-orm";
import { to_air_error } from "../../contracts/errors.js";
import { now_iso, type AgentId } from "../../contracts/ids.js";
import { agents } from "../../db/schema.js";
import { DEFAULT_HEARTBEAT_WRITE_INTERVAL_MS, type WorkerServices } from "./services.js";

/** The one allowed direct write (000 §18.6): `agents.last_heartbeat_at`, throttled. */
export class HeartbeatWriter {
  readonly #services: WorkerServices;
  readonly #agent_id: AgentId;
  readonly #on_failure: (message: string) => void;
  #last_write = 0;
  #last_heartbeat_at: string | undefined;

  constructor(services: WorkerServices, agent_id: AgentId, on_failure: (message: string) => void) {
    this.#services = services;
    this.#agent_id = agent_id;
    this.#on_failure = on_failure;
  }

  /** When the last heartbeat was written, if one was: `agent.lost` names it. */
  get last_heartbeat_at(): string | undefined {
    return this.#last_heartbeat_at;
  }

  beat(): void {
    const now = Date.now();
    if (now - this.#last_write < (this.#services.heartbeat_write_interval_ms ?? DEFAULT_HEARTBEAT_WRITE_INTERVAL_MS)) return;
    this.#last_write = now;
    const at = now_iso();
    try {
      const { connection } = this.#services.session;
      connection.write(() => connection.db.update(agents).set({ last_heartbeat_at: at }).where(eq(agents.id, this.#agent_id)).run());
      this.#last_heartbeat_at = at;
    } catch (error) {
      this.#on_failure(`could not record a heartbeat: ${to_air_error(error).message}`);
    }
  }
}

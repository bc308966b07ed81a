import fs from "node:fs";
import { eq } from "drizzle-orm";
import { EventBus } from "../event-store/event-bus.js";
import { EventIngestor } from "../event-store/event-ingestor.js";
import { EventStore } from "../event-store/event-store.js";
import { make_event, type EventOrigin } from "../contracts/events/registry.js";
import { new_id, type SessionId } from "../contracts/ids.js";
import { Connection } from "../db/connection.js";
import { migrate } from "../db/migrate.js";
import { sessions } from "../db/schema.js";
import { ArtifactStore } from "./artifact-store.js";
import { session_artifacts_dir, session_db_path, session_dir, session_lock_path } from "./layout.js";
import { assert_project_databases_current } from "./migrations.js";
import type { Project } from "./project-store.js";
import { SessionLock } from "./session-lock.js";
import { write_summary } from "./session-catalog.js";

export type OpenSessionOptions = {
  /** Resume this session; without it a new one is created. */
  session_id?: SessionId;
  title?: string;
  model_provider_id?: string;
  model_id?: string;
  bus?: EventBus;
};

/** An open session: the one writer of its database, with its event pipeline and artifact store. */
export type Session = {
  readonly id: SessionId;
  readonly project: Project;
  readonly db_path: string;
  readonly connection: Connection;
  readonly bus: EventBus;
  readonly store: EventStore;
  readonly ingestor: EventIngestor;
  readonly artifacts: ArtifactStore;
  readonly origin: EventOrigin;
  /**
   * The provider and model the session was created with (DESIGN §7: fixed for a session), so a resumed one
   * keeps them; undefined when none was named (the configured default serves it).
   */
  readonly model_provider_id: string | undefined;
  readonly model_id: string | undefined;
  close(): void;
};

/** The session's model as its `sessions` row has it; undefined when there is no row yet. */
function stored_model(connection: Connection, id: SessionId): { model_provider_id: string | undefined; model_id: string | undefined } | undefined {
  const row = connection.db
    .select({ model_provider_id: sessions.model_provider_id, model_id: sessions.model_id })
    .from(sessions)
    .where(eq(sessions.id, id))
    .get();
  return row === undefined ? undefined : { model_provider_id: row.model_provider_id ?? undefined, model_id: row.model_id ?? undefined };
}

export function open_session(project: Project, options: OpenSessionOptions = {}): Session {
  const id = options.session_id ?? (new_id("session") as SessionId);
  const { layout } = project;
  assert_project_databases_current(layout);
  fs.mkdirSync(layout.locks, { recursive: true });
  const lock = SessionLock.acquire(session_lock_path(layout, id), id);
  let connection: Connection | undefined;
  try {
    const resuming = options.session_id !== undefined;
    if (!resuming) fs.mkdirSync(session_dir(layout, id), { recursive: true });
    connection = Connection.open(session_db_path(layout, id), { must_exist: resuming });
    fs.mkdirSync(session_artifacts_dir(layout, id), { recursive: true });
    migrate(connection, "session");
    const bus = options.bus ?? new EventBus();
    const store = new EventStore(connection, id, bus);
    const ingestor = new EventIngestor(store, bus);
    const origin: EventOrigin = { session_id: id, project_id: project.file.project_id, source: { kind: "system" }, route: ["runtime"] };
    let model = stored_model(connection, id);
    if (model === undefined) {
      model = { model_provider_id: options.model_provider_id, model_id: options.model_id };
      const title = options.title ?? "untitled session";
      ingestor.ingest(make_event("session.created", { title, ...model }, origin));
    }
    const artifacts = new ArtifactStore(session_artifacts_dir(layout, id), { project_id: project.file.project_id, session_id: id }, ingestor, origin);
    const opened = connection;
    return {
      id,
      project,
      db_path: session_db_path(layout, id),
      connection: opened,
      bus,
      store,
      ingestor,
      artifacts,
      origin,
      ...model,
      close() {
        bus.drain();
        write_summary(layout, opened.client);
        opened.close();
        lock.release();
      },
    };
  } catch (error) {
    connection?.close();
    lock.release();
    if (options.session_id === undefined) fs.rmSync(session_dir(layout, id), { recursive: true, force: true });
    throw error;
  }
}

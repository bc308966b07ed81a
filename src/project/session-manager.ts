import fs from "node:fs";
import { eq } from "drizzle-orm";
import { EventBus } from "../event-store/event-bus.js";
import { EventIngestor } from "../event-store/event-ingestor.js";
import { EventStore } from "../event-store/event-store.js";
import { make_event, type EventOrigin } from "../contracts/events/registry.js";
import { air_failure } from "../contracts/errors.js";
import { new_id, type SessionId } from "../contracts/ids.js";
import type { SessionStatus } from "../contracts/status.js";
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

type StoredSession = { model_provider_id: string | undefined; model_id: string | undefined; status: SessionStatus; deleted_at: string | null };

/** The session's model and status as its `sessions` row has them; undefined when there is no row yet. */
function stored_session(connection: Connection, id: SessionId): StoredSession | undefined {
  const row = connection.db
    .select({ model_provider_id: sessions.model_provider_id, model_id: sessions.model_id, status: sessions.status, deleted_at: sessions.deleted_at })
    .from(sessions)
    .where(eq(sessions.id, id))
    .get();
  return row === undefined
    ? undefined
    : { model_provider_id: row.model_provider_id ?? undefined, model_id: row.model_id ?? undefined, status: row.status, deleted_at: row.deleted_at };
}

/** A deleted session is never written again: its artifacts are gone, and what is left is its record. */
function refuse_deleted(id: SessionId, stored: StoredSession | undefined): void {
  if (stored?.status !== "deleted") return;
  throw air_failure({
    kind: "user_error",
    message: `session ${id} was deleted at ${stored.deleted_at ?? "an unknown time"}; it cannot be reopened`,
    retryability: "not_retryable",
    user_action: `Start a new session with \`air run\`; \`air history --session ${id}\` still shows what it did.`,
  });
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
    migrate(connection, "session");
    const stored = stored_session(connection, id);
    refuse_deleted(id, stored);
    fs.mkdirSync(session_artifacts_dir(layout, id), { recursive: true });
    const bus = options.bus ?? new EventBus();
    const store = new EventStore(connection, id, bus);
    const ingestor = new EventIngestor(store, bus);
    const origin: EventOrigin = { session_id: id, project_id: project.file.project_id, source: { kind: "system" }, route: ["runtime"] };
    let model: Pick<StoredSession, "model_provider_id" | "model_id"> | undefined = stored;
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
      model_provider_id: model.model_provider_id,
      model_id: model.model_id,
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

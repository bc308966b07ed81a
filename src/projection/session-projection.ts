import type { Session } from "../project/session-manager.js";
import { ui_prompt_answerer, type UiPromptAnswerer } from "./prompt-answerer.js";
import { ProjectionStore, type ProjectionStoreOptions } from "./store.js";
import { UiCommandChannel } from "./ui-command-channel.js";
import { UiStateFlusher, type UiStateFlusherOptions } from "./ui-state.js";

export type SessionProjectionOptions = ProjectionStoreOptions & { ui_state?: UiStateFlusherOptions };

/**
 * Everything a UI needs around one open session: the projection following the session's bus, the command
 * channel, the `PromptAnswerer` to give the PermissionEngine, and the periodic `ui_state` writer.
 * `close()` must run before `session.close()`: it writes the UI state while the database is still open.
 */
export type SessionProjection = {
  readonly store: ProjectionStore;
  readonly channel: UiCommandChannel;
  readonly answerer: UiPromptAnswerer;
  readonly ui_state: UiStateFlusher;
  close(): void;
};

export function open_session_projection(session: Pick<Session, "id" | "connection" | "bus">, options: SessionProjectionOptions = {}): SessionProjection {
  const store = new ProjectionStore(session, options);
  store.attach(session.bus);
  const channel = new UiCommandChannel();
  const answerer = ui_prompt_answerer(channel, store);
  const ui_state = new UiStateFlusher(session.connection, () => store.snapshot().ui, options.ui_state).start();
  return {
    store,
    channel,
    answerer,
    ui_state,
    close() {
      answerer.close();
      channel.close();
      store.close();
      ui_state.close();
    },
  };
}

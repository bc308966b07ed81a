import type { TaskListing } from "../contracts/task-listing.js";
import type { ProjectionClient, SessionView, UiCommandSender } from "../projection/types.js";

/**
 * What the shell hands the TUI (seeds 000 §13.2): the projection to read, the channel to send decisions
 * through, and the few reads a view needs that the projection only references (artifact contents,
 * the session list). Nothing else of the runtime.
 */
export type AppProps = {
  readonly client: ProjectionClient;
  readonly sender: UiCommandSender;
  /** The text of an artifact (a diff, a log); throwing shows the view's "unavailable" line instead. */
  readonly read_artifact: (artifact_id: string) => string;
  /** The sessions `/sessions` lists (this project's, newest first). */
  readonly list_sessions: () => readonly SessionView[] | Promise<readonly SessionView[]>;
  /**
   * `/exit` or a second Ctrl+C: the shell closes the session so it stays resumable. The App calls it once,
   * then ink's `exit()` (so `waitUntilExit()` resolves).
   */
  readonly on_exit: () => void;
  /** The session's tasks with their usage, as `air tasks` lists them, for the team view; without it, no usage. */
  readonly read_tasks?: () => TaskListing;
  /** Re-renders per second at most while the projection changes (default and ceiling 30). */
  readonly max_fps?: number;
};

import fs from "node:fs";
import path from "node:path";
import type { SessionId } from "../contracts/ids.js";
import type { PermissionPrompt, PromptAnswer, PromptAnswerer } from "../permissions/prompts.js";
import { session_artifacts_dir, type ProjectLayout } from "../project/layout.js";
import { list_sessions } from "../project/session-catalog.js";
import type { ProjectionClient, SessionView } from "../projection/types.js";
import type { SessionStatus } from "../contracts/status.js";

/**
 * The pieces around the TUI that are not the runtime: how prompts reach it before it exists, and the
 * reads its views need beyond the projection (artifact contents, the session list).
 */

/**
 * The PermissionEngine is built before the session (a broken permissions file must stop air before
 * anything is written), but the UI's answerer needs the session's projection: this answerer holds the
 * prompts asked meanwhile and forwards them, and everything after, once the UI's answerer is given.
 */
export type DeferredAnswerer = PromptAnswerer & { forward_to(answerer: PromptAnswerer): void };

export function deferred_answerer(): DeferredAnswerer {
  let forward: (answerer: PromptAnswerer) => void = () => undefined;
  const target = new Promise<PromptAnswerer>((resolve) => (forward = resolve));
  return {
    async answer(prompt: PermissionPrompt, signal?: AbortSignal): Promise<PromptAnswer> {
      return (await target).answer(prompt, signal);
    },
    forward_to(answerer) {
      forward(answerer);
    },
  };
}

/** Beyond this, a view shows the start of an artifact: a diff or log that large is read in a pager, not a TUI. */
const ARTIFACT_READ_LIMIT_BYTES = 1024 * 1024;

/** The text of one of the session's artifacts, found through the projection; throws when there is none. */
export function artifact_reader(layout: ProjectLayout, session_id: string, client: Pick<ProjectionClient, "snapshot">): (artifact_id: string) => string {
  const root = session_artifacts_dir(layout, session_id);
  return (artifact_id) => {
    const view = client.snapshot().artifacts.find((artifact) => artifact.id === artifact_id);
    if (view === undefined) throw new Error(`no artifact ${artifact_id} in this session`);
    const file = path.resolve(root, view.path);
    // The path comes from the session's own rows; still, nothing outside its artifacts folder is read.
    if (!file.startsWith(root + path.sep)) throw new Error(`artifact ${artifact_id} is outside the session's artifacts`);
    const handle = fs.openSync(file, "r");
    try {
      const buffer = Buffer.alloc(Math.min(ARTIFACT_READ_LIMIT_BYTES, fs.fstatSync(handle).size));
      const read = fs.readSync(handle, buffer, 0, buffer.length, 0);
      return buffer.subarray(0, read).toString("utf8");
    } finally {
      fs.closeSync(handle);
    }
  };
}

/** This project's sessions as `/sessions` shows them, newest first (read-only: the catalog's summaries). */
export async function session_views(layout: ProjectLayout): Promise<SessionView[]> {
  const { sessions } = await list_sessions(layout);
  return sessions.map((summary) => ({
    id: summary.id as SessionId,
    title: summary.title,
    status: summary.status as SessionStatus,
    model_provider_id: null,
    model_id: null,
    created_at: summary.created_at,
  }));
}

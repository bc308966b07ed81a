import { eq } from "drizzle-orm";
import { make_event } from "../contracts/events/registry.js";
import { sessions } from "../db/schema.js";
import type { Session } from "./session-manager.js";

/** What an interactive session is called until its first message names it. */
export const UNNAMED_SESSION = "interactive session";

/** About what a line of `air session list` or `/sessions` shows of a title beside the id and status. */
const TITLE_CHARS = 60;
/** A word boundary earlier than this would leave too little of the message: the cut is made mid-word instead. */
const MIN_WORD_CUT = 20;

/**
 * A session's title from the user's message: its first line with any text, control characters and runs of
 * spaces made single spaces, cut at a word boundary to at most 60 characters (an ellipsis says it was cut).
 */
export function session_title(message: string): string {
  const line =
    message
      .split(/\r?\n|\r/)
      .map((candidate) => candidate.replace(/[\p{Cc}\p{Cf}\s]+/gu, " ").trim())
      .find((candidate) => candidate !== "") ?? "";
  if (line === "") return UNNAMED_SESSION;
  const chars = [...line];
  if (chars.length <= TITLE_CHARS) return line;
  const head = chars.slice(0, TITLE_CHARS - 1).join("");
  const space = head.lastIndexOf(" ");
  return `${(space >= MIN_WORD_CUT ? head.slice(0, space) : head).trimEnd()}…`;
}

/** Names a session still called `UNNAMED_SESSION` after `message` (recorded as `session.renamed`); any other title stays. */
export function name_unnamed_session(session: Pick<Session, "id" | "connection" | "ingestor" | "origin">, message: string): void {
  const row = session.connection.db.select({ title: sessions.title }).from(sessions).where(eq(sessions.id, session.id)).get();
  const title = session_title(message);
  if (row?.title !== UNNAMED_SESSION || title === UNNAMED_SESSION) return;
  session.ingestor.ingest(make_event("session.renamed", { title }, session.origin));
}

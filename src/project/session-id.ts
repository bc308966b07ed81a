import * as v from "valibot";
import { air_failure } from "../contracts/errors.js";
import { SessionId } from "../contracts/ids.js";

/** A session id the user typed (or a caller was handed), checked before it names a path, a ref or a row: nothing is touched for `../..`. */
export function checked_session_id(session_id: string): SessionId {
  const parsed = v.safeParse(SessionId, session_id);
  if (parsed.success) return parsed.output;
  throw air_failure({
    kind: "user_error",
    message: `${JSON.stringify(session_id)} is not a session id (ses_ and 26 letters and digits)`,
    retryability: "not_retryable",
    user_action: "Copy the id from `air session list` (`--all` for archived and deleted ones too).",
  });
}

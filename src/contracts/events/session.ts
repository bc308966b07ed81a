import * as v from "valibot";
import { durable } from "./define.js";
import { NonEmpty, Reason } from "./common.js";

export const session_events = {
  "session.created": durable(
    v.strictObject({
      title: v.pipe(NonEmpty, v.maxLength(200)),
      model_provider_id: v.optional(NonEmpty),
      model_id: v.optional(NonEmpty),
    }),
    "A session was opened; inserts the sessions row (status active). The model is fixed from here on.",
  ),
  "session.renamed": durable(
    v.strictObject({ title: v.pipe(NonEmpty, v.maxLength(200)) }),
    "sessions.title = title: an interactive session is named after the user's first message.",
  ),
  "session.archived": durable(v.strictObject({ reason: v.optional(Reason) }), "sessions.status = archived."),
  "session.deleted": durable(v.strictObject({ reason: v.optional(Reason) }), "sessions.status = deleted."),
} as const;

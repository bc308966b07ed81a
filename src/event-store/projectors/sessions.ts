import type { SessionStatus } from "../../contracts/status.js";
import { message_drafts, messages, sessions } from "../../db/schema.js";
import { delete_rows, insert_row, json, update_rows } from "../rows.js";
import { expect_one, type Projection } from "./projection.js";

export const session_created: Projection<"session.created"> = (event, { connection }) => {
  insert_row(connection, sessions, {
    id: event.session_id,
    project_id: event.project_id ?? "",
    title: event.payload.title,
    status: "active",
    model_provider_id: event.payload.model_provider_id,
    model_id: event.payload.model_id,
    created_at: event.timestamp,
    updated_at: event.timestamp,
  });
};

export const session_renamed: Projection<"session.renamed"> = (event, { connection }) => {
  const changes = update_rows(connection, sessions, { id: event.session_id }, { title: event.payload.title, updated_at: event.timestamp });
  expect_one(changes, event, `session ${event.session_id} has no row to rename`);
};

function session_ends(status: Exclude<SessionStatus, "active">, from: SessionStatus[]) {
  const at = status === "archived" ? "archived_at" : "deleted_at";
  return ((event, { connection }) => {
    const changes = from.reduce(
      (sum, current) =>
        sum +
        update_rows(
          connection,
          sessions,
          { id: event.session_id, status: current },
          {
            status,
            [at]: event.timestamp,
            updated_at: event.timestamp,
          },
        ),
      0,
    );
    expect_one(changes, event, `session ${event.session_id} cannot become ${status} from its current status`);
  }) satisfies Projection<"session.archived" | "session.deleted">;
}

export const session_archived: Projection<"session.archived"> = session_ends("archived", ["active"]);
export const session_deleted: Projection<"session.deleted"> = session_ends("deleted", ["active", "archived"]);

export const user_message_created: Projection<"user.message.created"> = (event, { connection }) => {
  const { message_id, content, task_id, agent_id } = event.payload;
  insert_row(connection, messages, {
    id: message_id,
    session_id: event.session_id,
    role: "user",
    content_json: JSON.stringify(content),
    task_id,
    agent_id,
    created_at: event.timestamp,
  });
};

export const assistant_message_started: Projection<"assistant.message.started"> = (event, { connection }) => {
  const { message_id, model_id, task_id, agent_id } = event.payload;
  const restarted = update_rows(
    connection,
    message_drafts,
    { message_id },
    {
      status: "streaming",
      content_json: "[]",
      error_json: null,
      updated_at: event.timestamp,
    },
  );
  if (restarted === 0) {
    insert_row(connection, message_drafts, {
      message_id,
      session_id: event.session_id,
      status: "streaming",
      content_json: "[]",
      model_id,
      task_id,
      agent_id,
      started_at: event.timestamp,
      updated_at: event.timestamp,
    });
  }
};

export const assistant_message_created: Projection<"assistant.message.created"> = (event, { connection }) => {
  const { message_id, content, model_id, stop_reason, usage, task_id, agent_id } = event.payload;
  insert_row(connection, messages, {
    id: message_id,
    session_id: event.session_id,
    role: "assistant",
    content_json: JSON.stringify(content),
    model_id,
    stop_reason,
    usage_json: json(usage),
    task_id,
    agent_id,
    created_at: event.timestamp,
  });
  delete_rows(connection, message_drafts, { message_id });
};

export const assistant_message_failed: Projection<"assistant.message.failed"> = (event, { connection }) => {
  const { message_id, error, partial_content, failure_artifact_id, task_id, agent_id } = event.payload;
  const failure = {
    status: "error" as const,
    error_json: JSON.stringify(error),
    failure_artifact_id,
    content_json: json(partial_content),
    updated_at: event.timestamp,
  };
  if (update_rows(connection, message_drafts, { message_id }, failure) === 0) {
    insert_row(connection, message_drafts, {
      ...failure,
      message_id,
      session_id: event.session_id,
      content_json: failure.content_json ?? "[]",
      task_id,
      agent_id,
      started_at: event.timestamp,
    });
  }
};

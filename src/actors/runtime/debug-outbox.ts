import { desc, eq } from "drizzle-orm";
import * as v from "valibot";
import type { AirError } from "../../contracts/errors.js";
import { DebugRecordId } from "../../contracts/ids.js";
import { WorkerResult } from "../../contracts/worker-result.js";
import { task_attempts } from "../../db/schema.js";
import type { DebugKnowledgeStore, DebugRecord, NewDebugRecord } from "../../debug/knowledge-store.js";
import type { Session } from "../../project/session-manager.js";
import { attempt_history } from "./attempt-history.js";
import { emitter } from "./emit.js";
import { read_task } from "./task-graph.js";

const emit = emitter("scheduler");

/**
 * The crash test's hook: set to `1`, the process kills itself right after the record's write and before its
 * event, the one moment the outbox order (seeds 000 §18.4) has to survive.
 */
export const CRASH_AFTER_DEBUG_RECORD_ENV = "AIR_TEST_CRASH_AFTER_DEBUG_RECORD";

const SYMPTOM_MAX_CHARS = 400;

/** One record per debug attempt: its id is the attempt's, so a repeated write (recovery) is the same record. */
export function debug_record_id_of(attempt_id: string): DebugRecordId {
  return v.parse(DebugRecordId, `dbg_${attempt_id.slice(attempt_id.indexOf("_") + 1)}`);
}

/** The failure's family signature, when its tool gave one (cpp diagnostics). */
export function family_signature_of(error: AirError): string | undefined {
  const family = error.metadata?.family_signature;
  return typeof family === "string" && family !== "" ? family : undefined;
}

type LandedDebugAttempt = { readonly attempt_id: string; readonly failure: AirError; readonly result: Extract<WorkerResult, { agent_type: "debugger" }> };

/** A completed task whose last attempt was the Debugger's, with the failure it fixed: its work has landed. */
function landed_debug_attempt(session: Session, task_id: string): LandedDebugAttempt | undefined {
  const task = read_task(session.connection, task_id);
  if (task.status !== "completed" || task.worker_result_json === null) return undefined;
  const { attempts } = attempt_history(session, task_id);
  const failure = attempts.at(-2)?.error;
  if (attempts.at(-1)?.change !== "debug" || failure === undefined) return undefined;
  const parsed = v.safeParse(WorkerResult, JSON.parse(task.worker_result_json));
  if (!parsed.success || parsed.output.agent_type !== "debugger") return undefined;
  const attempt = session.connection.db
    .select({ id: task_attempts.id })
    .from(task_attempts)
    .where(eq(task_attempts.task_id, task_id))
    .orderBy(desc(task_attempts.attempt_index))
    .get();
  return attempt === undefined ? undefined : { attempt_id: attempt.id, failure, result: parsed.output };
}

function new_record(session: Session, task_id: string, landed: LandedDebugAttempt): NewDebugRecord {
  const { failure, result } = landed;
  const family_signature = family_signature_of(failure);
  return {
    id: debug_record_id_of(landed.attempt_id),
    failure_signature: failure.semantic_signature,
    ...(family_signature === undefined ? {} : { family_signature }),
    title: read_task(session.connection, task_id).title,
    symptom: failure.message.slice(0, SYMPTOM_MAX_CHARS),
    root_cause: result.result.root_cause,
    fix_summary: result.summary,
    ...(result.diff_ref === undefined ? {} : { fix_diff_ref: result.diff_ref }),
    changed_files: result.changed_files,
    evidence_refs: result.evidence_refs,
    verified: true,
    source_session_id: session.id,
    source_task_id: task_id,
    source_attempt_id: landed.attempt_id,
  };
}

function announced(session: Session, record_id: string): boolean {
  return session.store
    .query({ types: ["debug.record.created"] })
    .some(({ event }) => event.type === "debug.record.created" && event.payload.debug_record_id === record_id);
}

function announce(session: Session, record: DebugRecord): void {
  if (announced(session, record.id)) return;
  emit(session, "debug.record.created", {
    debug_record_id: record.id,
    failure_signature: record.failure_signature,
    summary: record.root_cause === "" ? record.fix_summary : record.root_cause,
    ...(record.source_task_id === undefined ? {} : { task_id: record.source_task_id }),
  });
}

/**
 * The outbox of a debug attempt whose work has landed (its merge merged, or its main-checkout task completed):
 * the record in debug-records.db first, then its one `debug.record.created`. Idempotent, so recovery can
 * call it again after a crash at any point.
 */
export function record_landed_debug_fix(session: Session, store: DebugKnowledgeStore, task_id: string): DebugRecord | undefined {
  const landed = landed_debug_attempt(session, task_id);
  if (landed === undefined) return undefined;
  const { record } = store.insert(new_record(session, task_id, landed));
  if (process.env[CRASH_AFTER_DEBUG_RECORD_ENV] === "1") process.kill(process.pid, "SIGKILL");
  announce(session, record);
  return record;
}

/**
 * `air resume`: a record of this session without its event gets the event; a landed debug attempt without a
 * record gets both.
 */
export function reconcile_debug_records(session: Session, store: DebugKnowledgeStore, task_ids: readonly string[]): void {
  for (const record of store.lookup_by_session(session.id)) announce(session, record);
  for (const task_id of task_ids) record_landed_debug_fix(session, store, task_id);
}

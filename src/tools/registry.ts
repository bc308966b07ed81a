import fs from "node:fs";
import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import type { JsonObject } from "../contracts/entity.js";
import { air_failure, make_air_error, to_air_error, type AirError } from "../contracts/errors.js";
import { make_event, type EventOrigin, type RuntimeEvent } from "../contracts/events/registry.js";
import { new_id, type AgentId, type ArtifactId, type EvidenceId, type MessageId, type TaskId, type ToolRunId } from "../contracts/ids.js";
import type { TaskScope } from "../contracts/task.js";
import { ToolCall, ToolEffects, ToolSchema, type ToolOutcome } from "../contracts/tool.js";
import type { WorkspaceConfinement } from "../permissions/confinement.js";
import type { CurrentText } from "../permissions/proposed-change.js";
import { is_allowed, PermissionEngine, type PermissionDecision, type PermissionRequest, type ToolAccess } from "../permissions/engine.js";
import { BackupStore } from "../project/backup-store.js";
import type { Session } from "../project/session-manager.js";
import { ToolFailure, type AnyToolDefinition, type ToolExecution } from "./define.js";
import { declares_effects, lift_effects } from "./effects.js";
import { ReadObservations } from "./observations.js";
import { snapshot_before_write } from "./snapshots.js";
import { cancelled_error, invalid_input_error, invalid_output_error, malformed_call_error, refusal_error, unknown_tool_error } from "./registry-errors.js";

/** What `call_streaming` yields: live chunks, then exactly one final outcome. */
export type ToolStreamItem = { readonly type: "progress"; readonly chunk: unknown } | { readonly type: "result"; readonly outcome: ToolOutcome };

/**
 * Who calls a tool (session, task, agent, the message it answers) and within what limits: the task's scope,
 * the workspace it is confined to, a signal to cancel.
 */
export type ToolCaller = {
  session: Session;
  task_id?: TaskId;
  agent_id?: AgentId;
  origin_message_id?: MessageId;
  scope?: TaskScope;
  /** Set for a task dispatched into a workspace: its calls work there, and write nowhere else. */
  workspace?: WorkspaceConfinement;
  /** The `.air/shared` folders the runtime's own caller (an owning store) writes; see `PermissionRequest.owned_paths`. */
  owned_paths?: readonly string[];
  /** Decided by the parent from the run's role: a read-only agent's writes and commands are refused. */
  access?: ToolAccess;
  signal?: AbortSignal;
  /** Who asks, when it is a runtime role without an agent row (the Architecture Designer: "architect"). */
  requester?: string;
};

/** The folder a caller's calls work in: its workspace, or the session's project. */
function root_of(caller: ToolCaller): string {
  return caller.workspace?.root ?? caller.session.project.layout.root;
}

export type ToolRegistryOptions = {
  /** Default: a `PermissionEngine` in `default` mode, no rules, every prompt denied (headless). */
  permissions?: PermissionEngine;
  observations?: ReadObservations;
};

type Registered = { definition: AnyToolDefinition; schema: ToolSchema };

/** Either what a step of `call` produced, or the error that ends the call there. */
type Step<T> = ({ ok: true } & T) | { ok: false; error: AirError };

/** A call that passed validation: a registered tool and an input that fits its schema. */
type ValidCall = { tool_name: string; definition: AnyToolDefinition; input: unknown };

/** One run of a tool: what every step after validation shares. */
type ToolRun = ValidCall & {
  tool_run_id: ToolRunId;
  caller: ToolCaller;
  signal: AbortSignal;
  /** The tool, under the session's route: stamped on every event of the run. */
  origin: EventOrigin;
  ingest(event: unknown): RuntimeEvent;
};

/** What a run created besides its output; the ids join `tool.completed`. */
type RunProducts = { artifact_ids: ArtifactId[]; evidence_ids: EvidenceId[] };

/** Why a run failed, with what it did before it failed. */
type RunFailure = { error: AirError; effects?: ToolEffects };

function failure(error: AirError, tool_run_id?: ToolRunId, effects?: ToolEffects): ToolOutcome {
  return { ok: false, ...(tool_run_id === undefined ? {} : { tool_run_id }), error, ...(effects === undefined ? {} : { effects }) };
}

function abort_reason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message || "aborted";
  return typeof reason === "string" && reason !== "" ? reason : "aborted";
}

function elapsed_ms(since: number): number {
  return Math.max(0, performance.now() - since);
}

/**
 * The one door to side effects (seeds 000 §9.1, DESIGN §6, INV-3): unknown tool → input schema →
 * `PermissionEngine.evaluate` → `permission.decision.recorded` → `tool.started` → execute → output
 * schema → `tool.completed` | `tool.failed` | `tool.cancelled`. Tool-level failures come back as
 * `{ ok: false, error }`; `call` does not throw for them.
 */
export class ToolRegistry {
  readonly permissions: PermissionEngine;
  readonly observations: ReadObservations;
  readonly #tools = new Map<string, Registered>();

  constructor(options: ToolRegistryOptions = {}) {
    this.permissions = options.permissions ?? new PermissionEngine();
    this.observations = options.observations ?? new ReadObservations();
  }

  /** Adds a tool; its input JSON Schema is generated here, once. A duplicate name is a programming error. */
  register(definition: AnyToolDefinition): void {
    if (this.#tools.has(definition.name)) {
      throw air_failure({
        kind: "system_error",
        message: `tool "${definition.name}" is already registered`,
        retryability: "not_retryable",
        user_action: "Register each tool once.",
      });
    }
    const { $schema: _dialect, ...input_schema } = definition.input_json_schema ?? (toJsonSchema(definition.input, { errorMode: "throw" }) as JsonObject);
    const schema = v.parse(ToolSchema, { name: definition.name, description: definition.description, input_schema });
    this.#tools.set(definition.name, { definition, schema });
  }

  get(name: string): AnyToolDefinition | undefined {
    return this.#tools.get(name)?.definition;
  }

  list(): AnyToolDefinition[] {
    return [...this.#tools.values()].map((entry) => entry.definition);
  }

  /** What the model sees: name, description and input JSON Schema of every tool, in registration order. */
  schemas(): ToolSchema[] {
    return [...this.#tools.values()].map((entry) => entry.schema);
  }

  async call(call: ToolCall, caller: ToolCaller, on_stream?: (chunk: unknown) => void): Promise<ToolOutcome> {
    const valid = this.#validated(call);
    if (!valid.ok) return failure(valid.error);
    const signal = caller.signal ?? new AbortController().signal;
    if (signal.aborted) return failure(cancelled_error(valid.tool_name, abort_reason(signal)));

    const run = this.#run_of(valid, caller, signal);
    const authorized = await this.#authorized(run);
    if (!authorized.ok) return failure(authorized.error);
    const { decision } = authorized;

    const started_at = performance.now();
    const not_started = this.#record_started(run);
    if (not_started !== undefined) return failure(not_started);
    if (decision.action === "announce_then_run") this.#announce(run, decision);

    const products: RunProducts = { artifact_ids: [], evidence_ids: [] };
    const execution = this.#execution_for(run, decision, products, on_stream);
    const not_backed_up = await this.#back_up(run, decision, execution);
    if (not_backed_up !== undefined) return this.#failed_outcome(run, { error: not_backed_up }, started_at);
    const not_snapshotted = await this.#snapshot(run, decision, execution);
    if (not_snapshotted !== undefined) return this.#failed_outcome(run, { error: not_snapshotted }, started_at);
    const executed = await this.#executed(run, execution);
    if (!executed.ok) return this.#failed_outcome(run, executed, started_at);
    const output = this.#validated_output(run, executed.raw_output);
    if (!output.ok) return this.#failed_outcome(run, output, started_at);
    return this.#completed_outcome(run, output.output, products, started_at);
  }

  /**
   * `call` as a stream (seeds 000 §9.1): every chunk the tool streams as a `progress` item, then exactly one
   * `result` item with the outcome. A consumer that stops early cancels the call.
   */
  async *call_streaming(call: ToolCall, caller: ToolCaller): AsyncGenerator<ToolStreamItem, void, undefined> {
    const controller = new AbortController();
    const forward = () => controller.abort(caller.signal?.reason);
    if (caller.signal?.aborted === true) forward();
    else caller.signal?.addEventListener("abort", forward, { once: true });
    const chunks: unknown[] = [];
    let wake: (() => void) | undefined;
    let outcome: ToolOutcome | undefined;
    const running = this.call(call, { ...caller, signal: controller.signal }, (chunk) => {
      chunks.push(chunk);
      wake?.();
    }).then((settled) => {
      outcome = settled;
      wake?.();
    });
    try {
      for (;;) {
        while (chunks.length > 0) yield { type: "progress", chunk: chunks.shift() };
        if (outcome !== undefined) break;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
      yield { type: "result", outcome };
    } finally {
      caller.signal?.removeEventListener("abort", forward);
      if (outcome === undefined) {
        controller.abort("the caller stopped reading the tool's stream");
        await running;
      }
    }
  }

  /** The tool a call names and its input — or why the call cannot run: malformed, unknown tool, or input off its schema. */
  #validated(call: ToolCall): Step<ValidCall> {
    const parsed_call = v.safeParse(ToolCall, call);
    if (!parsed_call.success) return { ok: false, error: malformed_call_error(parsed_call.issues) };
    const { tool_name } = parsed_call.output;
    const registered = this.#tools.get(tool_name);
    if (registered === undefined) return { ok: false, error: unknown_tool_error(tool_name, [...this.#tools.keys()]) };
    const { definition } = registered;
    const input = v.safeParse(definition.input, parsed_call.output.input);
    if (!input.success) return { ok: false, error: invalid_input_error(tool_name, input.issues) };
    return { ok: true, tool_name, definition, input: input.output };
  }

  /** Gives the run its id and its origin: the tool, under the session's route. */
  #run_of({ tool_name, definition, input }: ValidCall, caller: ToolCaller, signal: AbortSignal): ToolRun {
    const { session } = caller;
    return {
      tool_name,
      definition,
      input,
      tool_run_id: new_id("tool_run"),
      caller,
      signal,
      origin: {
        ...session.origin,
        source: { kind: "tool", id: tool_name },
        route: [...session.origin.route, "tools", tool_name],
      },
      ingest: (event) => session.ingestor.ingest(event),
    };
  }

  /** Permission: request from the declaration + validated input, evaluate, record; anything not allowed is a refusal. */
  async #authorized(run: ToolRun): Promise<Step<{ decision: PermissionDecision }>> {
    const { session } = run.caller;
    let decision: PermissionDecision;
    try {
      const request = this.#request_of(run.definition, run.input, run.caller, run.tool_run_id);
      decision = await this.permissions.evaluate(request, { ingestor: session.ingestor, origin: run.origin }, run.signal);
      this.permissions.record(decision, request, { ingestor: session.ingestor, origin: run.origin });
    } catch (error) {
      return { ok: false, error: to_air_error(error, "tool_error") };
    }
    if (!is_allowed(decision.action)) return { ok: false, error: refusal_error(run.tool_name, decision, run.tool_run_id) };
    return { ok: true, decision };
  }

  /** Records `tool.started`, or says why it could not: then the tool does not run. */
  #record_started(run: ToolRun): AirError | undefined {
    const { tool_run_id, tool_name, definition, caller } = run;
    try {
      run.ingest(
        make_event(
          "tool.started",
          {
            tool_run_id,
            tool_name,
            tool_version: definition.version,
            input: run.input as JsonObject,
            task_id: caller.task_id,
            agent_id: caller.agent_id,
            origin_message_id: caller.origin_message_id,
          },
          run.origin,
        ),
      );
    } catch (error) {
      return to_air_error(error, "system_error");
    }
    return undefined;
  }

  /** Shows why an `announce_then_run` decision let the tool run. */
  /**
   * `backup_required` (seeds 000 §9.3): a write outside the project or into a credential file is preceded by
   * a backup of what is there now in the git-backed `.air/local/backups/`; no backup, no write.
   */
  async #back_up(run: ToolRun, decision: PermissionDecision, execution: ToolExecution): Promise<AirError | undefined> {
    const files = decision.backup_paths.filter((file) => {
      const stat = fs.lstatSync(file, { throwIfNoEntry: false });
      return stat === undefined || stat.isFile();
    });
    if (files.length === 0) return undefined;
    try {
      const store = BackupStore.for_project(run.caller.session.project.layout);
      const record = await store.backup(files, {
        reason: `before ${run.tool_name}: ${decision.reason}`,
        tool_run_id: run.tool_run_id,
        session_id: run.caller.session.id,
      });
      execution.evidence({
        kind: "structured_result",
        ref: `backup:${record.backup_id}`,
        claim: `backed up ${files.join(", ")} before writing (commit ${record.commit_sha})`,
      });
      return undefined;
    } catch (error) {
      const cause = to_air_error(error, "system_error");
      return make_air_error({
        kind: cause.kind,
        message: `${run.tool_name} did not run: the backup required before writing ${files.join(", ")} failed: ${cause.message}`,
        retryability: cause.retryability,
        user_action: cause.user_action ?? "Check that git is installed and .air/local/backups is writable, then try again.",
      });
    }
  }

  /**
   * A snapshot of the checkout's files the tool writes, before it writes them (issue 17); a tool that runs
   * commands snapshots around each command instead. No snapshot, no write.
   */
  #snapshot(run: ToolRun, decision: PermissionDecision, execution: ToolExecution): Promise<AirError | undefined> {
    const { permissions } = run.definition;
    if (permissions.writes === undefined || permissions.executes !== undefined) return Promise.resolve(undefined);
    const inputs = new Set(permissions.writes(run.input));
    return snapshot_before_write(
      execution,
      decision.paths.filter((classified) => inputs.has(classified.input)),
    );
  }

  #announce(run: ToolRun, decision: PermissionDecision): void {
    const { tool_run_id, tool_name, origin } = run;
    try {
      run.ingest(make_event("tool.progress", { tool_run_id, message: `${tool_name}: ${decision.reason}` }, origin));
    } catch {
      // The notice is live-only; failing to show it must not fail the call.
    }
  }

  /** What the running tool may use; the artifacts and evidence it creates are linked to the run and collected in `products`. */
  #execution_for(run: ToolRun, decision: PermissionDecision, products: RunProducts, on_stream?: (chunk: unknown) => void): ToolExecution {
    const { session, task_id, agent_id } = run.caller;
    const { tool_run_id, origin, ingest } = run;
    const links = { tool_run_id, task_id, agent_id };
    return {
      session,
      project_root: root_of(run.caller),
      ...(run.caller.workspace === undefined ? {} : { workspace: run.caller.workspace }),
      tool_run_id,
      tool_name: run.tool_name,
      task_id,
      agent_id,
      origin_message_id: run.caller.origin_message_id,
      scope: run.caller.scope,
      ...(run.caller.requester === undefined ? {} : { requester: run.caller.requester }),
      signal: run.signal,
      permission: decision,
      observations: this.observations.scope({ session_id: session.id, agent_id, task_id }),
      origin,
      emit: (type, payload) => void ingest(make_event(type, payload, origin)),
      stream: (chunk) => {
        try {
          on_stream?.(chunk);
        } catch {
          // A failing listener must not break the tool run.
        }
      },
      artifact: (artifact_input) => {
        const artifact = session.artifacts.create({ ...artifact_input, ...links });
        products.artifact_ids.push(artifact.id);
        return artifact;
      },
      evidence: ({ kind, ref, claim, artifact_id, command_run_id, diagnostic_id }) => {
        const id = new_id("evidence");
        ingest(make_event("evidence.created", { evidence: { id, kind, ref, claim }, artifact_id, command_run_id, diagnostic_id, ...links }, origin));
        products.evidence_ids.push(id);
        return id;
      },
    };
  }

  /** Runs the tool; a run aborted meanwhile is cancelled even if the tool returned. */
  async #executed(run: ToolRun, execution: ToolExecution): Promise<{ ok: true; raw_output: unknown } | ({ ok: false } & RunFailure)> {
    let raw_output: unknown;
    try {
      raw_output = await run.definition.execute(run.input, execution);
    } catch (error) {
      if (!(error instanceof ToolFailure)) return { ok: false, error: to_air_error(error, "tool_error") };
      const effects = v.safeParse(ToolEffects, error.effects);
      if (!effects.success) return { ok: false, error: invalid_output_error(run.tool_name, effects.issues) };
      return { ok: false, error: error.error, effects: effects.output };
    }
    if (run.signal.aborted) {
      // Cancelled after it acted: what it did is still the call's.
      const { effects } = declares_effects(run.definition.output) ? lift_effects(raw_output) : {};
      return { ok: false, error: cancelled_error(run.tool_name, abort_reason(run.signal)), ...(effects === undefined ? {} : { effects }) };
    }
    return { ok: true, raw_output };
  }

  #validated_output(run: ToolRun, raw_output: unknown): Step<{ output: unknown }> {
    const output = v.safeParse(run.definition.output, raw_output);
    if (!output.success) return { ok: false, error: invalid_output_error(run.tool_name, output.issues) };
    return { ok: true, output: output.output };
  }

  /** Ends a run that did not complete: `tool.cancelled` if the caller aborted, else `tool.failed`. */
  #failed_outcome(run: ToolRun, { error, effects }: RunFailure, started_at: number): ToolOutcome {
    const { tool_run_id, signal, origin } = run;
    try {
      if (signal.aborted) {
        run.ingest(make_event("tool.cancelled", { tool_run_id, reason: abort_reason(signal) }, origin));
        return failure(cancelled_error(run.tool_name, abort_reason(signal)), tool_run_id, effects);
      }
      run.ingest(make_event("tool.failed", { tool_run_id, error, duration_ms: elapsed_ms(started_at) }, origin));
      return failure(error, tool_run_id, effects);
    } catch (record_error) {
      return failure(to_air_error(record_error, "system_error"), tool_run_id, effects);
    }
  }

  /** Records `tool.completed`; a run whose completion cannot be recorded ends as failed. */
  #completed_outcome(run: ToolRun, output: unknown, products: RunProducts, started_at: number): ToolOutcome {
    const { tool_run_id } = run;
    const { artifact_ids, evidence_ids } = products;
    let completed: RuntimeEvent;
    try {
      completed = run.ingest(
        make_event("tool.completed", { tool_run_id, output, artifact_ids, evidence_ids, duration_ms: elapsed_ms(started_at) }, run.origin),
      );
    } catch (error) {
      return this.#failed_outcome(run, { error: to_air_error(error, "system_error") }, started_at);
    }
    // The caller (and so the model) gets the output as recorded: with secrets redacted by the ingestor.
    const recorded = (completed.payload as { output: unknown }).output;
    if (!declares_effects(run.definition.output)) return { ok: true, tool_run_id, output: recorded };
    return { ok: true, tool_run_id, ...lift_effects(recorded) };
  }

  #request_of(definition: AnyToolDefinition, input: unknown, caller: ToolCaller, tool_run_id: ToolRunId): PermissionRequest {
    const { permissions } = definition;
    return {
      tool_name: definition.name,
      category: definition.category,
      declared: {
        reads: permissions.reads !== undefined,
        writes: permissions.writes !== undefined,
        executes: permissions.executes !== undefined,
        network: permissions.network === true,
      },
      reads: permissions.reads?.(input) ?? [],
      writes: permissions.writes?.(input) ?? [],
      command: permissions.executes?.(input),
      ...(permissions.change === undefined ? {} : { change: (current: CurrentText) => permissions.change?.(input, current) }),
      ...(definition.capability === undefined ? {} : { capability: definition.capability }),
      project_root: caller.session.project.layout.root,
      ...(caller.workspace === undefined ? {} : { workspace: caller.workspace }),
      scope: caller.scope,
      ...(caller.owned_paths === undefined ? {} : { owned_paths: caller.owned_paths }),
      ...(caller.access === undefined ? {} : { access: caller.access }),
      tool_run_id,
      task_id: caller.task_id,
      agent_id: caller.agent_id,
    };
  }
}

import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import type { JsonObject } from "../contracts/entity.js";
import { air_failure, make_air_error, to_air_error, type AirError } from "../contracts/errors.js";
import { make_event, type EventOrigin } from "../contracts/events/registry.js";
import { new_id, type AgentId, type ArtifactId, type EvidenceId, type MessageId, type TaskId, type ToolRunId } from "../contracts/ids.js";
import type { TaskScope } from "../contracts/task.js";
import { ToolCall, ToolSchema, type ToolOutcome } from "../contracts/tool.js";
import { is_allowed, PermissionEngine, type PermissionDecision, type PermissionRequest } from "../permissions/engine.js";
import type { Session } from "../project/session-manager.js";
import type { AnyToolDefinition, ToolExecution } from "./define.js";
import { ReadObservations } from "./observations.js";

/** Who calls a tool and within what limits. */
export type ToolCallContext = {
  session: Session;
  task_id?: TaskId;
  agent_id?: AgentId;
  origin_message_id?: MessageId;
  scope?: TaskScope;
  signal?: AbortSignal;
};

export type ToolRegistryOptions = {
  /** Default: a `PermissionEngine` with the default profile and the `"deny"` prompt policy. */
  permissions?: PermissionEngine;
  observations?: ReadObservations;
};

type Registered = { definition: AnyToolDefinition; schema: ToolSchema };

function failure(error: AirError, tool_run_id?: ToolRunId): ToolOutcome {
  return tool_run_id === undefined ? { ok: false, error } : { ok: false, tool_run_id, error };
}

function cancelled_error(tool_name: string, reason: string): AirError {
  return make_air_error({
    kind: "tool_error",
    severity: "warning",
    message: `${tool_name} was cancelled: ${reason}`,
    retryability: "retryable",
    user_action: "Run the tool again if it is still needed.",
    metadata: { cancelled: true },
  });
}

function abort_reason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message || "aborted";
  return typeof reason === "string" && reason !== "" ? reason : "aborted";
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
    const { $schema: _dialect, ...input_schema } = toJsonSchema(definition.input, { errorMode: "throw" }) as JsonObject;
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

  async call(call: ToolCall, context: ToolCallContext, on_stream?: (chunk: unknown) => void): Promise<ToolOutcome> {
    const parsed_call = v.safeParse(ToolCall, call);
    if (!parsed_call.success) {
      return failure(
        make_air_error({
          kind: "tool_error",
          message: `malformed tool call: ${v.summarize(parsed_call.issues)}`,
          retryability: "not_retryable",
          user_action: "Send { tool_name, input } with a dotted tool name and an object input.",
        }),
      );
    }
    const { tool_name } = parsed_call.output;
    const registered = this.#tools.get(tool_name);
    if (registered === undefined) {
      return failure(
        make_air_error({
          kind: "tool_error",
          message: `unknown tool "${tool_name}"`,
          retryability: "not_retryable",
          user_action: `Call one of: ${[...this.#tools.keys()].join(", ") || "(no tools registered)"}.`,
          metadata: { tool_name },
        }),
      );
    }
    const { definition } = registered;
    const input = v.safeParse(definition.input, parsed_call.output.input);
    if (!input.success) {
      return failure(
        make_air_error({
          kind: "tool_error",
          message: `input of ${tool_name} fails its schema: ${v.summarize(input.issues)}`,
          retryability: "not_retryable",
          user_action: `Fix the input to match the input schema of ${tool_name}.`,
          metadata: { tool_name, issues: input.issues.map((issue) => ({ path: v.getDotPath(issue), message: issue.message })) },
        }),
      );
    }
    const signal = context.signal ?? new AbortController().signal;
    if (signal.aborted) return failure(cancelled_error(tool_name, abort_reason(signal)));

    const { session } = context;
    const tool_run_id = new_id("tool_run");
    const origin: EventOrigin = {
      ...session.origin,
      source: { kind: "tool", id: tool_name },
      route: [...session.origin.route, "tools", tool_name],
    };
    const ingest = (event: unknown) => session.ingestor.ingest(event);

    // Permission: request from the declaration + validated input, evaluate, record.
    let request: PermissionRequest;
    let decision: PermissionDecision;
    try {
      request = this.#request_of(definition, input.output, context, tool_run_id);
      decision = await this.permissions.evaluate(request, { ingestor: session.ingestor, origin });
      this.permissions.record(decision, request, { ingestor: session.ingestor, origin });
    } catch (error) {
      return failure(to_air_error(error, "tool_error"));
    }
    if (!is_allowed(decision.action)) return failure(this.#refusal(tool_name, decision, tool_run_id));

    const started_at = performance.now();
    try {
      ingest(
        make_event(
          "tool.started",
          {
            tool_run_id,
            tool_name,
            tool_version: definition.version,
            input: input.output as JsonObject,
            task_id: context.task_id,
            agent_id: context.agent_id,
            origin_message_id: context.origin_message_id,
          },
          origin,
        ),
      );
    } catch (error) {
      return failure(to_air_error(error, "system_error"));
    }
    if (decision.action === "announce_then_run") {
      try {
        ingest(make_event("tool.progress", { tool_run_id, message: `${tool_name}: ${decision.reason}` }, origin));
      } catch {
        // The notice is live-only; failing to show it must not fail the call.
      }
    }

    const artifact_ids: ArtifactId[] = [];
    const evidence_ids: EvidenceId[] = [];
    const links = { tool_run_id, task_id: context.task_id, agent_id: context.agent_id };
    const execution: ToolExecution = {
      session,
      project_root: session.project.layout.root,
      tool_run_id,
      tool_name,
      task_id: context.task_id,
      agent_id: context.agent_id,
      origin_message_id: context.origin_message_id,
      scope: context.scope,
      signal,
      permission: decision,
      observations: this.observations.scope({ session_id: session.id, agent_id: context.agent_id, task_id: context.task_id }),
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
        artifact_ids.push(artifact.id);
        return artifact;
      },
      evidence: ({ kind, ref, claim, artifact_id, command_run_id }) => {
        const id = new_id("evidence");
        ingest(
          make_event("evidence.created", { evidence: { id, kind, ref, claim }, artifact_id, command_run_id, ...links }, origin),
        );
        evidence_ids.push(id);
        return id;
      },
    };

    const duration = () => Math.max(0, performance.now() - started_at);
    const end_failed = (error: AirError): ToolOutcome => {
      try {
        if (signal.aborted) {
          ingest(make_event("tool.cancelled", { tool_run_id, reason: abort_reason(signal) }, origin));
          return failure(cancelled_error(tool_name, abort_reason(signal)), tool_run_id);
        }
        ingest(make_event("tool.failed", { tool_run_id, error, duration_ms: duration() }, origin));
        return failure(error, tool_run_id);
      } catch (record_error) {
        return failure(to_air_error(record_error, "system_error"), tool_run_id);
      }
    };

    let raw_output: unknown;
    try {
      raw_output = await definition.execute(input.output, execution);
    } catch (error) {
      return end_failed(to_air_error(error, "tool_error"));
    }
    if (signal.aborted) return end_failed(cancelled_error(tool_name, abort_reason(signal)));
    const output = v.safeParse(definition.output, raw_output);
    if (!output.success) {
      return end_failed(
        make_air_error({
          kind: "tool_error",
          message: `output of ${tool_name} fails its schema: ${v.summarize(output.issues)}`,
          retryability: "unknown",
          user_action: "This is a bug in the tool; its side effects (if any) happened, check them before retrying.",
          metadata: { tool_name },
        }),
      );
    }
    try {
      ingest(
        make_event(
          "tool.completed",
          { tool_run_id, output: output.output, artifact_ids, evidence_ids, duration_ms: duration() },
          origin,
        ),
      );
    } catch (error) {
      return end_failed(to_air_error(error, "system_error"));
    }
    return { ok: true, tool_run_id, output: output.output };
  }

  #request_of(definition: AnyToolDefinition, input: unknown, context: ToolCallContext, tool_run_id: ToolRunId): PermissionRequest {
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
      project_root: context.session.project.layout.root,
      scope: context.scope,
      tool_run_id,
      task_id: context.task_id,
      agent_id: context.agent_id,
    };
  }

  #refusal(tool_name: string, decision: PermissionDecision, tool_run_id: ToolRunId): AirError {
    const refused = decision.action === "refuse";
    const blocked = decision.action === "block";
    const user_action = refused
      ? "This is forbidden by policy and cannot be granted; choose another way that stays inside the project and its rules."
      : blocked
        ? "The task's scope does not cover this; ask for the scope to be widened (or a new task) instead of working around it."
        : "Permission was not granted; choose a path or command inside the project, or ask the user to allow it.";
    return make_air_error({
      kind: refused ? "policy_error" : "permission_error",
      message: `${tool_name} was not permitted (${decision.action}, ${decision.layer}): ${decision.reason}`,
      retryability: blocked ? "retryable_after_change" : "not_retryable",
      user_action,
      metadata: {
        tool_name,
        tool_run_id,
        decision_id: decision.decision_id,
        action: decision.action,
        layer: decision.layer,
        risk_level: decision.risk_level,
        ...(decision.prompt_id === undefined ? {} : { prompt_id: decision.prompt_id }),
      },
    });
  }
}

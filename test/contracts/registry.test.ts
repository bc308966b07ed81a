import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { PROJECTIONS } from "../../src/event-store/projectors/index.js";
import { EVENT_REGISTRY, EVENT_TYPES, is_event_type } from "../../src/contracts/events/registry.js";
import { lifecycle_machines, machine_event_types } from "../../src/machines/index.js";

/** Event types the seeds name: 000 §5.4 tables A and B, 000 §5.5, 001 D-040, 003 §9.1. */
const SEED_DURABLE = [
  "session.created",
  "session.archived",
  "session.deleted",
  "user.message.created",
  "assistant.message.started",
  "assistant.message.created",
  "assistant.message.failed",
  "agent.started",
  "agent.completed",
  "agent.failed",
  "agent.lost",
  "agent.cancelled",
  "task.created",
  "task.started",
  "task.completed",
  "task.blocked",
  "task.failed",
  "task.cancelled",
  "task.interrupted",
  "tool.started",
  "tool.completed",
  "tool.failed",
  "tool.cancelled",
  "command.started",
  "command.completed",
  "command.failed",
  "artifact.created",
  "diagnostic.created",
  "evidence.created",
  "context.compaction.requested",
  "context.compaction.started",
  "context.compaction.completed",
  "context.compaction.failed",
  "summary.created",
  "permission.decision.recorded",
  "permission.prompt.requested",
  "permission.prompt.resolved",
  "requirement.changed",
  "architecture.plan.updated",
  "architecture.impact.completed",
  "workspace.created",
  "workspace.merge.started",
  "workspace.merge.completed",
  "workspace.merge.conflicted",
  "workspace.cleaned",
  "memory.candidate.created",
  "memory.promoted",
  "memory.archived",
  "debug.record.created",
];
const SEED_EPHEMERAL = [
  "agent.heartbeat",
  "task.progress",
  "token.delta",
  "stdout.delta",
  "stderr.delta",
  "hud.frame.rendered",
  "tool.progress",
  "assistant.message.delta",
  "command.stdout.delta",
  "command.stderr.delta",
];

describe("event registry", () => {
  it("holds every durable event type the seeds name, as durable", () => {
    for (const type of SEED_DURABLE) {
      expect(is_event_type(type), type).toBe(true);
      if (is_event_type(type)) expect(EVENT_REGISTRY[type].persistence, type).toBe("durable");
    }
  });

  it("holds every ephemeral event type the seeds name, as ephemeral", () => {
    for (const type of SEED_EPHEMERAL) {
      expect(is_event_type(type), type).toBe(true);
      if (is_event_type(type)) expect(EVENT_REGISTRY[type].persistence, type).toBe("ephemeral");
    }
  });

  it("has doctor.* events", () => {
    expect(EVENT_TYPES.filter((type) => type.startsWith("doctor.")).length).toBeGreaterThan(0);
  });

  it("registers every event a lifecycle machine accepts, as durable", () => {
    for (const machine of Object.values(lifecycle_machines)) {
      for (const type of machine_event_types(machine)) {
        expect(is_event_type(type), `${machine.id}: ${type}`).toBe(true);
        if (is_event_type(type)) expect(EVENT_REGISTRY[type].persistence).toBe("durable");
      }
    }
  });

  it("gives every durable event a projection and no ephemeral one", () => {
    const durable = EVENT_TYPES.filter((type) => EVENT_REGISTRY[type].persistence === "durable").sort();
    expect(Object.keys(PROJECTIONS).sort()).toEqual(durable);
  });

  it("declares a version and a payload schema per type, and coalescing keys that the payload has", () => {
    for (const type of EVENT_TYPES) {
      const definition = EVENT_REGISTRY[type];
      expect(definition.version, type).toBeGreaterThanOrEqual(1);
      expect(typeof definition.payload["~standard"].validate, type).toBe("function");
      expect(definition.summary.length, type).toBeGreaterThan(0);
      if (definition.persistence === "ephemeral" && definition.coalescing !== undefined) {
        const entries = (definition.payload as unknown as { entries: Record<string, unknown> }).entries;
        expect(Object.keys(entries), type).toContain(definition.coalescing.key);
        if (definition.coalescing.mode === "append") expect(Object.keys(entries), type).toContain(definition.coalescing.text);
      }
    }
  });

  it("rejects unknown keys in payloads (strict schemas)", () => {
    const result = v.safeParse(EVENT_REGISTRY["session.archived"].payload, { reason: "done", surprise: 1 });
    expect(result.success).toBe(false);
  });
});

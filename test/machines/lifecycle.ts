/**
 * Shared model-based checks for the lifecycle machines. Each test file states its lifecycle as a
 * plain transition table (the specification); these checks prove the machine and the table agree
 * in both directions, using `xstate/graph` to walk the machine.
 */
import { describe, expect, it } from "vitest";
import { transition, type AnyMachineSnapshot, type AnyStateMachine, type EventFromLogic, type EventObject, type SnapshotFrom } from "xstate";
import { createTestModel, getAdjacencyMap, getShortestPaths } from "xstate/graph";
import { machine_event_types, machine_state_names } from "../../src/machines/index.js";

export interface LifecycleSpec<TMachine extends AnyStateMachine> {
  initial: string;
  finals: string[];
  /** Every event the tests try in every state, including payload variants a guard tells apart. */
  alphabet: Array<EventFromLogic<TMachine>>;
  /** The legal moves: `[from, event, to]`. Anything else must be rejected. */
  moves: Array<[from: string, event: EventFromLogic<TMachine>, to: string]>;
}

function event_label(event: { type: string }): string {
  const { type, ...payload } = event;
  return Object.keys(payload).length === 0 ? type : `${type} ${JSON.stringify(payload)}`;
}

function same_event(a: { type: string }, b: { type: string }): boolean {
  return event_label(a) === event_label(b);
}

function status_of(snapshot: { value: unknown }): string {
  return String(snapshot.value);
}

/** Traversal only follows moves the machine allows, so a failed guard is not mistaken for one. */
function can(snapshot: unknown, event: EventObject): boolean {
  return (snapshot as AnyMachineSnapshot).can(event);
}

/** The specification as an executable system under test: it only knows the transition table. */
class SpecLifecycle<TMachine extends AnyStateMachine> {
  status: string;
  constructor(private readonly spec: LifecycleSpec<TMachine>) {
    this.status = spec.initial;
  }
  send(event: { type: string }): void {
    const move = this.spec.moves.find(([from, e]) => from === this.status && same_event(e, event));
    if (!move) throw new Error(`the specification has no move for ${event_label(event)} from ${this.status}`);
    this.status = move[2];
  }
}

/** The shortest way into each status, so any status can be set up for a single-step check. */
function snapshots_by_status<TMachine extends AnyStateMachine>(machine: TMachine, spec: LifecycleSpec<TMachine>): Map<string, AnyMachineSnapshot> {
  const paths = getShortestPaths(machine, { events: spec.alphabet, filterEvents: can });
  return new Map(paths.map((path) => [status_of(path.state), path.state as AnyMachineSnapshot]));
}

export function describe_lifecycle<TMachine extends AnyStateMachine>(machine: TMachine, spec: LifecycleSpec<TMachine>): void {
  const statuses = machine_state_names(machine);
  const reached = snapshots_by_status(machine, spec);
  const at = (status: string): AnyMachineSnapshot => {
    const snapshot = reached.get(status);
    if (!snapshot) throw new Error(`status ${status} is unreachable`);
    return snapshot;
  };

  it(`starts in ${spec.initial}`, () => {
    expect(status_of(at(spec.initial))).toBe(spec.initial);
    expect(machine.definition.initial?.target[0]?.key).toBe(spec.initial);
  });

  it("can reach every status from the initial one", () => {
    expect([...reached.keys()].sort()).toEqual([...statuses].sort());
  });

  it(`ends only in ${spec.finals.length ? spec.finals.join(", ") : "no status (it has no final state)"}`, () => {
    const finals = statuses.filter((status) => machine.definition.states[status]?.type === "final");
    expect(finals.sort()).toEqual([...spec.finals].sort());
    for (const status of spec.finals) expect(at(status).status).toBe("done");
  });

  it("accepts exactly the event types of its transition table", () => {
    const types = [...new Set(spec.moves.map(([, event]) => event.type))].sort();
    expect(machine_event_types(machine)).toEqual(types);
  });

  it("has exactly the moves of its transition table (explored with getAdjacencyMap)", () => {
    const adjacency = getAdjacencyMap(machine, { events: spec.alphabet, filterEvents: can });
    const explored = Object.values(adjacency).flatMap((vertex) =>
      Object.values(vertex.transitions as Record<string, { event: EventObject; state: AnyMachineSnapshot }>).map(
        ({ event, state }) => `${status_of(vertex.state)} --${event_label(event)}--> ${status_of(state)}`,
      ),
    );
    const specified = spec.moves.map(([from, event, to]) => `${from} --${event_label(event)}--> ${to}`);
    expect(explored.sort()).toEqual(specified.sort());
  });

  describe("legal moves", () => {
    for (const [from, event, to] of spec.moves) {
      it(`moves from ${from} to ${to} on ${event_label(event)}`, () => {
        const snapshot = at(from);
        expect(snapshot.can(event)).toBe(true);
        const [next] = transition(machine, snapshot as SnapshotFrom<TMachine>, event);
        expect(status_of(next)).toBe(to);
      });
    }
  });

  describe("illegal moves", () => {
    for (const from of statuses) {
      for (const event of spec.alphabet) {
        if (spec.moves.some(([f, e]) => f === from && same_event(e, event))) continue;
        it(`rejects ${event_label(event)} while ${from}`, () => {
          const snapshot = at(from);
          expect(snapshot.can(event)).toBe(false);
          const [next] = transition(machine, snapshot as SnapshotFrom<TMachine>, event);
          expect(status_of(next)).toBe(from);
        });
      }
    }
  });

  describe("paths through the model (createTestModel, simple paths)", () => {
    const model = createTestModel(machine, { events: spec.alphabet, filterEvents: can });
    const paths = model.getSimplePaths();

    it("visits every status and every move of the table", () => {
      // Paths contained in longer ones are dropped, so count every status a path passes through.
      const visited = new Set(paths.flatMap((path) => path.steps.map((step) => status_of(step.state))));
      expect([...visited].sort()).toEqual([...statuses].sort());
      const covered = new Set(
        paths.flatMap((path) =>
          path.steps.slice(1).map((step, i) => {
            const before = path.steps[i]?.state;
            return `${before ? status_of(before) : "?"} --${event_label(step.event)}--> ${status_of(step.state)}`;
          }),
        ),
      );
      // Self moves never appear on a simple path; they are covered by "legal moves" above.
      const expected = spec.moves.filter(([from, , to]) => from !== to).map(([from, event, to]) => `${from} --${event_label(event)}--> ${to}`);
      for (const move of expected) expect(covered, move).toContain(move);
    });

    for (const path of paths) {
      it(path.description, async () => {
        const sut = new SpecLifecycle(spec);
        const events = Object.fromEntries(machine_event_types(machine).map((type) => [type, (step: { event: { type: string } }) => sut.send(step.event)]));
        const states = Object.fromEntries(statuses.map((status) => [status, () => expect(sut.status).toBe(status)]));
        await path.test({ events, states });
      });
    }
  });
}

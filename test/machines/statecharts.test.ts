import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { AnyStateMachine } from "xstate";
import { lifecycle_machines, machine_event_types } from "../../src/machines/index.js";
import { main_agent_machine } from "../../src/machines/main-agent.js";
import { scheduler_machine } from "../../src/machines/scheduler.js";
import { charted_machines, render_statecharts } from "../../src/machines/statecharts.js";
import { to_mermaid } from "../../src/machines/to-mermaid.js";
import { worker_run_machine } from "../../src/machines/worker-run.js";

const dir = fileURLToPath(new URL("../../statecharts/", import.meta.url));
const stale = "is out of date with src/machines: run `npm run statecharts` and commit the result";

describe("committed statecharts", () => {
  const rendered = render_statecharts();

  it("has a .json and a .mmd file for every charted machine, lifecycles included", () => {
    expect(charted_machines).toEqual(expect.arrayContaining(Object.values(lifecycle_machines)));
    const expected = charted_machines.flatMap((machine) => [`${machine.id}.json`, `${machine.id}.mmd`]);
    expect([...rendered.keys()].sort()).toEqual(expected.sort());
  });

  for (const [name, text] of rendered) {
    it(`statecharts/${name} matches the machine`, () => {
      const path = `${dir}${name}`;
      expect(existsSync(path), `statecharts/${name} is missing: run \`npm run statecharts\``).toBe(true);
      expect(readFileSync(path, "utf8"), `statecharts/${name} ${stale}`).toBe(text);
    });
  }

  it("holds no chart of a machine that no longer exists", () => {
    const committed = existsSync(dir) ? readdirSync(dir).filter((name) => /\.(json|mmd)$/.test(name)) : [];
    const extra = committed.filter((name) => !rendered.has(name));
    expect(extra, `statecharts/ ${stale}`).toEqual([]);
  });

  it("renders the same text every time", () => {
    expect(render_statecharts()).toEqual(rendered);
  });

  it("round-trips a lifecycle's JSON definition as plain data (they hold no functions)", () => {
    for (const machine of Object.values(lifecycle_machines)) {
      expect(JSON.parse(rendered.get(`${machine.id}.json`) ?? "null")).toEqual(machine.config);
    }
  });
});

type StateTree = { readonly states: Readonly<Record<string, StateTree>> };
const state_names = (node: StateTree): string[] => Object.entries(node.states).flatMap(([name, child]) => [name, ...state_names(child)]);

describe("names across machines", () => {
  it("names every state of every charted machine in lowercase snake_case, as the lifecycles' status values are", () => {
    for (const machine of charted_machines) {
      const names = state_names(machine.definition);
      expect(names.length, machine.id).toBeGreaterThan(0);
      expect(
        names.filter((name) => !/^[a-z]+(_[a-z]+)*$/.test(name)),
        machine.id,
      ).toEqual([]);
    }
  });

  it("names the events of the lifecycles, the Main Agent, the Scheduler and the worker run as lowercase dotted domain.verb", () => {
    const machines: AnyStateMachine[] = [...Object.values(lifecycle_machines), main_agent_machine, scheduler_machine, worker_run_machine];
    for (const machine of machines) {
      expect(
        machine_event_types(machine).filter((type) => !/^[a-z]+(\.[a-z_]+)+$/.test(type)),
        machine.id,
      ).toEqual([]);
    }
  });
});

describe("to_mermaid", () => {
  it("draws the initial state, every transition with its guard, and the final states", () => {
    const text = to_mermaid(lifecycle_machines.agent);
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toBe("stateDiagram-v2");
    expect(lines).toContain("  [*] --> starting");
    expect(lines).toContain("  starting --> running : agent.started [announces_running]");
    expect(lines).toContain("  lost --> [*]");
  });

  it("draws eventless routing transitions with their guards", () => {
    const text = to_mermaid(charted_machines.find((machine) => machine.id === "scheduler")!);
    expect(text).toContain("  monitoring --> collecting_results : always [has_finished]\n");
    expect(text).toContain("  monitoring --> blocked : always [quiet]\n");
  });

  it("draws a self transition as a loop", () => {
    expect(to_mermaid(lifecycle_machines.workspace)).toContain("  active --> active : workspace.merge.started\n");
  });

  it("draws one arrow per transition", () => {
    for (const machine of Object.values(lifecycle_machines)) {
      const arrows = to_mermaid(machine)
        .split("\n")
        .filter((line) => / --> [^[]/.test(line) && !line.includes("[*] -->"));
      const transitions = Object.values(machine.definition.states).reduce((sum, state) => sum + Object.values(state.on).flat().length, 0);
      expect(arrows.length, machine.id).toBe(transitions);
    }
  });
});

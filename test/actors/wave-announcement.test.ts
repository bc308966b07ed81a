import { describe, expect, it } from "vitest";
import { wave_announcer } from "../../src/actors/runtime/wave-announcement.js";
import type { WavePlan } from "../../src/orchestration/waves/wave.js";

const TITLES = new Map([
  ["tsk_a", "Fix a"],
  ["tsk_b", "Fix b"],
  ["tsk_c", "Fix c"],
]);
const titles_of = (task_ids: readonly string[]) => new Map([...TITLES].filter(([id]) => task_ids.includes(id)));

function plan(dispatch: string[], waiting: WavePlan["waiting"]): WavePlan {
  return { dispatch, serialize: [], waiting };
}

const SERIAL = "not a git repository: tasks run one at a time in the project folder";

describe("wave_announcer", () => {
  it("announces a wave that starts something, with titles and the waiting tasks' reasons", () => {
    const announce = wave_announcer(titles_of);
    expect(announce(plan(["tsk_a", "tsk_b"], [{ task_id: "tsk_c", reason: { kind: "dependency", on: ["tsk_a"] } }]), ["tsk_a", "tsk_b"], undefined)).toEqual({
      dispatched: [
        { task_id: "tsk_a", title: "Fix a" },
        { task_id: "tsk_b", title: "Fix b" },
      ],
      waiting: [{ task_id: "tsk_c", title: "Fix c", reason: { kind: "dependency", on: ["tsk_a"] } }],
    });
  });

  it("stays quiet on a re-plan that starts nothing and changes no reason, and speaks when a reason changes", () => {
    const announce = wave_announcer(titles_of);
    const waiting: WavePlan["waiting"] = [{ task_id: "tsk_c", reason: { kind: "dependency", on: ["tsk_a", "tsk_b"] } }];
    expect(announce(plan(["tsk_a", "tsk_b"], waiting), ["tsk_a", "tsk_b"], undefined)).toBeDefined();
    expect(announce(plan(["tsk_a", "tsk_b"], waiting), [], undefined)).toBeUndefined();
    const later: WavePlan["waiting"] = [{ task_id: "tsk_c", reason: { kind: "dependency", on: ["tsk_b"] } }];
    expect(announce(plan(["tsk_b"], later), [], undefined)).toEqual({
      dispatched: [],
      waiting: [{ task_id: "tsk_c", title: "Fix c", reason: later[0]?.reason }],
    });
    expect(announce(plan([], []), [], undefined)).toEqual({ dispatched: [], waiting: [] });
    expect(announce(plan([], []), [], undefined)).toBeUndefined();
  });

  it("says why tasks run one at a time once per run, with the first wave of more than one task", () => {
    const announce = wave_announcer(titles_of);
    expect(announce(plan(["tsk_a"], []), ["tsk_a"], SERIAL)).not.toHaveProperty("one_at_a_time");
    const first = announce(plan(["tsk_b"], [{ task_id: "tsk_c", reason: { kind: "capacity" } }]), ["tsk_b"], SERIAL);
    expect(first).toMatchObject({ one_at_a_time: SERIAL });
    expect(announce(plan(["tsk_c"], []), ["tsk_c"], SERIAL)).not.toHaveProperty("one_at_a_time");
  });

  it("names a task without a row by its id", () => {
    const announce = wave_announcer(titles_of);
    expect(announce(plan(["tsk_x"], []), ["tsk_x"], undefined)?.dispatched).toEqual([{ task_id: "tsk_x", title: "tsk_x" }]);
  });
});

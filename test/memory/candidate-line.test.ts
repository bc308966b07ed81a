import { describe, expect, it } from "vitest";
import { progress_lines } from "../../src/cli/progress-lines.js";
import { RunNames } from "../../src/cli/run-names.js";
import { make_event, parse_event } from "../../src/contracts/events/registry.js";
import { new_id } from "../../src/contracts/ids.js";

describe("a proposed memory candidate in the run's progress", () => {
  it("says there is a candidate and how to review it", () => {
    const origin = { session_id: new_id("session"), source: { kind: "system" as const }, route: ["runtime", "memory"] };
    const event = parse_event(
      make_event(
        "memory.candidate.created",
        { candidate_id: new_id("memory"), memory_type: "rule", content: "Run ctest.", evidence_ref_ids: [new_id("evidence")] },
        origin,
      ),
    );
    expect(progress_lines(event, new RunNames())).toEqual(["◆ 1 memory candidate (rule) — air memory review"]);
  });
});

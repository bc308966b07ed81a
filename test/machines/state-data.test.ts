import { describe, expect, it } from "vitest";
import { AirFailure } from "../../src/contracts/errors.js";
import { held } from "../../src/machines/state-data.js";

describe("held", () => {
  it("returns a state's data when its transition set it, falsy values included", () => {
    expect(held("msg_1", "main-agent", "request")).toBe("msg_1");
    expect(held(0, "scheduler", "count")).toBe(0);
    expect(held("", "scheduler", "reason")).toBe("");
  });

  it("fails as a system error naming the machine and the missing data when it is absent", () => {
    let thrown: unknown;
    try {
      held(undefined, "scheduler", "task");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AirFailure);
    expect(thrown).toMatchObject({
      error: { kind: "system_error", message: "the scheduler machine reached a state without its task", retryability: "not_retryable" },
    });
  });
});

import type { WaitReason } from "../../contracts/wait-reason.js";

/** The line the TUI and `air run`'s text show beside a waiting task. */
export function describe_wait(reason: WaitReason): string {
  switch (reason.kind) {
    case "dependency":
      return `waits for ${reason.on.join(", ")} to complete`;
    case "dependency_failed":
      return `cannot start: ${reason.on.join(", ")} ended without completing`;
    case "overlap":
      return `waits for ${reason.on} which also writes ${reason.glob}`;
    case "serialized":
      return `waits for ${reason.on}, serialized after it`;
    case "capacity":
      return "waits for a free worker slot";
    case "runs_alone":
      return "runs alone on the merged checkout once the running tasks end";
    case "alone":
      return `waits for ${reason.on}, which runs alone`;
  }
}

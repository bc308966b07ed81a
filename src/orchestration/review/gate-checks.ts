import { make_air_error, type AirError } from "../../contracts/errors.js";
import type { TaskScope } from "../../contracts/task.js";
import { in_write_area } from "../../permissions/write-area.js";
import { within } from "../../permissions/paths.js";
import { changed_lines, public_interface_changes, type TaskChange } from "./change.js";
import type { ReviewSettings } from "./settings.js";

/** Whether a reviewer reads this change, and why, in words for the record. */
export type ReviewNeed = { readonly review: boolean; readonly reason: string };

/** The review policy applied to one change (`significant`: more lines than the setting, or a public interface). */
export function review_need(settings: ReviewSettings, change: TaskChange): ReviewNeed {
  if (settings.policy === "never") return { review: false, reason: "the review policy is never" };
  if (settings.policy === "always") return { review: true, reason: "the review policy is always" };
  const interfaces = public_interface_changes(change);
  if (interfaces.length > 0) return { review: true, reason: `it changes a public interface: ${interfaces.join(", ")}` };
  const lines = changed_lines(change);
  if (lines > settings.significant_lines) return { review: true, reason: `${lines} changed lines, more than ${settings.significant_lines}` };
  return { review: false, reason: `${lines} changed line(s), no more than ${settings.significant_lines}, and no public interface` };
}

function false_success(message: string): AirError {
  return make_air_error({
    kind: "agent_error",
    message,
    retryability: "retryable_after_change",
    user_action: "air retries the task with this failure in its context; if it keeps claiming success, look at the task's scope.",
    metadata: { false_success: true },
  });
}

/** The files the task was expected to change, by name or by its write area. */
function expected_touched(scope: TaskScope, paths: readonly string[]): boolean {
  const expected = scope.expected_files ?? [];
  const area = scope.write_area;
  if (expected.length === 0 && area === undefined) return true;
  return paths.some((file) => expected.some((entry) => within(file, entry)) || (area !== undefined && in_write_area(file, area)));
}

/**
 * A "completed" that did not do the work, found before any model reads it: a diff with no change of a task whose
 * scope names what it changes, or one that touches none of the files the scope expects (`expected_files`,
 * `write_area`). Undefined otherwise.
 */
export function false_success_of(change: TaskChange, scope: TaskScope): AirError | undefined {
  // A task whose scope names no file and no area (a survey: "read and report") promised no change.
  const promised = (scope.expected_files ?? []).length > 0 || scope.write_area !== undefined;
  if (change.files.length === 0 && promised) {
    return false_success("the attempt claimed completion but its diff against its base is empty: nothing was changed");
  }
  const paths = change.files.map((file) => file.path);
  if (!expected_touched(scope, paths)) {
    const expected = [...(scope.expected_files ?? []), ...(scope.write_area ?? [])];
    return false_success(
      `the attempt claimed completion but its diff touches none of the task's expected files (${expected.join(", ")}); it changed ${paths.join(", ")}`,
    );
  }
  return undefined;
}

import { air_failure, type AirFailure } from "../../contracts/errors.js";
import type { ClangdExit } from "./process.js";

/** No clangd on this machine: the capability's optional `clangd` dependency, which doctor installs. */
export function clangd_missing(): AirFailure {
  return air_failure({
    kind: "dependency_error",
    message: "clangd is not installed: no clangd on PATH and none under /usr/lib/llvm-*/bin",
    retryability: "retryable_after_change",
    user_action: "Run `air doctor --fix` (it installs Debian's clangd package), or put clangd on PATH.",
    metadata: { dependency: "clangd" },
  });
}

function exit_text(exit: ClangdExit | undefined): string {
  if (exit === undefined) return "stopped answering";
  if (exit.error !== undefined) return `could not start (${exit.error})`;
  return exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${String(exit.code)}`;
}

/** clangd died (or never started) while a call waited on it; the pool starts a fresh one on the next call. */
export function clangd_exited(what: string, exit: ClangdExit | undefined, stderr_tail: string): AirFailure {
  const tail = stderr_tail === "" ? "its stderr is empty" : `its stderr ends:\n${stderr_tail}`;
  return air_failure({
    kind: "tool_error",
    message: `clangd ${exit_text(exit)} during ${what}; ${tail}`,
    retryability: "retryable",
    user_action: "Call again: the next call starts a fresh clangd. If it keeps failing, `clangd --check=FILE` shows why.",
    metadata: { what, exit_code: exit?.code ?? null, signal: exit?.signal ?? null, stderr_tail },
  });
}

/** A request clangd did not answer in time: that clangd is stopped, so no call hangs behind it. */
export function clangd_timeout(what: string, timeout_ms: number): AirFailure {
  return air_failure({
    kind: "tool_error",
    message: `clangd did not answer ${what} within ${timeout_ms} ms; it was stopped and the next call starts a fresh one`,
    retryability: "retryable",
    user_action: "Call again; a very large translation unit may need a larger request timeout.",
    metadata: { what, timeout_ms },
  });
}

export function clangd_cancelled(what: string): AirFailure {
  return air_failure({
    kind: "tool_error",
    severity: "warning",
    message: `${what} was cancelled`,
    retryability: "retryable",
    user_action: "Run the query again if it is still needed.",
    metadata: { what, cancelled: true },
  });
}

import fs from "node:fs";
import path from "node:path";
import { air_failure } from "../contracts/errors.js";
import type { InspectionSink } from "./live-system.js";

export type FileSink = InspectionSink & {
  readonly path: string;
  close(): void;
};

/**
 * `--inspect-file PATH`: the inspection stream as NDJSON, one Stately message per line. Each line is
 * written with one synchronous write, so a crash (even SIGKILL) leaves every line written so far readable
 * and at most nothing of the one in flight. The file holds the user's text and tool output: mode 0600.
 * A failing write (a full disk) closes the sink and is reported once; the run goes on.
 */
export function open_file_sink(file: string, on_error: (message: string) => void): FileSink {
  const resolved = path.resolve(file);
  let fd: number | undefined;
  try {
    fd = fs.openSync(resolved, "w", 0o600);
  } catch (error) {
    throw air_failure({
      kind: "user_error",
      message: `cannot write the inspection file ${resolved} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      retryability: "retryable_after_change",
      user_action: "Pass --inspect-file a path in a folder that exists and that you can write.",
    });
  }
  const close = () => {
    if (fd === undefined) return;
    const open = fd;
    fd = undefined;
    fs.closeSync(open);
  };
  return {
    path: resolved,
    write(line) {
      if (fd === undefined) return;
      try {
        const bytes = Buffer.from(`${line}\n`);
        for (let written = 0; written < bytes.length; ) written += fs.writeSync(fd, bytes, written);
      } catch (error) {
        close();
        on_error(`air: stopped writing ${resolved}: ${(error as Error).message}\n`);
      }
    },
    close,
  };
}

import type { AirError } from "../contracts/errors.js";

export type Io = {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly cwd: string;
};

export const process_io: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  cwd: process.cwd(),
};

/** How a failure reaches a person: what happened, of which kind, and what to do about it. */
export function render_error(error: AirError): string {
  const lines = [`air: ${error.kind}: ${error.message}`];
  if (error.user_action !== undefined) lines.push(`  → ${error.user_action}`);
  return `${lines.join("\n")}\n`;
}

export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return (
    rows
      .map((row) =>
        row
          .map((cell, column) => cell.padEnd(widths[column] ?? 0))
          .join("  ")
          .trimEnd(),
      )
      .join("\n") + "\n"
  );
}

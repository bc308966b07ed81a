import { parseArgs, type ParseArgsConfig } from "node:util";
import { normalise_inspect_argv } from "../inspect/argv.js";
import { render_error, type Io } from "./output.js";

/** One `air` command: what `air --help` says of it, the flags it takes, and what it does with them. */
export type Command = {
  readonly summary: string;
  readonly usage: string;
  readonly options: NonNullable<ParseArgsConfig["options"]>;
  readonly positionals?: boolean;
  /** `air migrate` itself: an outdated database is its work, not a reason to ask before it runs. */
  readonly migrates?: true;
  readonly run: (values: Record<string, unknown>, positionals: string[], io: Io) => Promise<number>;
};

export type ParsedArgs = { readonly values: Record<string, unknown>; readonly positionals: string[] };

/** The string-valued flags among `values`, renamed: `{ permission_mode: "permission-mode" }`. */
export function strings<K extends string>(values: Record<string, unknown>, names: Record<K, string>): Partial<Record<K, string>> {
  const picked: Partial<Record<K, string>> = {};
  for (const [key, flag] of Object.entries(names) as [K, string][]) {
    const value = values[flag];
    if (typeof value === "string") picked[key] = value;
  }
  return picked;
}

/**
 * parseArgs has no optional values: a `-r`/`--resume` with no id after it (at the end, or before another flag)
 * becomes `--resume=`, the empty id that means "pick one" (or the latest, headless).
 */
function normalise_resume_argv(args: readonly string[]): string[] {
  return args.map((arg, index) => {
    const next = args[index + 1];
    return (arg === "-r" || arg === "--resume") && (next === undefined || next.startsWith("-")) ? "--resume=" : arg;
  });
}

/** `rest` (the arguments after the command's name) parsed strictly, `--help` included; throws parseArgs's error on a bad flag. */
export function parse_command_args(command: Command, rest: readonly string[]): ParsedArgs {
  return parseArgs({
    args: normalise_resume_argv(normalise_inspect_argv(rest)),
    options: { ...command.options, help: { type: "boolean", short: "h" } },
    strict: true,
    allowPositionals: command.positionals === true,
  });
}

/**
 * D-055: a command that opens a database older than this build is refused by the open, before it changed
 * anything; here the plan is shown and asked about (whatever the permission mode), and on a yes the databases
 * are backed up and migrated and the command runs again.
 */
async function run_migrating(command: Command, { values, positionals }: ParsedArgs, io: Io): Promise<number> {
  try {
    return await command.run(values, positionals, io);
  } catch (error) {
    const outdated = (await import("../db/migrate.js")).outdated_database(error);
    if (outdated === undefined || command.migrates === true) throw error;
    await (await import("./migration-gate.js")).migrate_on_open(io, outdated);
    return await command.run(values, positionals, io);
  }
}

/** Runs `command` (named `name` in the log) on its parsed arguments; a failure is told as an AirError and logged, exit code 1. */
export async function run_command(command: Command, parsed: ParsedArgs, io: Io, name: string): Promise<number> {
  try {
    return await run_migrating(command, parsed, io);
  } catch (error) {
    const { to_air_error } = await import("../contracts/errors.js");
    io.err(render_error(to_air_error(error)));
    (await import("../logs/log.js")).log_error("cli", `${name} failed`, error);
    return 1;
  }
}

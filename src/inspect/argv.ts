/**
 * `node:util` parseArgs has no optional values, so a bare `--inspect` becomes `--inspect=local` before
 * parsing (`--inspect=PORT` and `--inspect=sky` pass as they are). Arguments after `--` are left alone.
 * Imports nothing: the CLI entry calls it for every command.
 */
export function normalise_inspect_argv(args: readonly string[]): string[] {
  const end = args.indexOf("--");
  return args.map((arg, index) => (arg === "--inspect" && (end === -1 || index < end) ? "--inspect=local" : arg));
}

import { type Command, type ParsedArgs, parse_command_args, run_command, strings } from "./command.js";
import { format_command_help, format_help } from "./help.js";
import { process_io, type Io } from "./output.js";
import { opens_tui, PERMISSION_FLAGS, permission_values, RUN_COMMAND } from "./run-command.js";

/** A flag given with `multiple: true`: every value, in order. */
function list(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** `air -c`, `air -r ID`, `air -p "…"`: as in the peers, these flags alone mean `air run` with them. */
const RUN_FLAGS = new Set(["-c", "--continue", "-r", "--resume", "-p", "--print"]);

function starts_run(first: string): boolean {
  return RUN_FLAGS.has(first) || first.startsWith("--resume=") || first.startsWith("--print=");
}

/**
 * The `air` entry. Each command is imported only when it runs, so `air session list` loads libsql and
 * nothing of the model SDKs, ink or xstate (cold start matters for commands people type often).
 */
const COMMANDS: Record<string, Command> = {
  init: {
    summary: "Make the current folder an air project (.air/shared, .air/local)",
    usage: "air init [--yes]",
    options: { yes: { type: "boolean", short: "y" } },
    run: async (values, _, io) => (await import("./commands/init.js")).run_init(io, { yes: values.yes === true }),
  },
  "session list": {
    summary: "List this project's active sessions (or every project's that air has opened); --archived the archived ones, --all every one, deleted ones too",
    usage: "air session list [--json] [--all-projects] [--archived | --all]",
    options: { json: { type: "boolean" }, "all-projects": { type: "boolean" }, archived: { type: "boolean" }, all: { type: "boolean" } },
    run: async (values, _, io) =>
      (await import("./commands/session-list.js")).run_session_list(io, {
        json: values.json === true,
        all_projects: values["all-projects"] === true,
        archived: values.archived === true,
        all: values.all === true,
      }),
  },
  "session archive": {
    summary: "Put a session away: kept whole, left out of `session list`, `-c` and the `-r` picker; `air resume --session ID` still reopens it",
    usage: "air session archive ID [--reason TEXT]",
    options: { reason: { type: "string" } },
    positionals: true,
    run: async (values, positionals, io) => {
      if (positionals.length > 1) return usage_error(io, `air session archive takes one ID, not "${positionals.join(" ")}"`);
      return (await import("./commands/session-manage.js")).run_session_archive(io, { id: positionals[0], ...strings(values, { reason: "reason" }) });
    },
  },
  "session delete": {
    summary:
      "End a session for good: its artifacts and workspaces are removed and it is never reopened; its log (air history) and snapshots stay until purged. Asks first unless --yes",
    usage: "air session delete ID [--reason TEXT] [--yes]",
    options: { reason: { type: "string" }, yes: { type: "boolean", short: "y" } },
    positionals: true,
    run: async (values, positionals, io) => {
      if (positionals.length > 1) return usage_error(io, `air session delete takes one ID, not "${positionals.join(" ")}"`);
      return (await import("./commands/session-manage.js")).run_session_delete(io, {
        id: positionals[0],
        yes: values.yes === true,
        ...strings(values, { reason: "reason" }),
      });
    },
  },
  "session purge": {
    summary: "Remove everything of a session from disk (log, artifacts, workspaces, snapshots); only its id and time stay, as purged. Asks first unless --yes",
    usage: "air session purge ID [--yes]",
    options: { yes: { type: "boolean", short: "y" } },
    positionals: true,
    run: async (values, positionals, io) => {
      if (positionals.length > 1) return usage_error(io, `air session purge takes one ID, not "${positionals.join(" ")}"`);
      return (await import("./commands/session-manage.js")).run_session_purge(io, { id: positionals[0], yes: values.yes === true });
    },
  },
  run: {
    ...RUN_COMMAND,
    run: async (values, positionals, io) => {
      if (positionals.length > 1) return usage_error(io, `air run takes one project folder, not "${positionals.join(" ")}"`);
      return RUN_COMMAND.run(values, positionals, io);
    },
  },
  resume: {
    summary: "Reopen a session (default: the latest), recover it and finish its tasks; on a terminal, in the TUI with its history",
    usage: "air resume [--session ID] [--max-budget-usd USD] [--max-tokens N] [--permission-mode MODE] [--prompts auto|stdin|policy]",
    options: { session: { type: "string" }, "max-budget-usd": { type: "string" }, "max-tokens": { type: "string" }, ...PERMISSION_FLAGS },
    run: async (values, _, io) =>
      (await import("./commands/resume.js")).run_resume(io, {
        ...(typeof values.session === "string" ? { session: values.session } : {}),
        ...permission_values(values),
        ...strings(values, { max_budget_usd: "max-budget-usd", max_tokens: "max-tokens" }),
      }),
  },
  demo: {
    summary: "Open the TUI on a temporary copy of a shipped fixture with a scripted model: no API key, nothing leaves the machine",
    usage: "air demo [--keep]",
    options: { keep: { type: "boolean" } },
    run: async (values, _, io) => (await import("./commands/demo.js")).run_demo(io, { keep: values.keep === true }),
  },
  e2e: {
    summary: "Run a shipped fixture (worker, cpp-fix, cpp-build-test, parallel) end to end against the scripted model server (no API key needed)",
    usage: "air e2e <NAME-fixture> [--keep]",
    options: { keep: { type: "boolean" } },
    positionals: true,
    run: async (values, positionals, io) => (await import("./commands/e2e.js")).run_e2e(io, positionals[0], { keep: values.keep === true }),
  },
  "permissions check": {
    summary: "Show what the permission engine decides for a command or a path, without running anything",
    usage: 'air permissions check [--json] [--cwd DIR] [--permission-mode MODE] (--command "…" | --path P --op read|write)',
    options: {
      json: { type: "boolean" },
      cwd: { type: "string" },
      command: { type: "string" },
      path: { type: "string" },
      op: { type: "string" },
      "permission-mode": { type: "string" },
    },
    run: async (values, _, io) =>
      (await import("./commands/permissions-check.js")).run_permissions_check(io, {
        json: values.json === true,
        ...strings(values, { cwd: "cwd", command: "command", path: "path", op: "op", permission_mode: "permission-mode" }),
      }),
  },
  doctor: {
    summary:
      "Check this machine: node, git, the shell sandbox, the provider, each capability's dependencies, each MCP server; --fix installs what capabilities miss; --bundle writes a local archive for a bug report (uploads nothing)",
    usage: "air doctor [--json] [--fix [--dry-run] [--yes] | --bundle [--out PATH]]",
    options: {
      json: { type: "boolean" },
      fix: { type: "boolean" },
      "dry-run": { type: "boolean" },
      yes: { type: "boolean", short: "y" },
      bundle: { type: "boolean" },
      out: { type: "string" },
    },
    run: async (values, _, io) =>
      (await import("./commands/doctor.js")).run_doctor(io, {
        json: values.json === true,
        fix: values.fix === true,
        dry_run: values["dry-run"] === true,
        yes: values.yes === true,
        bundle: values.bundle === true,
        ...strings(values, { out: "out" }),
      }),
  },
  "provider list": {
    summary: "The configured model providers, their models and capabilities (never a key)",
    usage: "air provider list [--json]",
    options: { json: { type: "boolean" } },
    run: async (values, _, io) => (await import("./commands/provider.js")).run_provider_list(io, { json: values.json === true }),
  },
  "provider current": {
    summary: "The provider and model of the latest (or given) session, or of a new one; read-only",
    usage: "air provider current [--json] [--session ID]",
    options: { json: { type: "boolean" }, session: { type: "string" } },
    run: async (values, _, io) =>
      (await import("./commands/provider.js")).run_provider_current(io, { json: values.json === true, ...strings(values, { session: "session" }) }),
  },
  compact: {
    summary: "Summarise a session's conversations (originals kept) so the next requests fit",
    usage: "air compact [--session ID] [--json]",
    options: { json: { type: "boolean" }, session: { type: "string" } },
    run: async (values, _, io) =>
      (await import("./commands/compact.js")).run_compact(io, { json: values.json === true, ...strings(values, { session: "session" }) }),
  },
  statecharts: {
    summary: "Print the Mermaid statechart of each machine (or one)",
    usage: "air statecharts [--machine NAME]",
    options: { machine: { type: "string" } },
    run: async (values, _, io) => (await import("./commands/statecharts.js")).run_statecharts(io, strings(values, { machine: "machine" })),
  },
  tasks: {
    summary: "List a session's tasks (default: the latest) with status, attempts, workspace and usage, and the total",
    usage: "air tasks [--session ID] [--json]",
    options: { session: { type: "string" }, json: { type: "boolean" } },
    run: async (values, _, io) =>
      (await import("./commands/tasks.js")).run_tasks(io, { json: values.json === true, ...strings(values, { session: "session" }) }),
  },
  "cpp parse": {
    summary: "Read C++ tool output (compiler, linker, CMake, CTest JUnit, GoogleTest, cppcheck, sanitizers) as diagnostics",
    usage:
      "air cpp parse [--from FORMAT] [--root DIR] [--json] FILE... (FORMAT: auto, gcc, clang, ld, cmake, ctest-junit, gtest-json, sanitizer, cppcheck-xml)",
    options: { from: { type: "string" }, root: { type: "string" }, json: { type: "boolean" } },
    positionals: true,
    run: async (values, positionals, io) =>
      (await import("./commands/cpp-parse.js")).run_cpp_parse(io, {
        json: values.json === true,
        files: positionals,
        ...strings(values, { from: "from", root: "root" }),
      }),
  },
  "capability list": {
    summary: "The capabilities air sees for this project (built-in, ~/.air, .air/shared): trust, status, tools, problems",
    usage: "air capability list [--json]",
    options: { json: { type: "boolean" } },
    run: async (values, _, io) => (await import("./commands/capability.js")).run_capability_list(io, { json: values.json === true }),
  },
  "capability validate": {
    summary: "Check a capability manifest (a capability.json or its folder), or every discovered one with --all",
    usage: "air capability validate [--all] [PATH]",
    options: { all: { type: "boolean" } },
    positionals: true,
    run: async (values, positionals, io) => {
      if (positionals.length > 1) return usage_error(io, `air capability validate takes one PATH, not "${positionals.join(" ")}"`);
      return (await import("./commands/capability.js")).run_capability_validate(io, {
        all: values.all === true,
        ...(positionals[0] === undefined ? {} : { path: positionals[0] }),
      });
    },
  },
  "capability enable": {
    summary: "Turn a capability on for this project (an untrusted one, or one disabled before)",
    usage: "air capability enable ID",
    options: {},
    positionals: true,
    run: async (_, positionals, io) => (await import("./commands/capability.js")).run_capability_choice(io, { id: positionals[0], choice: "enabled" }),
  },
  "capability disable": {
    summary: "Turn a capability off for this project: its tools are not offered",
    usage: "air capability disable ID",
    options: {},
    positionals: true,
    run: async (_, positionals, io) => (await import("./commands/capability.js")).run_capability_choice(io, { id: positionals[0], choice: "disabled" }),
  },
  "mcp list": {
    summary: "The MCP servers of this project's .mcp.json and ~/.air/mcp.json: transport (never a secret), trust, state, and what each one offers",
    usage: "air mcp list [--json]",
    options: { json: { type: "boolean" } },
    run: async (values, _, io) => (await import("./commands/mcp.js")).run_mcp_list(io, { json: values.json === true }),
  },
  "mcp add": {
    summary:
      "Add an MCP server as `claude mcp add` does: to the project's .mcp.json (the default) or, with --scope user, to ~/.air/mcp.json; ${VAR} is written as typed",
    usage:
      'air mcp add NAME [--scope project|user] [--env KEY=VALUE]... -- COMMAND [ARGS...] | air mcp add NAME URL --transport http|sse [--scope project|user] [--header "Key: Value"]...',
    options: {
      scope: { type: "string", short: "s" },
      transport: { type: "string", short: "t" },
      env: { type: "string", short: "e", multiple: true },
      header: { type: "string", short: "H", multiple: true },
    },
    positionals: true,
    run: async (values, positionals, io) => {
      const [name, ...target] = positionals;
      return (await import("./commands/mcp.js")).run_mcp_add(io, {
        ...(name === undefined ? {} : { name }),
        target,
        env: list(values.env),
        header: list(values.header),
        ...strings(values, { scope: "scope", transport: "transport" }),
      });
    },
  },
  "mcp remove": {
    summary: "Remove an MCP server from the project's .mcp.json or ~/.air/mcp.json (--scope says which, when both have it)",
    usage: "air mcp remove NAME [--scope project|user]",
    options: { scope: { type: "string", short: "s" } },
    positionals: true,
    run: async (values, positionals, io) => {
      if (positionals.length > 1) return usage_error(io, `air mcp remove takes one NAME, not "${positionals.join(" ")}"`);
      return (await import("./commands/mcp.js")).run_mcp_remove(io, {
        ...(positionals[0] === undefined ? {} : { name: positionals[0] }),
        ...strings(values, { scope: "scope" }),
      });
    },
  },
  history: {
    summary:
      "Show a session as the TUI does, or its event log (default: the latest session; piped: the log); --restore-points lists every change air made to the checkout (every session's, or --session's), newest first, each with the `air restore` command that goes back to just before it",
    usage: "air history [--session ID] [--view tui|events] [--json] | air history --restore-points [--session ID] [--json]",
    options: { session: { type: "string" }, json: { type: "boolean" }, view: { type: "string" }, "restore-points": { type: "boolean" } },
    run: async (values, _, io) => {
      const options = { ...strings(values, { session: "session" }), json: values.json === true };
      if (values["restore-points"] === true) return (await import("./commands/restore-points.js")).run_restore_points(io, options);
      return (await import("./commands/history.js")).run_history(io, { ...options, ...strings(values, { view: "view" }) });
    },
  },
  "restore file": {
    summary:
      "Put one file air changed back as it was before air first changed it, at a time (--at), or before a run (--before): shows the diff, applies on y or --yes; undoable",
    usage: "air restore file PATH [--at TIME | --before RUN_ID] [--yes]",
    options: { at: { type: "string" }, before: { type: "string" }, yes: { type: "boolean", short: "y" } },
    positionals: true,
    run: async (values, positionals, io) => {
      if (positionals.length > 1) return usage_error(io, `air restore file takes one PATH, not "${positionals.join(" ")}"`);
      return (await import("./commands/restore.js")).run_restore(io, {
        kind: "file",
        argument: positionals[0],
        yes: values.yes === true,
        ...strings(values, { at: "at", before: "before" }),
      });
    },
  },
  "restore time": {
    summary:
      "Put every file air changed since TIME back as it was then (shell commands' writes and deletions included): shows the diff, applies on y or --yes; undoable. TIME: ISO-8601, 2026-12-03 19:40 (local), 19:40, 10m, 2h ago",
    usage: "air restore time TIME [--yes]",
    options: { yes: { type: "boolean", short: "y" } },
    positionals: true,
    run: async (values, positionals, io) =>
      (await import("./commands/restore.js")).run_restore(io, { kind: "time", argument: positionals.join(" "), yes: values.yes === true }),
  },
  "restore session": {
    summary: "Undo every file change a session made (a restore's session: undo that restore): shows the diff, applies on y or --yes",
    usage: "air restore session ID [--yes]",
    options: { yes: { type: "boolean", short: "y" } },
    positionals: true,
    run: async (values, positionals, io) => {
      if (positionals.length > 1) return usage_error(io, `air restore session takes one ID, not "${positionals.join(" ")}"`);
      return (await import("./commands/restore.js")).run_restore(io, { kind: "session", argument: positionals[0], yes: values.yes === true });
    },
  },
  migrate: {
    summary:
      "Migrate the project's databases written by an older air: shows the plan (each database, its schema versions, what each migration changes), asks, backs them up under .air/local/backups/migrations/, then migrates each in one transaction",
    usage: "air migrate [--yes] [--dry-run]",
    options: { yes: { type: "boolean", short: "y" }, "dry-run": { type: "boolean" } },
    migrates: true,
    run: async (values, _, io) => (await import("./commands/migrate.js")).run_migrate(io, { yes: values.yes === true, dry_run: values["dry-run"] === true }),
  },
  "memory list": {
    summary: "The project's learned memories: candidates the experience miner proposed, and what was promoted or archived",
    usage: "air memory list [--json]",
    options: { json: { type: "boolean" } },
    run: async (values, _, io) => (await import("./commands/memory.js")).run_memory_list(io, { json: values.json === true }),
  },
  "memory review": {
    summary: "Approve, reject or skip each memory candidate (a rule, a skill, a fact, a pitfall); or decide one by id",
    usage: "air memory review [--approve ID | --reject ID [--reason TEXT]]",
    options: { approve: { type: "string" }, reject: { type: "string" }, reason: { type: "string" } },
    run: async (values, _, io) =>
      (await import("./commands/memory.js")).run_memory_review(io, strings(values, { approve: "approve", reject: "reject", reason: "reason" })),
  },
  "memory archive": {
    summary: "Make a stale or harmful memory inactive: its rule or skill file is removed",
    usage: "air memory archive ID [--reason TEXT]",
    options: { reason: { type: "string" } },
    positionals: true,
    run: async (values, positionals, io) => {
      if (positionals.length > 1) return usage_error(io, `air memory archive takes one ID, not "${positionals.join(" ")}"`);
      return (await import("./commands/memory.js")).run_memory_archive(io, { id: positionals[0], ...strings(values, { reason: "reason" }) });
    },
  },
};

function help(): string {
  const entries = Object.entries(COMMANDS).map(([name, command]) => ({
    name: `air ${name}`,
    summary: command.summary,
    // The name stands in its own column: the arguments are what follows it, in each form of the usage.
    args: command.usage.replaceAll(`air ${name} `, ""),
  }));
  return format_help("air — a local AI coding runtime", [
    ...entries,
    { name: "air -c | -r [ID] | -p …", summary: "Short for `air run -c`, `air run -r [ID]`, `air run -p …` (the flags combine)" },
    { name: "air --version", summary: "Print the version" },
    { name: "air --help", summary: "Show this help" },
  ]);
}

function usage_error(io: Io, message: string): number {
  io.err(`air: ${message}\n\n${help()}`);
  return 2;
}

/** The command named `name`; an own key only, so `air toString` is an unknown command, not Object's method. */
function command_named(name: string | undefined): Command | undefined {
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

function find_command(argv: string[]): { command: Command; rest: string[] } | undefined {
  const two = command_named(argv.slice(0, 2).join(" "));
  if (two !== undefined) return { command: two, rest: argv.slice(2) };
  const one = command_named(argv[0]);
  if (one !== undefined) return { command: one, rest: argv.slice(1) };
  return undefined;
}

export async function main(argv: string[], io: Io = process_io): Promise<number> {
  const first = argv[0];
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    io.out(help());
    return 0;
  }
  if (first === "--version" || first === "-v") {
    io.out(`${(await import("../version.js")).AIR_VERSION}\n`);
    return 0;
  }
  const run = command_named("run");
  const found = run !== undefined && starts_run(first) ? { command: run, rest: argv } : find_command(argv);
  if (found === undefined) return usage_error(io, `unknown command "${argv.join(" ")}"`);
  const { command } = found;
  let parsed: ParsedArgs;
  try {
    parsed = parse_command_args(command, found.rest);
  } catch (error) {
    return usage_error(io, `${(error as Error).message} (usage: ${command.usage})`);
  }
  if (parsed.values.help === true) {
    io.out(format_command_help(command.usage, command.summary));
    return 0;
  }
  // The TUI is bundled apart from the other commands (scripts/bundle-cli.mjs says why): only plain data crosses.
  if (command === COMMANDS.run && opens_tui(parsed)) return (await import("./tui-main.js")).main_tui(parsed, io);
  return run_command(command, parsed, io, `air ${argv.slice(0, argv.length - found.rest.length).join(" ")}`);
}

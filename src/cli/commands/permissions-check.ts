import path from "node:path";
import { air_failure } from "../../contracts/errors.js";
import type { PermissionDecision, PermissionRequest } from "../../permissions/engine.js";
import { permissions_for_project } from "../../permissions/session-permissions.js";
import { project_layout } from "../../project/layout.js";
import { locate_project_root } from "../../project/project-store.js";
import type { Io } from "../output.js";
import { parse_permission_options } from "../permission-options.js";

export type PermissionsCheckOptions = {
  readonly json: boolean;
  readonly cwd?: string;
  readonly command?: string;
  readonly path?: string;
  readonly op?: string;
  readonly permission_mode?: string;
};

function usage(message: string): never {
  throw air_failure({
    kind: "user_error",
    message,
    retryability: "not_retryable",
    user_action: 'Run `air permissions check --command "<command>"` or `air permissions check --path <path> --op read|write`.',
  });
}

/** The request a tool would make: `shell.run` for a command, `fs.read`/`fs.write` for a path. */
function request_of(options: PermissionsCheckOptions, root: string, cwd: string): PermissionRequest {
  const relative_cwd = path.relative(root, cwd) || ".";
  if (options.command !== undefined) {
    if (options.path !== undefined || options.op !== undefined) usage("give either --command or --path with --op, not both");
    return {
      tool_name: "shell.run",
      category: "shell",
      declared: { reads: false, writes: false, executes: true, network: false },
      reads: [],
      writes: [],
      command: { command: options.command, cwd: relative_cwd },
      project_root: root,
    };
  }
  if (options.path === undefined) usage("nothing to check");
  if (options.op !== "read" && options.op !== "write") usage(`--op must be read or write${options.op === undefined ? "" : `, not "${options.op}"`}`);
  const target = path.resolve(cwd, options.path);
  const writes = options.op === "write";
  return {
    tool_name: writes ? "fs.write" : "fs.read",
    category: "filesystem",
    declared: { reads: !writes, writes, executes: false, network: false },
    reads: writes ? [] : [target],
    writes: writes ? [target] : [],
    project_root: root,
  };
}

function report_of(decision: PermissionDecision) {
  const analysis = decision.analysis;
  return {
    decision: decision.action,
    mode: decision.mode,
    layer: decision.layer,
    risk_level: decision.risk_level,
    reason: decision.reason,
    categories: [...new Set(analysis?.commands.flatMap((run) => run.categories) ?? [])],
    commands:
      analysis?.commands.map((run) => ({
        argv: run.argv,
        categories: run.categories,
        ...(run.executes_via === undefined ? {} : { executes_via: run.executes_via }),
        ...(run.rule === undefined ? {} : { rule: run.rule, manual: run.manual }),
      })) ?? [],
    writes: analysis?.writes ?? [],
    paths: decision.paths.map((c) => ({ input: c.input, real: c.real, category: c.category, inside_project: c.inside_project })),
    findings: decision.findings.map(({ layer, action, risk_level, reason }) => ({ layer, action, risk_level, reason })),
  };
}

function render_text(report: ReturnType<typeof report_of>): string {
  const lines = [`decision: ${report.decision}  (layer ${report.layer}, risk ${report.risk_level}, ${report.mode} mode)`, `reason:   ${report.reason}`];
  if (report.categories.length > 0) lines.push(`categories: ${report.categories.join(", ")}`);
  if (report.commands.length > 0) {
    lines.push("commands the shell would run:");
    for (const run of report.commands)
      lines.push(
        `  ${run.argv.join(" ")}   [${run.categories.join(", ") || "uncategorised"}]${run.executes_via === undefined ? "" : ` via ${run.executes_via}`}${run.rule === undefined ? "  (no grammar)" : `  (rule ${run.rule}: ${run.manual})`}`,
      );
  }
  for (const written of report.writes) lines.push(`writes:   ${written}`);
  for (const c of report.paths) lines.push(`path:     ${c.input} → ${c.real} (${c.category})`);
  lines.push("findings:");
  for (const finding of report.findings) lines.push(`  ${finding.layer.padEnd(26)} ${finding.action.padEnd(17)} ${finding.reason}`);
  return `${lines.join("\n")}\n`;
}

/**
 * `air permissions check`: what the PermissionEngine would decide for a command or a path in this project —
 * with the project's and the user's rules and grants — without running or touching anything.
 * Exit code: 0 allowed, 3 asks, 4 denied/blocked/refused.
 */
export async function run_permissions_check(io: Io, options: PermissionsCheckOptions): Promise<number> {
  const cwd = path.resolve(io.cwd, options.cwd ?? ".");
  const root = locate_project_root(cwd) ?? cwd;
  const { mode } = parse_permission_options(options);
  const engine = permissions_for_project(project_layout(root), mode === undefined ? {} : { mode });
  const report = report_of(await engine.classify(request_of(options, root, cwd)));
  io.out(options.json ? `${JSON.stringify(report, null, 2)}\n` : render_text(report));
  if (report.decision === "allow" || report.decision === "announce_then_run") return 0;
  return report.decision === "ask_user" ? 3 : 4;
}

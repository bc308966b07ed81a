import path from "node:path";
import type { CapabilityTrust } from "../contracts/events/capability.js";
import type { PermissionAction, PermissionLayer, PermissionMode, PermissionSubject, RiskLevel } from "../contracts/events/permission.js";
import { is_air_failure } from "../contracts/errors.js";
import type { AgentId, TaskId, ToolRunId } from "../contracts/ids.js";
import type { TaskScope } from "../contracts/task.js";
import type { ToolCategory } from "../contracts/tool.js";
import type { analyze_command, AnalyzerAction, CommandAnalysis, CommandCategory, CommandFinding } from "./command-risk/index.js";
import type { CurrentText } from "./proposed-change.js";
import { default_redactor } from "./secret-redactor.js";
import { in_write_area } from "./write-area.js";
import { command_refusals, folder_refusal, workspace_refusal, write_refusal, type Refusal, type WorkspaceConfinement } from "./confinement.js";
import { classify_path, real_root_of, resolve_real, within, type PathClassification, type PathMemo } from "./paths.js";

/** How much an agent's calls may do: a reviewer reads and never writes (seeds 000 §8.3). */
export type ToolAccess = "full" | "read_only";

/** Categories of tools that act (build, test, run, drive a GUI): refused to a read-only agent whatever they declare. */
const ACTING_CATEGORIES = new Set<ToolCategory>(["shell", "build", "test", "debug", "gui"]);

/** What a tool call wants to touch, built by the ToolRegistry from the tool's declaration and input. */
export type PermissionRequest = {
  readonly tool_name: string;
  readonly category: ToolCategory;
  /** The kinds of access the tool declares (layer 1). */
  readonly declared: { readonly reads: boolean; readonly writes: boolean; readonly executes: boolean; readonly network: boolean };
  /** Paths this call reads, relative to the project root or absolute. */
  readonly reads: readonly string[];
  /** Paths this call writes, relative to the project root or absolute. */
  readonly writes: readonly string[];
  /** The command this call runs and its working folder (relative to the root or absolute). */
  readonly command?: { readonly command: string; readonly cwd: string };
  /** The capability the tool comes from, for the trust posture of its tools (seeds 003 §6). */
  readonly capability?: { readonly id: string; readonly trust: CapabilityTrust };
  /** The project; a confined request's paths are judged from its `workspace.root` instead. */
  readonly project_root: string;
  /** Set for a task working in a workspace: nothing outside `workspace.root` is written, in any mode. */
  readonly workspace?: WorkspaceConfinement;
  readonly scope?: TaskScope;
  /**
   * Folders of `.air/shared` (relative to the root) that the calling store owns and writes, e.g. the learned
   * memory's `.air/shared/rules` on a promotion. Honoured only for a call of the runtime itself (no agent).
   */
  readonly owned_paths?: readonly string[];
  /** Set by the parent from the run's role, never from what the worker says: `read_only` refuses every write and command. */
  readonly access?: ToolAccess;
  readonly tool_run_id?: ToolRunId;
  readonly task_id?: TaskId;
  readonly agent_id?: AgentId;
  /** The unified diff the call would make, from its input and the files' current text; asked for only when a prompt shows it. */
  readonly change?: (current: CurrentText) => string | undefined;
};

/**
 * Who may turn an `ask_user` finding into an allow before anyone is asked: `rule` — an allow rule or a grant
 * of any scope; `grant` — a grant only (the finding comes from an `ask` rule); `once` — only a one-time
 * answer to this very prompt (credential and system findings).
 */
type Approval = "rule" | "grant" | "once";

/** One layer's verdict; the strictest verdict decides (ties: the earlier layer). */
export type PermissionFinding = {
  readonly layer: PermissionLayer;
  readonly action: PermissionAction;
  readonly risk_level: RiskLevel;
  readonly reason: string;
  /** For `ask_user`: what an answer would cover, and who may answer it in advance. */
  readonly subjects?: readonly PermissionSubject[];
  readonly approval?: Approval;
  /** Set when an earlier answer, a rule or the mode turned this finding's `ask_user` into its action. */
  readonly settled?: boolean;
};

/** Everything the layers found, before rules, grants and the mode's last word. */
export type LayeredFindings = {
  readonly findings: PermissionFinding[];
  readonly paths: PathClassification[];
  readonly analysis?: CommandAnalysis;
  /** Every subject of the request, for `deny`/`ask` rules: each command run, each path read or written. */
  readonly subjects: PermissionSubject[];
  /** Real paths this call would write outside the project or into a credential file (seeds 003 §12 rule 7). */
  readonly backup_paths: string[];
};

const COMMAND_RISK: Record<AnalyzerAction, RiskLevel> = { refuse: "critical", deny: "high", ask_user: "medium", announce_then_run: "low", allow: "none" };
/** Analyzer finding categories judged by the credential/system override (layer 5), not by layer 4. */
const OVERRIDE_CATEGORIES = new Set<CommandFinding["category"]>(["credential_sensitive", "system_sensitive"]);
/** Commands that only look: all that `plan` mode runs. */
export const LOOKING = new Set<CommandCategory>(["read_only", "git_read", "static_analysis"]);
/** Commands whose every category is here need no answer of their own. */
const ROUTINE = new Set<CommandCategory>([...LOOKING, "build", "test"]);

type ModeBaseline = { readonly write_source: PermissionAction; readonly write_build: PermissionAction; readonly network: PermissionAction };
const MODE_BASELINE: Record<PermissionMode, ModeBaseline> = {
  default: { write_source: "ask_user", write_build: "allow", network: "ask_user" },
  "accept-edits": { write_source: "allow", write_build: "allow", network: "ask_user" },
  plan: { write_source: "deny", write_build: "deny", network: "deny" },
  bypass: { write_source: "allow", write_build: "allow", network: "allow" },
};

function describe_path(classification: PathClassification): string {
  return classification.relative !== undefined && classification.relative !== "" ? classification.relative : classification.real;
}

/** Why a path counts as outside the project: it is, or it has other names, or it goes through /proc. */
function outside_reason(c: PathClassification): string {
  if (c.process_link) return `${c.input} goes through /proc, which reaches whatever the opening process sees`;
  if (c.hard_linked) return `${describe_path(c)} is hard-linked: its other names may be outside the project`;
  return `${c.real}, outside the project`;
}

/** pnpm's node_modules are hard links into its store by design: reading them is reading dependencies. */
function dependency_link(c: PathClassification): boolean {
  return c.hard_linked && !c.process_link && c.relative !== undefined && c.relative.split("/")[0] === "node_modules";
}

function path_subject(c: PathClassification, op: "read" | "write"): PermissionSubject {
  return { kind: "path", op, path: c.relative !== undefined && c.relative !== "" ? c.relative : c.real };
}

/**
 * A command as a subject: redacted like everything stored, so the answer recorded for a command that carries
 * a secret still matches the same command when it is made again.
 */
function command_text(argv: readonly string[]): string {
  return default_redactor().redact(argv.join(" ") || "(empty)");
}

/** Collects findings layer by layer; knows the request and the classifications made so far. */
class Layers {
  readonly findings: PermissionFinding[] = [];
  readonly paths: PathClassification[] = [];
  readonly subjects: PermissionSubject[] = [];
  readonly backup_paths: string[] = [];
  /** The file system's answers during this decision, shared with the command's analysis. */
  readonly memo: PathMemo = new Map();
  /** The folder paths are judged from: the workspace of a confined task, else the project. */
  readonly root: string;

  constructor(
    readonly request: PermissionRequest,
    readonly mode: PermissionMode,
    readonly home: string | undefined,
  ) {
    this.root = request.workspace?.root ?? request.project_root;
  }

  add(
    layer: PermissionLayer,
    action: PermissionAction,
    risk_level: RiskLevel,
    reason: string,
    ask?: { subjects: readonly PermissionSubject[]; approval: Approval },
  ): void {
    this.findings.push(action === "ask_user" && ask !== undefined ? { layer, action, risk_level, reason, ...ask } : { layer, action, risk_level, reason });
  }

  classify(input: string, real_root: string): PathClassification | undefined {
    try {
      const classification = classify_path(input, this.root, { real_root, home: this.home, memo: this.memo });
      this.paths.push(classification);
      return classification;
    } catch (error) {
      const message = is_air_failure(error) ? error.error.message : (error as Error).message;
      this.add("path_command_risk", "deny", "medium", `the path ${JSON.stringify(input)} cannot be checked: ${message}`);
      return undefined;
    }
  }

  denied_by_scope(c: PathClassification): boolean {
    const scope = this.request.scope;
    const relative = c.relative;
    return scope !== undefined && relative !== undefined && (scope.denied_paths ?? []).some((entry) => within(relative, entry));
  }

  /** Layer 3's refusal of what a workspace never allows: no rule, grant, answer or mode lifts it. */
  refuse(refusal: Refusal | undefined): void {
    if (refusal !== undefined) this.add("task_scope", "refuse", "critical", refusal.reason);
  }

  /** Layer 3 for one write, by a tool or by a command. */
  scope_write(c: PathClassification, how: string): void {
    if (this.request.workspace !== undefined) this.refuse(write_refusal(this.request.workspace, c, how));
    const scope = this.request.scope;
    if (scope === undefined) return;
    const where = describe_path(c);
    const relative = c.relative;
    if (this.denied_by_scope(c)) this.add("task_scope", "deny", "medium", `${how}${where} is in the task's denied paths`);
    else if (scope.write_area !== undefined && (relative === undefined || !in_write_area(relative, scope.write_area))) {
      this.add("task_scope", "block", "medium", `${how}${where} is outside the task's write area ${scope.write_area.join(", ")}`);
    } else if (scope.allowed_paths !== undefined && (relative === undefined || !scope.allowed_paths.some((entry) => within(relative, entry)))) {
      this.add("task_scope", "block", "medium", `${how}${where} is not in the task's allowed paths`);
    } else this.add("task_scope", "allow", "none", `${how}${where} is inside the task scope`);
  }

  /** Layer 2 for one write inside the project: the mode's baseline for source and for build output. */
  mode_write(c: PathClassification, how: string): void {
    // A confined task's write outside its workspace is refused, so there is nothing to back up.
    const refused = this.request.workspace !== undefined && !c.inside_project;
    if (!refused && (!c.inside_project || c.category === "credential_or_secret") && !this.backup_paths.includes(c.real)) this.backup_paths.push(c.real);
    const baseline = MODE_BASELINE[this.mode];
    if (!c.inside_project) {
      // Outside the project, only the path's own risk (layer 4) and the credential layer speak, except in plan mode.
      const action = this.mode === "plan" ? "deny" : "allow";
      this.add("profile", action, action === "allow" ? "none" : "low", `${how}${c.real}, outside the project: ${this.mode} mode → ${action}`);
      return;
    }
    const action = c.category === "project_build_output" ? baseline.write_build : baseline.write_source;
    this.add("profile", action, action === "allow" ? "none" : "low", `${how}${describe_path(c)}: ${this.mode} mode → ${action}`, {
      subjects: [path_subject(c, "write")],
      approval: "rule",
    });
  }
}

function declaration_layer(layers: Layers): void {
  const { request } = layers;
  const { declared } = request;
  const undeclared: string[] = [];
  if (request.reads.length > 0 && !declared.reads) undeclared.push("reads");
  if (request.writes.length > 0 && !declared.writes) undeclared.push("writes");
  if (request.command !== undefined && !declared.executes) undeclared.push("executes");
  if (undeclared.length > 0) layers.add("tool_declaration", "refuse", "high", `${request.tool_name} ${undeclared.join(", ")} without declaring it`);
  else layers.add("tool_declaration", "allow", "none", `${request.tool_name} declares what it touches`);
}

/** Layer 4 (and 5 for credential/system findings) for the command; its writes against layers 2 and 3. */
function command_layer(layers: Layers, real_root: string, override: PermissionFinding[], analyze: CommandAnalyzer | undefined): CommandAnalysis | undefined {
  const command = layers.request.command;
  if (command === undefined) return undefined;
  if (analyze === undefined) throw new Error("a command reached the permission layers without the command analyzer");
  const cwd = layers.classify(command.cwd, real_root);
  if (cwd === undefined) return undefined;
  const whole: PermissionSubject = { kind: "command_line", command: default_redactor().redact(command.command) };
  const { workspace } = layers.request;
  if (workspace !== undefined) layers.refuse(folder_refusal(workspace, cwd, "the command would run in "));
  if (!cwd.inside_project)
    layers.add("path_command_risk", "ask_user", "medium", `the command would run in ${cwd.real}, outside the project`, { subjects: [whole], approval: "once" });
  let analysis: CommandAnalysis;
  try {
    analysis = analyze(command.command, { cwd_real: resolve_real(cwd.real), root_real: real_root, home: layers.home, memo: layers.memo });
  } catch (error) {
    layers.add("path_command_risk", "ask_user", "medium", `the command cannot be checked: ${(error as Error).message}`, {
      subjects: [whole],
      approval: "once",
    });
    return undefined;
  }
  for (const run of analysis.commands) layers.subjects.push({ kind: "command", command: command_text(run.argv) });
  if (workspace !== undefined) confined_command(layers, workspace, analysis, real_root);
  const risky: PermissionSubject[] = analysis.commands
    .filter((run) => run.categories.some((category) => !ROUTINE.has(category)))
    .map((run) => ({ kind: "command", command: command_text(run.argv) }));
  for (const finding of analysis.findings) {
    const is_command_category = !["unparseable", "unknown_execution", "outside_project", "air_internal"].includes(finding.category);
    const ask = is_command_category && risky.length > 0 ? { subjects: risky, approval: "rule" as const } : { subjects: [whole], approval: "once" as const };
    if (OVERRIDE_CATEGORIES.has(finding.category)) {
      // Credential and system findings are never allowed here, whatever the analyzer's action says.
      const action = finding.action === "allow" || finding.action === "announce_then_run" ? "ask_user" : finding.action;
      override.push({
        layer: "credential_system_override",
        action,
        risk_level: COMMAND_RISK[action],
        reason: finding.reason,
        ...(action === "ask_user" ? { subjects: [whole], approval: "once" as const } : {}),
      });
    } else layers.add("path_command_risk", finding.action, COMMAND_RISK[finding.action], finding.reason, ask);
  }
  if (analysis.commands.length === 0 && analysis.findings.length === 0) layers.add("path_command_risk", "allow", "none", "the command runs nothing");
  if (layers.mode === "plan") {
    const acting = analysis.commands.filter((run) => run.categories.some((category) => !LOOKING.has(category)));
    if (acting.length > 0 || analysis.writes.length > 0) {
      const what = acting.length > 0 ? acting.map((run) => command_text(run.argv)).join("; ") : "it writes files";
      layers.add("profile", "deny", "low", `plan mode only looks: ${what}`);
    }
  }
  for (const read of analysis.reads) {
    const c = layers.classify(read, real_root);
    if (c === undefined) continue;
    layers.subjects.push(path_subject(c, "read"));
    if (layers.denied_by_scope(c)) layers.add("task_scope", "deny", "medium", `the command reads ${describe_path(c)}, in the task's denied paths`);
    if (c.category === "credential_or_secret")
      override.push({
        layer: "credential_system_override",
        action: "deny",
        risk_level: "critical",
        reason: `the command reads ${describe_path(c)}, which holds credentials`,
      });
  }
  for (const written of analysis.writes) {
    const c = layers.classify(written, real_root);
    if (c === undefined) continue;
    layers.subjects.push(path_subject(c, "write"));
    layers.scope_write(c, "the command writes ");
    if (layers.mode !== "plan") layers.mode_write(c, "the command writes ");
  }
  return analysis;
}

/** Layer 3 for a confined task's command: no folder outside the workspace, no git writes, git not pointed elsewhere. */
function confined_command(layers: Layers, workspace: WorkspaceConfinement, analysis: CommandAnalysis, real_root: string): void {
  for (const folder of analysis.folders) {
    const c = layers.classify(folder, real_root);
    if (c !== undefined) layers.refuse(folder_refusal(workspace, c, "the command runs in "));
  }
  for (const refusal of command_refusals(workspace, analysis)) layers.refuse(refusal);
}

/**
 * Layer 3 for a read-only agent: any declared or actual write, any command, the network, any acting tool is
 * refused — no rule, grant, answer or mode lifts it, since the role (not the worker) decided the access.
 */
function read_only_layer(layers: Layers): void {
  const { request } = layers;
  if (request.access !== "read_only") return;
  const { declared } = request;
  const acts: string[] = [];
  if (declared.writes || request.writes.length > 0) acts.push("writes files");
  if (declared.executes || request.command !== undefined) acts.push("runs commands");
  if (declared.network) acts.push("uses the network");
  if (ACTING_CATEGORIES.has(request.category)) acts.push(`is a ${request.category} tool`);
  if (acts.length > 0) layers.refuse({ reason: `${request.tool_name} ${acts.join(", ")}: this agent's role (a reviewer, the experience miner) may only read` });
}

/** Layer 2's baseline for the request's kinds of access, by mode. */
function profile_layer(layers: Layers): void {
  const { request, mode } = layers;
  const baseline = MODE_BASELINE[mode];
  if (request.reads.length > 0) layers.add("profile", "allow", "none", `${mode} mode: reading is allowed`);
  if (request.command !== undefined) layers.add("profile", "announce_then_run", "low", `${mode} mode: commands are announced, then judged one by one`);
  if (request.declared.network) {
    layers.add(
      "profile",
      baseline.network,
      baseline.network === "allow" ? "none" : "low",
      `${request.tool_name} uses the network: ${mode} mode → ${baseline.network}`,
      {
        subjects: [{ kind: "network", tool_name: request.tool_name }],
        approval: "rule",
      },
    );
  }
  if (request.reads.length === 0 && request.writes.length === 0 && request.command === undefined && !request.declared.network) {
    layers.add("profile", "allow", "none", `${mode} mode: nothing to touch`);
  }
}

/** Trust levels whose tools air runs without asking: shipped with air, installed by the user, or vouched for. */
const VOUCHED = new Set<CapabilityTrust>(["built_in", "user_installed", "verified_publisher"]);

/**
 * Layer 2's trust posture: a tool of a capability nobody vouched for (a project's own, an untrusted one) asks before
 * its first use; the answer is a grant for that tool, so "this session" or "this project" is not asked again.
 */
function trust_layer(layers: Layers): void {
  const { capability, tool_name } = layers.request;
  if (capability === undefined || VOUCHED.has(capability.trust)) return;
  layers.add("profile", "ask_user", "medium", `${tool_name} is a tool of the ${capability.trust} capability ${capability.id}, not yet used here`, {
    subjects: [{ kind: "capability_tool", capability_id: capability.id, tool_name }],
    approval: "grant",
  });
}

/**
 * The one part of `.air/shared` air writes itself: the plan, by an internal tool (never offered to a model), for
 * a confirmed update of the Architecture Designer. Every other tool, and every write elsewhere in .air, is refused.
 */
function air_keeps(request: PermissionRequest, c: PathClassification): boolean {
  return request.category === "internal" && c.category === "project_air_shared" && c.inside_project && (c.relative ?? "").startsWith(".air/shared/plan/");
}

/** Layers 2–4 for the paths a tool declares: the mode for writes, the task scope, then where each path really is. */
/** A write into a folder of `.air/shared` that the runtime's own caller owns (see `PermissionRequest.owned_paths`). */
function owned_write(layers: Layers, c: PathClassification, real_root: string): boolean {
  const { owned_paths, agent_id } = layers.request;
  if (agent_id !== undefined || owned_paths === undefined || c.category !== "project_air_shared") return false;
  const relative = path.relative(real_root, c.real).split(path.sep).join("/");
  return owned_paths.some((owned) => relative !== owned && within(relative, owned));
}

function path_layers(layers: Layers, reads: readonly PathClassification[], writes: readonly PathClassification[], real_root: string): void {
  for (const c of reads) layers.subjects.push(path_subject(c, "read"));
  for (const c of writes) layers.subjects.push(path_subject(c, "write"));
  for (const c of writes) layers.mode_write(c, "writing ");
  for (const c of reads) {
    if (layers.denied_by_scope(c)) layers.add("task_scope", "deny", "medium", `${describe_path(c)} is in the task's denied paths`);
  }
  for (const c of writes) layers.scope_write(c, "");
  for (const c of reads) {
    if (!c.inside_project && !dependency_link(c)) {
      layers.add("path_command_risk", "ask_user", c.category === "system_sensitive" ? "high" : "medium", `reading ${outside_reason(c)}`, {
        subjects: [path_subject(c, "read")],
        approval: "rule",
      });
    } else layers.add("path_command_risk", "allow", "none", `reading ${describe_path(c)} (${c.category})`);
  }
  for (const c of writes) {
    const where = describe_path(c);
    // git and .air internals first: a hard link into .git is refused, not merely asked about.
    if (c.category === "project_git_internal")
      layers.add("path_command_risk", "refuse", "high", `${where} is inside git internals; git operations go through the git tools`);
    else if (owned_write(layers, c, real_root)) layers.add("path_command_risk", "allow", "low", `writing ${where}, which its owning store keeps`);
    else if (air_keeps(layers.request, c)) layers.add("path_command_risk", "allow", "low", `writing ${where}, the shared plan, through air's own tool`);
    else if (c.category === "project_air_shared" || c.category === "project_air_local")
      layers.add("path_command_risk", "refuse", "high", `${where} is inside air's own .air folder`);
    else if (!c.inside_project)
      layers.add("path_command_risk", "ask_user", "high", `writing ${outside_reason(c)}`, { subjects: [path_subject(c, "write")], approval: "rule" });
    else layers.add("path_command_risk", "allow", c.category === "project_build_output" ? "none" : "low", `writing ${where} (${c.category})`);
  }
}

/** Layer 5 for declared paths: credentials are never read, and written only with a one-time answer inside the project. */
function credential_layer(layers: Layers, reads: readonly PathClassification[], writes: readonly PathClassification[]): void {
  for (const c of reads) {
    if (c.category === "credential_or_secret") layers.add("credential_system_override", "deny", "critical", `${describe_path(c)} holds credentials`);
  }
  for (const c of writes) {
    if (c.category === "credential_or_secret") {
      if (c.inside_project)
        layers.add("credential_system_override", "ask_user", "high", `${describe_path(c)} holds credentials`, {
          subjects: [path_subject(c, "write")],
          approval: "once",
        });
      else layers.add("credential_system_override", "refuse", "critical", `${c.real} holds credentials`);
    } else if (c.category === "system_sensitive") layers.add("credential_system_override", "refuse", "critical", `${c.real} is a system path`);
  }
}

function real_or_undefined(folder: string): string | undefined {
  try {
    return real_root_of(folder);
  } catch {
    return undefined;
  }
}

/** The shell analyzer, handed in by the engine: it loads at the first command (see `command_analyzer`). */
export type CommandAnalyzer = typeof analyze_command;

/**
 * Layers 1–5 of seeds 000 §9.2 for one request. Pure apart from reading the file system (lstat/readlink).
 * A request with a command needs `analyze`.
 */
export function layered_findings(request: PermissionRequest, mode: PermissionMode, home: string | undefined, analyze?: CommandAnalyzer): LayeredFindings {
  const layers = new Layers(request, mode, home);
  declaration_layer(layers);
  read_only_layer(layers);
  profile_layer(layers);
  trust_layer(layers);
  let real_root: string;
  try {
    real_root = real_root_of(layers.root);
  } catch (error) {
    layers.add("path_command_risk", "deny", "high", `the project root ${layers.root} cannot be resolved: ${(error as Error).message}`);
    return { findings: layers.findings, paths: layers.paths, subjects: layers.subjects, backup_paths: [] };
  }
  if (request.workspace !== undefined) layers.refuse(workspace_refusal(request.workspace, real_root, real_or_undefined(request.workspace.project_root)));
  const reads = request.reads.map((input) => layers.classify(input, real_root)).filter((c): c is PathClassification => c !== undefined);
  const writes = request.writes.map((input) => layers.classify(input, real_root)).filter((c): c is PathClassification => c !== undefined);
  path_layers(layers, reads, writes, real_root);
  const override: PermissionFinding[] = [];
  const analysis = command_layer(layers, real_root, override, analyze);
  credential_layer(layers, reads, writes);
  layers.findings.push(...override);
  return {
    findings: layers.findings,
    paths: layers.paths,
    subjects: layers.subjects,
    backup_paths: layers.backup_paths,
    ...(analysis === undefined ? {} : { analysis }),
  };
}

import type { EventOrigin } from "../contracts/events/registry.js";
import { make_event } from "../contracts/events/registry.js";
import type { PermissionAction, PermissionGrantScope, RiskLevel } from "../contracts/events/permission.js";
import { is_air_failure } from "../contracts/errors.js";
import { new_id, type AgentId, type PermissionDecisionId, type PermissionPromptId, type TaskId, type ToolRunId } from "../contracts/ids.js";
import type { TaskScope } from "../contracts/task.js";
import type { ToolCategory } from "../contracts/tool.js";
import { analyze_command, type AnalyzerAction, type CommandFinding } from "./command-risk/index.js";
import { classify_path, real_root_of, resolve_real, within, type PathClassification } from "./paths.js";
import { DEFAULT_PROFILE, type PermissionProfile } from "./profile.js";

/** The six layers of seeds 000 §9.2, in evaluation order. */
export const PERMISSION_LAYERS = [
  "tool_declaration",
  "profile",
  "task_scope",
  "path_command_risk",
  "credential_system_override",
  "user_prompt",
] as const;
export type PermissionLayer = (typeof PERMISSION_LAYERS)[number];

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
  readonly project_root: string;
  readonly scope?: TaskScope;
  readonly tool_run_id?: ToolRunId;
  readonly task_id?: TaskId;
  readonly agent_id?: AgentId;
};

/** One layer's verdict; the strictest verdict decides (ties: the earlier layer). */
export type PermissionFinding = {
  readonly layer: PermissionLayer;
  readonly action: PermissionAction;
  readonly risk_level: RiskLevel;
  readonly reason: string;
};

export type PermissionDecision = {
  readonly decision_id: PermissionDecisionId;
  readonly action: PermissionAction;
  readonly grant_scope: PermissionGrantScope;
  readonly risk_level: RiskLevel;
  readonly reason: string;
  readonly layer: PermissionLayer;
  readonly prompt_id?: PermissionPromptId;
  /** Every layer's verdict, in layer order (for the audit and for debugging a decision). */
  readonly findings: readonly PermissionFinding[];
  /** How each read/write path was classified. */
  readonly paths: readonly PathClassification[];
};

/** How `ask_user` is answered while there is no interactive prompt: `"deny"` (default) or `"allow"`. */
export type PromptPolicy = "deny" | "allow";

/** Where permission events go: a `Session` is one. */
export type PermissionRecorder = {
  readonly ingestor: { ingest(event: unknown): unknown };
  readonly origin: EventOrigin;
};

export type PermissionEngineOptions = {
  profile?: PermissionProfile;
  prompt_policy?: PromptPolicy;
  /** The home folder for `~` and home credentials (default `os.homedir()`). */
  home?: string;
};

const STRICTNESS: Record<PermissionAction, number> = {
  allow: 0,
  announce_then_run: 1,
  ask_user: 2,
  block: 3,
  deny: 4,
  refuse: 5,
};
const RISK: Record<RiskLevel, number> = { none: 0, low: 1, medium: 2, high: 3, critical: 4 };
/** The risk of an analyzer finding, by its action. */
const COMMAND_RISK: Record<AnalyzerAction, RiskLevel> = { refuse: "critical", deny: "high", ask_user: "medium", announce_then_run: "low", allow: "none" };
/** Analyzer finding categories judged by the credential/system override (layer 5), not by layer 4. */
const OVERRIDE_CATEGORIES = new Set<CommandFinding["category"]>(["credential_sensitive", "system_sensitive"]);

/** Whether the call may run (after a prompt has been answered). */
export function is_allowed(action: PermissionAction): boolean {
  return action === "allow" || action === "announce_then_run";
}

function clip(text: string, max = 4000): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function describe_path(classification: PathClassification): string {
  return classification.relative !== undefined && classification.relative !== "" ? classification.relative : classification.real;
}

/**
 * PermissionEngine, first version (seeds 000 §9.2, DESIGN §6). `evaluate` runs the six layers in their
 * fixed order; every layer may only make the verdict stricter, so a broad allow never overrides task
 * scope, and credential/system rules override everything before them. `ask_user` is answered by the
 * headless prompt policy, recorded as `permission.prompt.requested` + `permission.prompt.resolved`.
 */
export class PermissionEngine {
  readonly profile: PermissionProfile;
  readonly prompt_policy: PromptPolicy;
  readonly #home: string | undefined;

  constructor(options: PermissionEngineOptions = {}) {
    this.profile = options.profile ?? DEFAULT_PROFILE;
    this.prompt_policy = options.prompt_policy ?? "deny";
    this.#home = options.home;
  }

  /** Layers 1–5: the verdict before any prompt. Pure apart from reading the file system (realpath). */
  classify(request: PermissionRequest): PermissionDecision {
    const findings: PermissionFinding[] = [];
    const add = (layer: PermissionLayer, action: PermissionAction, risk_level: RiskLevel, reason: string) =>
      findings.push({ layer, action, risk_level, reason });
    const paths: PathClassification[] = [];

    // 1. tool declaration
    const { declared } = request;
    const undeclared: string[] = [];
    if (request.reads.length > 0 && !declared.reads) undeclared.push("reads");
    if (request.writes.length > 0 && !declared.writes) undeclared.push("writes");
    if (request.command !== undefined && !declared.executes) undeclared.push("executes");
    if (undeclared.length > 0) {
      add("tool_declaration", "refuse", "high", `${request.tool_name} ${undeclared.join(", ")} without declaring it`);
    } else {
      add("tool_declaration", "allow", "none", `${request.tool_name} declares what it touches`);
    }

    // 2. profile
    const profile = this.profile;
    const wants: [string, PermissionAction][] = [];
    if (request.reads.length > 0) wants.push(["read", profile.read]);
    if (request.writes.length > 0) wants.push(["write", profile.write]);
    if (request.command !== undefined) wants.push(["execute", profile.execute]);
    if (declared.network) wants.push(["network", profile.network]);
    for (const [kind, action] of wants) {
      add("profile", action, action === "allow" ? "none" : "low", `profile "${profile.name}": ${kind} → ${action}`);
    }
    if (wants.length === 0) add("profile", "allow", "none", `profile "${profile.name}": nothing to touch`);

    let real_root: string;
    try {
      real_root = real_root_of(request.project_root);
    } catch (error) {
      add("path_command_risk", "deny", "high", `the project root ${request.project_root} cannot be resolved: ${(error as Error).message}`);
      return this.#decide(findings, paths);
    }
    const classify = (input: string): PathClassification | undefined => {
      try {
        const classification = classify_path(input, request.project_root, { real_root, home: this.#home });
        paths.push(classification);
        return classification;
      } catch (error) {
        const message = is_air_failure(error) ? error.error.message : (error as Error).message;
        add("path_command_risk", "deny", "medium", `the path ${JSON.stringify(input)} cannot be checked: ${message}`);
        return undefined;
      }
    };
    const reads = request.reads.map(classify).filter((c): c is PathClassification => c !== undefined);
    const writes = request.writes.map(classify).filter((c): c is PathClassification => c !== undefined);

    // 3. task scope: allowed/denied paths and the write area. Project-level allows never override it.
    const scope = request.scope;
    const denied = (c: PathClassification) =>
      scope !== undefined && c.relative !== undefined && (scope.denied_paths ?? []).some((entry) => within(c.relative!, entry));
    /** A write (by a tool or by a command) against the task scope. */
    const scope_write = (c: PathClassification, how: string) => {
      if (scope === undefined) return;
      const where = describe_path(c);
      if (denied(c)) add("task_scope", "deny", "medium", `${how}${where} is in the task's denied paths`);
      else if (scope.write_area !== undefined && (c.relative === undefined || !within(c.relative, scope.write_area))) {
        add("task_scope", "block", "medium", `${how}${where} is outside the task's write area ${scope.write_area}`);
      } else if (scope.allowed_paths !== undefined && (c.relative === undefined || !scope.allowed_paths.some((entry) => within(c.relative!, entry)))) {
        add("task_scope", "block", "medium", `${how}${where} is not in the task's allowed paths`);
      } else {
        add("task_scope", "allow", "none", `${how}${where} is inside the task scope`);
      }
    };
    if (scope !== undefined) {
      for (const c of reads) {
        if (denied(c)) add("task_scope", "deny", "medium", `${describe_path(c)} is in the task's denied paths`);
      }
      for (const c of writes) scope_write(c, "");
    }

    // 4. path / command risk
    for (const c of reads) {
      if (!c.inside_project) add("path_command_risk", "ask_user", c.category === "system_sensitive" ? "high" : "medium", `reading ${c.real}, outside the project`);
      else add("path_command_risk", "allow", "none", `reading ${describe_path(c)} (${c.category})`);
    }
    for (const c of writes) {
      const where = describe_path(c);
      if (!c.inside_project) add("path_command_risk", "ask_user", "high", `writing ${c.real}, outside the project`);
      else if (c.category === "project_git_internal") add("path_command_risk", "refuse", "high", `${where} is inside git internals; git operations go through the git tools`);
      else if (c.category === "project_air_shared" || c.category === "project_air_local") add("path_command_risk", "refuse", "high", `${where} is inside air's own .air folder`);
      else add("path_command_risk", "allow", c.category === "project_build_output" ? "none" : "low", `writing ${where} (${c.category})`);
    }
    // The command: every finding of the CommandRiskAnalyzer, credential/system ones in layer 5; its writes against the scope.
    let override_findings: CommandFinding[] = [];
    if (request.command !== undefined) {
      const cwd = classify(request.command.cwd);
      if (cwd !== undefined) {
        if (!cwd.inside_project) add("path_command_risk", "ask_user", "medium", `the command would run in ${cwd.real}, outside the project`);
        try {
          const analysis = analyze_command(request.command.command, { cwd_real: resolve_real(cwd.real), root_real: real_root, home: this.#home });
          override_findings = analysis.findings.filter((finding) => OVERRIDE_CATEGORIES.has(finding.category));
          for (const finding of analysis.findings) {
            if (!OVERRIDE_CATEGORIES.has(finding.category)) add("path_command_risk", finding.action, COMMAND_RISK[finding.action], finding.reason);
          }
          if (analysis.commands.length === 0 && analysis.findings.length === 0) add("path_command_risk", "allow", "none", "the command runs nothing");
          for (const written of analysis.writes) {
            const c = classify(written);
            if (c !== undefined) scope_write(c, "the command writes ");
          }
        } catch (error) {
          add("path_command_risk", "ask_user", "medium", `the command cannot be checked: ${(error as Error).message}`);
        }
      }
    }

    // 5. credential / system-sensitive override
    for (const c of reads) {
      if (c.category === "credential_or_secret") add("credential_system_override", "deny", "critical", `${describe_path(c)} holds credentials`);
    }
    for (const c of writes) {
      if (c.category === "credential_or_secret") {
        if (c.inside_project) add("credential_system_override", "ask_user", "high", `${describe_path(c)} holds credentials`);
        else add("credential_system_override", "refuse", "critical", `${c.real} holds credentials`);
      } else if (c.category === "system_sensitive") {
        add("credential_system_override", "refuse", "critical", `${c.real} is a system path`);
      }
    }
    for (const finding of override_findings) {
      // Credential and system findings are never allowed here, whatever the analyzer's action says.
      const action = STRICTNESS[finding.action] < STRICTNESS.ask_user ? "ask_user" : finding.action;
      add("credential_system_override", action, COMMAND_RISK[action], finding.reason);
    }

    return this.#decide(findings, paths);
  }

  /**
   * All six layers: `classify`, then (layer 6) a prompt when the verdict is `ask_user`. With a recorder
   * the prompt is recorded as `permission.prompt.requested` + `permission.prompt.resolved`.
   */
  async evaluate(request: PermissionRequest, recorder?: PermissionRecorder): Promise<PermissionDecision> {
    const decision = this.classify(request);
    if (decision.action !== "ask_user") return decision;
    const prompt_id = new_id("permission_prompt");
    const subject = { tool_run_id: request.tool_run_id, task_id: request.task_id, agent_id: request.agent_id, tool_name: request.tool_name };
    recorder?.ingestor.ingest(
      make_event(
        "permission.prompt.requested",
        {
          prompt_id,
          question: clip(`Allow ${request.tool_name}? ${decision.reason}`),
          risk_level: decision.risk_level,
          offered_scopes: ["once"],
          ...subject,
        },
        recorder.origin,
      ),
    );
    const answer = this.prompt_policy;
    recorder?.ingestor.ingest(
      make_event(
        "permission.prompt.resolved",
        { prompt_id, answer, grant_scope: "once", resolved_by: "policy", note: `headless prompt policy: ${answer}` },
        recorder.origin,
      ),
    );
    const finding: PermissionFinding = {
      layer: "user_prompt",
      action: answer,
      risk_level: decision.risk_level,
      reason: `${decision.reason} — answered "${answer}" by the headless prompt policy`,
    };
    return {
      ...decision,
      action: answer,
      grant_scope: "once",
      layer: "user_prompt",
      reason: clip(finding.reason),
      prompt_id,
      findings: [...decision.findings, finding],
    };
  }

  /** Appends `permission.decision.recorded` (the audit trail). */
  record(decision: PermissionDecision, request: PermissionRequest, recorder: PermissionRecorder): void {
    recorder.ingestor.ingest(
      make_event(
        "permission.decision.recorded",
        {
          decision_id: decision.decision_id,
          action: decision.action,
          grant_scope: decision.grant_scope,
          risk_level: decision.risk_level,
          reason: decision.reason,
          layer: decision.layer,
          prompt_id: decision.prompt_id,
          tool_run_id: request.tool_run_id,
          task_id: request.task_id,
          agent_id: request.agent_id,
          tool_name: request.tool_name,
        },
        recorder.origin,
      ),
    );
  }

  #decide(findings: PermissionFinding[], paths: PathClassification[]): PermissionDecision {
    let deciding = findings[0]!;
    let risk: RiskLevel = "none";
    for (const finding of findings) {
      const stricter = STRICTNESS[finding.action] > STRICTNESS[deciding.action];
      // An allow is explained best by the last layer that looked; anything stricter by the first that said so.
      if (stricter || (finding.action === "allow" && deciding.action === "allow")) deciding = finding;
      if (RISK[finding.risk_level] > RISK[risk]) risk = finding.risk_level;
    }
    const same = findings.filter((finding) => finding.action === deciding.action && finding.layer === deciding.layer);
    const reason = deciding.action === "allow" ? deciding.reason : same.map((finding) => finding.reason).join("; ");
    return {
      decision_id: new_id("permission_decision"),
      action: deciding.action,
      grant_scope: "once",
      risk_level: risk,
      reason: clip(reason),
      layer: deciding.layer,
      findings,
      paths,
    };
  }
}

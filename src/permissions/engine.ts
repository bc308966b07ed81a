import type { EventOrigin } from "../contracts/events/registry.js";
import { make_event } from "../contracts/events/registry.js";
import {
  LAYER_ORDER,
  RISK_RANK,
  STRICTNESS,
  type PermissionAction,
  type PermissionGrantScope,
  type PermissionLayer,
  type PermissionMode,
  type PermissionSubject,
  type PromptCommand,
  type PromptPath,
  type ProposedChange,
  type RiskLevel,
} from "../contracts/events/permission.js";
import { new_id, type AgentId, type PermissionDecisionId, type PermissionPromptId, type TaskId, type ToolRunId } from "../contracts/ids.js";
import type { CommandAnalysis } from "./command-risk/index.js";
import type { AnalyzedCommand } from "./command-risk/types.js";
import { GrantStore } from "./grants.js";
import { type CommandAnalyzer, layered_findings, type LayeredFindings, type PermissionFinding, type PermissionRequest } from "./layers.js";
import type { PathClassification } from "./paths.js";
import { DEFAULT_POLICY, rule_effect, type PermissionPolicy } from "./policy.js";
import { current_text_of, proposed_change } from "./proposed-change.js";
import { DENY_PROMPTS, type PermissionPrompt, type PromptAnswer, type PromptAnswerer } from "./prompts.js";

export type { PermissionFinding, PermissionRequest, ToolAccess } from "./layers.js";

export type PermissionDecision = {
  readonly decision_id: PermissionDecisionId;
  readonly action: PermissionAction;
  readonly grant_scope: PermissionGrantScope;
  readonly risk_level: RiskLevel;
  readonly reason: string;
  readonly layer: PermissionLayer;
  readonly mode: PermissionMode;
  readonly prompt_id?: PermissionPromptId;
  /** Every layer's verdict, in layer order (for the audit and for debugging a decision). */
  readonly findings: readonly PermissionFinding[];
  /** How each read/write path was classified. */
  readonly paths: readonly PathClassification[];
  /** What the CommandRiskAnalyzer found in the command, if there was one. */
  readonly analysis?: CommandAnalysis;
  /** The subjects an answer to this decision's prompt covers (empty unless the action is `ask_user`). */
  readonly ask_subjects: readonly PermissionSubject[];
  /**
   * Real paths to back up before the call runs, because it writes outside the project or into a credential
   * file (seeds 000 §9.3, 003 §12 rule 7); empty when nothing needs one.
   */
  readonly backup_paths: readonly string[];
};

/** What `confirm` asks: the question, why, how much is at stake, and what it is about (shown as the prompt's tool). */
export type Confirmation = {
  readonly subject: string;
  readonly question: string;
  readonly reason: string;
  readonly risk_level: RiskLevel;
  readonly task_id?: TaskId;
};

/** A question that is not a tool call's (a confirmation, an approval) as a prompt, offered with these scopes. */
function question_prompt(
  question: Pick<Confirmation, "subject" | "question" | "reason" | "risk_level">,
  offered_scopes: readonly PermissionGrantScope[],
  subjects: readonly PermissionSubject[] = [],
  commands: readonly string[] = [],
): PermissionPrompt {
  return {
    prompt_id: new_id("permission_prompt"),
    tool_name: question.subject,
    question: clip(question.question),
    reason: clip(question.reason),
    risk_level: question.risk_level,
    offered_scopes: [...offered_scopes],
    subjects: [...subjects],
    categories: [],
    commands: [...commands],
  };
}

/** What a recorded prompt is linked to: the tool run, task and agent that asked, where there are some. */
type PromptLinks = { readonly tool_run_id?: ToolRunId; readonly task_id?: TaskId; readonly agent_id?: AgentId };

/** What `approve` asks about: the subjects an answer covers, the question, and what would run. */
export type Approval = {
  readonly subject: string;
  readonly question: string;
  readonly reason: string;
  readonly risk_level: RiskLevel;
  readonly subjects: readonly PermissionSubject[];
  readonly commands: readonly string[];
};

export type ApprovalVerdict = { readonly allowed: boolean; readonly reason: string };

/** Where permission events go: a `Session` is one. */
export type PermissionRecorder = {
  readonly ingestor: { ingest(event: unknown): unknown };
  readonly origin: EventOrigin;
};

export type PermissionEngineOptions = {
  policy?: PermissionPolicy;
  grants?: GrantStore;
  /** Who answers `ask_user`; default: headless, every prompt denied. */
  answerer?: PromptAnswerer;
  /** The home folder for `~` and home credentials (default `os.homedir()`). */
  home?: string;
};

/** Layers whose `ask_user` a rule, a grant or `bypass` mode may settle in advance. */
const PRE_APPROVABLE = new Set<PermissionLayer>(["profile", "path_command_risk"]);

/** Whether the call may run (after a prompt has been answered). */
export function is_allowed(action: PermissionAction): boolean {
  return action === "allow" || action === "announce_then_run";
}

let analyzer: Promise<CommandAnalyzer> | undefined;

/**
 * The shell analyzer and its grammars (~0.8 MB, ~90 ms to load) come in at the first command to judge, not
 * at start: the TUI's Main Agent is ready without them, and a session that only reads and edits never pays.
 */
function command_analyzer(): Promise<CommandAnalyzer> {
  analyzer ??= import("./command-risk/index.js").then((module) => module.analyze_command);
  return analyzer;
}

function clip(text: string, max = 4000): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function describe_subject(subject: PermissionSubject): string {
  if (subject.kind === "path") return `${subject.op} ${subject.path}`;
  if (subject.kind === "network") return `network for ${subject.tool_name}`;
  if (subject.kind === "capability_tool") return `${subject.tool_name} of ${subject.capability_id}`;
  if (subject.kind === "mcp_server") return `starting the MCP server ${subject.server}`;
  return subject.command;
}

function command_part(run: AnalyzedCommand): PromptCommand {
  return { command: run.argv.join(" ") || "(empty)", categories: [...run.categories], ...(run.executes_via === undefined ? {} : { via: run.executes_via }) };
}

/** Every path the request names and the command reads or writes, where each really is. */
function prompt_paths(request: PermissionRequest, decision: PermissionDecision): PromptPath[] {
  const named = (inputs: readonly string[], op: PromptPath["op"]) =>
    inputs.flatMap((input) => {
      const c = decision.paths.find((path) => path.input === input);
      return c === undefined ? [] : [{ op, path: c.relative !== undefined && c.relative !== "" ? c.relative : c.real, category: c.category }];
    });
  const { analysis } = decision;
  return [
    ...named(request.reads, "read"),
    ...named(request.writes, "write"),
    ...named(analysis?.reads ?? [], "read"),
    ...named(analysis?.writes ?? [], "write"),
  ];
}

/** What kinds of thing the call does: the command categories the analyzer found, then read/write/network. */
function prompt_categories(request: PermissionRequest, analysis: CommandAnalysis | undefined, paths: readonly PromptPath[]): string[] {
  const access = [...paths.map((path) => path.op), ...(request.declared.network ? ["network"] : [])];
  return [...new Set([...(analysis?.commands.flatMap((run) => run.categories) ?? []), ...access])];
}

/** The change a prompt shows; a preview that cannot be made leaves the prompt without one rather than failing it. */
function change_of(request: PermissionRequest, decision: PermissionDecision): ProposedChange | undefined {
  try {
    const diff = request.change?.(current_text_of(decision.paths));
    return diff === undefined ? undefined : proposed_change(diff);
  } catch {
    return undefined;
  }
}

/**
 * PermissionEngine (seeds 000 §9.2, DESIGN §6). `classify` runs layers 1–5 in their fixed order; each may
 * only make the verdict stricter, so a broad allow never overrides task scope, and credential/system rules
 * override everything before them. Then the permissions files' rules and the user's grants may settle an
 * `ask_user` of layers 2 and 4 in advance — never a block, a deny or a credential/system finding — and the
 * mode has the last word (`bypass` answers the rest). `evaluate` asks what is left (layer 6).
 */
export class PermissionEngine {
  readonly policy: PermissionPolicy;
  readonly grants: GrantStore;
  readonly #answerer: PromptAnswerer;
  readonly #home: string | undefined;

  constructor(options: PermissionEngineOptions = {}) {
    this.policy = options.policy ?? DEFAULT_POLICY;
    this.grants = options.grants ?? new GrantStore();
    this.#answerer = options.answerer ?? DENY_PROMPTS;
    this.#home = options.home;
  }

  get mode(): PermissionMode {
    return this.policy.mode;
  }

  /** Layers 1–5 plus rules and grants: the verdict before any prompt. Reads the file system, asks nobody. */
  async classify(request: PermissionRequest): Promise<PermissionDecision> {
    const analyze = request.command === undefined ? undefined : await command_analyzer();
    const layered = layered_findings(request, this.mode, this.#home, analyze);
    const findings = [...this.#rule_findings(layered.subjects), ...layered.findings].map((finding) => this.#settled(finding));
    return this.#decide(
      findings.sort((a, b) => LAYER_ORDER[a.layer] - LAYER_ORDER[b.layer]),
      layered,
    );
  }

  /** All six layers: `classify`, then a prompt when the verdict is still `ask_user`. */
  async evaluate(request: PermissionRequest, recorder?: PermissionRecorder, signal?: AbortSignal): Promise<PermissionDecision> {
    const decision = await this.classify(request);
    if (decision.action !== "ask_user") {
      // A one-time answer (allow or deny) is spent on the call it was given for.
      this.grants.consume(decision.findings.flatMap((finding) => finding.subjects ?? []));
      return decision;
    }
    const prompt = this.#prompt_of(request, decision);
    const { tool_run_id, task_id, agent_id } = request;
    const answer = await this.#ask(prompt, recorder, { tool_run_id, task_id, agent_id }, signal);
    if (answer.answer === "allow" && answer.grant_scope !== "once") this.grants.add("allow", answer.grant_scope, prompt.subjects);
    const reason = clip(
      `${decision.reason} — answered "${answer.answer}" (${answer.grant_scope}) by the ${answer.resolved_by === "user" ? "user" : "headless prompt policy"}`,
    );
    const finding: PermissionFinding = { layer: "user_prompt", action: answer.answer, risk_level: decision.risk_level, reason };
    return {
      ...decision,
      action: answer.answer,
      grant_scope: answer.grant_scope,
      layer: "user_prompt",
      reason,
      prompt_id: prompt.prompt_id,
      findings: [...decision.findings, finding],
    };
  }

  /**
   * A question no tool call asks, put to whoever answers prompts (the user; a headless run's policy): the
   * Architecture Designer's "may this contract change land?". Recorded as a prompt and its answer, offered once.
   */
  async confirm(question: Confirmation, recorder: PermissionRecorder, signal?: AbortSignal): Promise<PromptAnswer> {
    return this.#ask(question_prompt(question, ["once"]), recorder, { task_id: question.task_id }, signal);
  }

  /**
   * A question about something that is not a tool call but must not happen unasked: starting a project's MCP
   * server. An earlier answer (a grant for exactly these subjects) settles it, `bypass` allows and `plan` denies
   * without asking; otherwise it is asked (for the project, or this session), recorded, and kept as a grant.
   */
  async approve(question: Approval, recorder: PermissionRecorder, signal?: AbortSignal): Promise<ApprovalVerdict> {
    const grants = question.subjects.map((subject) => this.grants.find(subject));
    if (grants.some((grant) => grant?.effect === "deny")) return { allowed: false, reason: "denied by your earlier answer" };
    const given = grants.filter((grant) => grant !== undefined);
    if (given.length === grants.length && given.length > 0) {
      this.grants.consume(question.subjects);
      return { allowed: true, reason: `allowed by your earlier answer (${given.map((grant) => grant.scope).join(", ")})` };
    }
    if (this.mode === "bypass") return { allowed: true, reason: "bypass mode" };
    if (this.mode === "plan") return { allowed: false, reason: "plan mode starts nothing" };
    // Peers remember an approved server for the project; "this session" is there to try one out.
    const prompt = question_prompt(question, ["project", "session"], question.subjects, question.commands);
    const answer = await this.#ask(prompt, recorder, {}, signal);
    if (answer.answer === "deny" || answer.grant_scope !== "once") this.grants.add(answer.answer, answer.grant_scope, prompt.subjects);
    const by = answer.resolved_by === "user" ? "you" : "the headless prompt policy";
    return { allowed: answer.answer === "allow", reason: `${answer.answer === "allow" ? "allowed" : "denied"} (${answer.grant_scope}) by ${by}` };
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

  /**
   * Asks again every prompt a stopped runtime left unanswered, records the answers, and keeps each as a grant
   * for exactly its subjects — so the call, made again by the resumed task, goes ahead (or not) without a
   * second question. Session grants answered before the stop are restored too.
   */
  async resume_prompts(pending: readonly PendingPrompt[], answered: readonly AnsweredPrompt[], recorder: PermissionRecorder): Promise<number> {
    this.restore_session_grants(answered);
    for (const prompt of pending) {
      const answer = await this.#answerer.answer(prompt);
      recorder.ingestor.ingest(
        make_event(
          "permission.prompt.resolved",
          { prompt_id: prompt.prompt_id, ...answer, note: answer.note ?? "asked again after a restart" },
          recorder.origin,
        ),
      );
      this.grants.add(answer.answer, answer.grant_scope, prompt.subjects);
    }
    return pending.length;
  }

  /**
   * The session grants a stopped runtime had: its "allow for this session" answers, read back from its events. A
   * resumed session restores them before anything asks (its MCP servers start with the runtime); a repeat is harmless.
   */
  restore_session_grants(answered: readonly AnsweredPrompt[]): void {
    for (const prompt of answered) {
      if (prompt.answer === "allow" && prompt.grant_scope === "session") this.grants.add("allow", "session", prompt.subjects);
    }
  }

  /** Asks a prompt, recorded before (so a pending prompt survives a restart) and after with its answer. */
  async #ask(prompt: PermissionPrompt, recorder: PermissionRecorder | undefined, links: PromptLinks, signal?: AbortSignal): Promise<PromptAnswer> {
    const { reason: _reason, offered_scopes, ...recorded } = prompt;
    recorder?.ingestor.ingest(
      make_event("permission.prompt.requested", { ...recorded, offered_scopes: [...offered_scopes], mode: this.mode, ...links }, recorder.origin),
    );
    const answer = await this.#answerer.answer(prompt, signal);
    recorder?.ingestor.ingest(make_event("permission.prompt.resolved", { prompt_id: prompt.prompt_id, ...answer }, recorder.origin));
    return answer;
  }

  /** `deny`/`ask` rules of the permissions files, as layer-2 findings for the subjects they cover. */
  #rule_findings(subjects: readonly PermissionSubject[]): PermissionFinding[] {
    const findings: PermissionFinding[] = [];
    for (const subject of subjects) {
      const matched = rule_effect(this.policy, subject);
      if (matched === undefined || matched.effect === "allow") continue;
      const reason = `${describe_subject(subject)}: ${matched.effect} rule in ${matched.source}`;
      if (matched.effect === "deny") findings.push({ layer: "profile", action: "deny", risk_level: "medium", reason });
      else findings.push({ layer: "profile", action: "ask_user", risk_level: "medium", reason, subjects: [subject], approval: "grant" });
    }
    return findings;
  }

  /** An `ask_user` settled in advance by a grant, an allow rule or the mode; any other finding unchanged. */
  #settled(finding: PermissionFinding): PermissionFinding {
    if (finding.action !== "ask_user") return finding;
    const subjects = finding.subjects ?? [];
    const grants = subjects.map((subject) => this.grants.find(subject));
    const denied = grants.find((grant) => grant?.effect === "deny");
    if (denied !== undefined)
      return {
        layer: "user_prompt",
        action: "deny",
        risk_level: finding.risk_level,
        reason: `${finding.reason} — denied by your earlier answer (${denied.scope})`,
      };
    const given = grants.filter((grant) => grant !== undefined);
    const covered = subjects.length > 0 && given.length === grants.length && given.every((grant) => finding.approval !== "once" || grant.scope === "once");
    if (covered)
      return {
        ...finding,
        action: "allow",
        settled: true,
        reason: `${finding.reason} — allowed by your earlier answer (${given.map((grant) => grant.scope).join(", ")})`,
      };
    if (!PRE_APPROVABLE.has(finding.layer)) {
      return this.mode === "bypass"
        ? { layer: finding.layer, action: "refuse", risk_level: "critical", reason: `${finding.reason} — bypass mode never allows credential or system access` }
        : finding;
    }
    if (finding.approval === "rule" && subjects.length > 0 && subjects.every((subject) => rule_effect(this.policy, subject)?.effect === "allow")) {
      return { ...finding, action: "allow", settled: true, reason: `${finding.reason} — allowed by a rule` };
    }
    if (this.mode === "bypass") return { ...finding, action: "allow", settled: true, reason: `${finding.reason} — bypass mode` };
    return finding;
  }

  #prompt_of(request: PermissionRequest, decision: PermissionDecision): PermissionPrompt {
    const asks = decision.findings.filter((finding) => finding.action === "ask_user");
    const only_once = asks.some((finding) => finding.approval !== "rule" && finding.approval !== "grant");
    const analysis = decision.analysis;
    const paths = prompt_paths(request, decision);
    const change = change_of(request, decision);
    return {
      prompt_id: new_id("permission_prompt"),
      tool_name: request.tool_name,
      question: clip(`Allow ${request.tool_name}? ${decision.reason}`),
      reason: decision.reason,
      risk_level: decision.risk_level,
      offered_scopes: only_once ? ["once"] : ["once", "session", "project", "global"],
      subjects: [...decision.ask_subjects],
      categories: prompt_categories(request, analysis, paths),
      commands: analysis?.commands.map((run) => run.argv.join(" ")) ?? [],
      command_parts: analysis?.commands.map(command_part) ?? [],
      paths,
      ...(change === undefined ? {} : { change }),
    };
  }

  #decide(findings: PermissionFinding[], { paths, analysis, backup_paths }: Omit<LayeredFindings, "findings">): PermissionDecision {
    const [first] = findings;
    // Layer 1 always has its say, so there is a finding.
    if (first === undefined) throw new Error("the permission layers gave no finding");
    let deciding = first;
    let risk: RiskLevel = "none";
    for (const finding of findings) {
      const stricter = STRICTNESS[finding.action] > STRICTNESS[deciding.action];
      // An allow is explained best by the last layer that looked; anything stricter by the first that said so.
      if (stricter || (finding.action === "allow" && deciding.action === "allow")) deciding = finding;
      if (RISK_RANK[finding.risk_level] > RISK_RANK[risk]) risk = finding.risk_level;
    }
    const same = findings.filter((finding) => finding.action === deciding.action && finding.layer === deciding.layer);
    // What made an allow possible, when something had to: the answer, rule or mode that settled a question.
    const settled = findings.filter((finding) => finding.settled === true && finding.action === deciding.action);
    const because = deciding.action === "allow" ? (settled.length > 0 ? settled : [deciding]) : same;
    const reason = [...new Set(because.map((finding) => finding.reason))].join("; ");
    const asks = deciding.action === "ask_user" ? findings.filter((finding) => finding.action === "ask_user") : [];
    const ask_subjects: PermissionSubject[] = [];
    for (const subject of asks.flatMap((finding) => finding.subjects ?? [])) {
      if (!ask_subjects.some((known) => JSON.stringify(known) === JSON.stringify(subject))) ask_subjects.push(subject);
    }
    return {
      decision_id: new_id("permission_decision"),
      action: deciding.action,
      grant_scope: "once",
      risk_level: risk,
      reason: clip(reason),
      layer: deciding.layer,
      mode: this.mode,
      findings,
      paths,
      ask_subjects,
      backup_paths,
      ...(analysis === undefined ? {} : { analysis }),
    };
  }
}

/** A `permission.prompt.requested` with no answer yet, as read back from a session's events. */
export type PendingPrompt = PermissionPrompt;
/** A prompt and the answer it got, as read back from a session's events. */
export type AnsweredPrompt = { readonly subjects: readonly PermissionSubject[]; readonly answer: "allow" | "deny"; readonly grant_scope: PermissionGrantScope };

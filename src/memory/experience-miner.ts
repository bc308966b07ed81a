import { createActor, toPromise } from "xstate";
import { worker_run_logic } from "../actors/worker-run.js";
import type { WorkerEntry, WorkerLogEntry } from "../actors/worker-bridge/index.js";
import { write_log } from "../actors/worker-bridge/services.js";
import type { SessionPrompts } from "../context/session-prompts.js";
import { make_air_error, to_air_error } from "../contracts/errors.js";
import { AgentId, new_id } from "../contracts/ids.js";
import type { AgentBrief } from "../contracts/ipc.js";
import { TaskSpec } from "../contracts/task.js";
import { MODEL_COMPLETE_TOOL, type ToolOutcome } from "../contracts/tool.js";
import type { MemoryCandidateDraft } from "../contracts/worker-result.js";
import type { Session } from "../project/session-manager.js";
import type { ToolRegistry } from "../tools/registry.js";
import * as v from "valibot";
import { record_candidates } from "./candidates.js";
import { cited_ids, evidence_brief, evidence_since, has_evidence, with_debug_evidence, type EvidenceBatch } from "./mining-evidence.js";

/** `experience_miner` in `~/.air/config.yaml`: whether the miner runs, and after how many tool calls. */
export type MinerSettings = { readonly enabled: boolean; readonly every_n_tool_calls: number };
/**
 * Off until the config switches it on: a miner adds an agent and model calls to every session that verified
 * work, which the sessions of the shipped fixtures (and their tests) do not script.
 */
export const DEFAULT_MINER_SETTINGS: MinerSettings = { enabled: false, every_n_tool_calls: 10 };

/** What started a mining (seeds 003 §13): a debug record, the tool calls since the last one, the session's end. */
export type MiningTrigger = "debug_record" | "tool_calls" | "session_end";

/** The reads the miner is offered and served: it writes nothing, like a reviewer (the parent decides). */
const READ_TOOLS: ReadonlySet<string> = new Set(["fs.read", "fs.list", "fs.glob", "fs.grep"]);

const MINER_TURNS = 6;

export type ExperienceMinerOptions = {
  readonly session: Session;
  /** The session's registry: the miner's reads and model calls go through it, recorded as its tool runs. */
  readonly registry: ToolRegistry;
  readonly prompts: SessionPrompts;
  readonly model_id: string;
  readonly settings: MinerSettings;
  readonly entry?: WorkerEntry;
  readonly on_log?: (entry: WorkerLogEntry) => void;
};

/** The last mining of this session: the seq of its agent's start, so a resumed session does not mine the same evidence again. */
function last_mining_seq(session: Session): number {
  const starts = session.store.query({ types: ["agent.started"], order: "desc" });
  return starts.find(({ event }) => event.type === "agent.started" && event.payload.agent_type === "experience_miner")?.seq ?? 0;
}

/** The miner's TaskSpec: it runs outside the task graph, so it has no row, no dependencies and no retries. */
function miner_task(trigger: MiningTrigger): TaskSpec {
  return v.parse(TaskSpec, {
    id: new_id("task"),
    type: "mine_experience",
    title: "Mine the session's verified evidence",
    description: `Propose project rules, skills, facts and pitfalls from the verified evidence below (mined on ${trigger.replaceAll("_", " ")}).`,
    acceptance_criteria: [],
    scope: {},
    dependencies: { hard: [], soft: [] },
    verification: { required: false, fallback_allowed: true },
    constraints: { max_turns: MINER_TURNS, soft_timeout_ms: 120_000, hard_timeout_ms: 300_000, retry_budget: 0, model_policy: "agent_select" },
    context_refs: {},
    output_contract: "ExperienceMinerResult",
  });
}

function refused(tool_name: string): ToolOutcome {
  return {
    ok: false,
    error: make_air_error({
      kind: "permission_error",
      message: `the experience miner reads only; ${tool_name} is not served to it`,
      retryability: "not_retryable",
      user_action: "The miner proposes; promotion writes, after approval.",
    }),
  };
}

/**
 * The ExperienceMiner, started by the Scheduler only: after a step that brought a debug record or N tool calls,
 * and at the session's end — each time only when there is verified evidence it has not mined. It runs in the
 * background, outside the task graph: its failure is logged (and recorded as its agent's end) and changes no
 * run's outcome.
 */
export class ExperienceMiner {
  readonly #options: ExperienceMinerOptions;
  readonly #worker_run: ReturnType<typeof worker_run_logic>;
  /** The agents of this miner: their own tool calls are not what triggers a mining. */
  readonly #agents = new Set<string>();
  #mined_until: number;
  #running: Promise<void> | undefined;

  constructor(options: ExperienceMinerOptions) {
    this.#options = options;
    this.#mined_until = last_mining_seq(options.session);
    const { session, registry } = options;
    this.#worker_run = worker_run_logic({
      session,
      call_tool: async (call, caller, on_stream) =>
        call.tool_name === MODEL_COMPLETE_TOOL || READ_TOOLS.has(call.tool_name)
          ? registry.call(call, { session, agent_id: caller.agent_id, signal: caller.signal, access: "read_only" }, on_stream)
          : refused(call.tool_name),
      ...(options.entry === undefined ? {} : { entry: options.entry }),
      ...(options.on_log === undefined ? {} : { on_log: options.on_log }),
    });
  }

  /** After each Scheduler step (a finished run collected, merged or repaired); never waits for the mining. */
  after_step(): void {
    if (!this.#options.settings.enabled || this.#running !== undefined) return;
    let batch: EvidenceBatch;
    try {
      batch = this.#batch();
    } catch (error) {
      // Reading the evidence is the miner's business: a failure here must not fail the Scheduler's step.
      this.#log(v.parse(AgentId, new_id("agent")), `the experience miner could not read the session's evidence: ${to_air_error(error).message}`);
      return;
    }
    if (!has_evidence(batch)) return;
    if (batch.debug_records.length > 0) this.#start(batch, "debug_record");
    else if (batch.tool_calls >= this.#options.settings.every_n_tool_calls) this.#start(batch, "tool_calls");
  }

  /** The session ends: a mining under way finishes, then one more mines what is left, if anything. */
  async session_end(): Promise<void> {
    await this.idle();
    if (!this.#options.settings.enabled) return;
    const batch = this.#batch();
    if (!has_evidence(batch)) return;
    this.#start(batch, "session_end");
    await this.idle();
  }

  /** Resolves once no mining runs (it never rejects: a mining's failure is logged). */
  idle(): Promise<void> {
    return this.#running ?? Promise.resolve();
  }

  #batch(): EvidenceBatch {
    return evidence_since(this.#options.session, this.#mined_until, this.#agents);
  }

  #start(batch: EvidenceBatch, trigger: MiningTrigger): void {
    // Moved before the run: evidence whose mining failed is not mined again on every later step.
    this.#mined_until = batch.until_seq;
    const agent_id = v.parse(AgentId, new_id("agent"));
    this.#agents.add(agent_id);
    const run: Promise<void> = this.#mine(batch, trigger, agent_id)
      .catch((error: unknown) => this.#log(agent_id, `the experience miner failed (${trigger}): ${to_air_error(error).message}`))
      .finally(() => {
        if (this.#running === run) this.#running = undefined;
      });
    this.#running = run;
  }

  async #mine(batch: EvidenceBatch, trigger: MiningTrigger, agent_id: AgentId): Promise<void> {
    const { session, prompts } = this.#options;
    const groups = with_debug_evidence(session, batch);
    const task = miner_task(trigger);
    const brief: AgentBrief = {
      project_root: session.project.layout.root,
      model_id: this.#options.model_id,
      max_turns: MINER_TURNS,
      tools: this.#options.registry.schemas().filter((schema) => READ_TOOLS.has(schema.name)),
      layers: prompts.agent_layers(task, "experience_miner"),
      instructions: evidence_brief(groups),
      context_window: prompts.context_window,
      token_budget: prompts.token_budget,
    };
    const actor = createActor(this.#worker_run, { input: { agent_id, task, brief, agent_type: "experience_miner" } });
    actor.start();
    const outcome = await toPromise(actor);
    if (outcome.status !== "completed" || outcome.result.agent_type !== "experience_miner" || outcome.result.status !== "completed") {
      const why = outcome.error?.message ?? outcome.result?.summary ?? outcome.status;
      this.#log(agent_id, `the experience miner's run ended ${outcome.status} (${trigger}): ${why}`);
      return;
    }
    const drafts: readonly MemoryCandidateDraft[] = outcome.result.result.candidates;
    const recorded = await record_candidates(session, drafts, { cited: cited_ids({ ...batch, groups }), groups });
    for (const draft of recorded.dropped) this.#log(agent_id, `dropped the candidate "${draft.title}": it cites no evidence it was handed`);
    for (const { memory, error } of recorded.unpromoted) this.#log(agent_id, `the policy could not promote ${memory.id}: ${error.message}`);
  }

  #log(agent_id: AgentId, message: string): void {
    write_log(this.#options.on_log, { agent_id, source: "bridge", level: "warn", message });
  }
}

import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import type { AirError } from "../../contracts/errors.js";
import type { AgentBrief } from "../../contracts/ipc.js";
import type { ContentBlock } from "../../contracts/provider.js";
import type { TaskSpec } from "../../contracts/task.js";
import type { ToolSchema } from "../../contracts/tool.js";
import { ExperienceMinerResult, type MemoryCandidateDraft, type WorkerResult, type WorkerStatus } from "../../contracts/worker-result.js";
import { answer_tool_use, tool_uses_of, type ToolUse } from "../../context/model-turn.js";
import type { WorkerRuntime } from "../runtime.js";
import type { WorkerRole } from "./role.js";
import { guarded, role_context } from "./role-context.js";

/** The miner's one structured answer, served in the worker: the parent decides what becomes of the candidates. */
export const PROPOSE_TOOL = "memory.propose";

const PROPOSE_SCHEMA: ToolSchema = (() => {
  const { $schema: _dialect, ...input_schema } = toJsonSchema(ExperienceMinerResult, { errorMode: "ignore" }) as Record<string, unknown>;
  return {
    name: PROPOSE_TOOL,
    description:
      "Propose what this project should remember, once, at the end: rules (.air/shared/rules), skills (a SKILL.md), facts and pitfalls. " +
      "Each candidate cites the ids of the verified evidence it rests on; propose an empty list when there is nothing worth keeping.",
    input_schema,
  };
})();

type Ending = "proposed" | "end_turn" | "max_turns" | "cancelled" | "error";

function tool_error(use: ToolUse, content: string): ContentBlock {
  return { type: "tool_result", tool_use_id: use.id, content, is_error: true };
}

/**
 * The ExperienceMiner's loop (seeds 003 §13): it reads the verified evidence its brief hands it (and, with the
 * read-only tools it is offered, the project), then answers through `memory.propose`. Input that does not
 * parse is answered as a tool error, so the model can correct it; the run ends at the first valid proposal.
 */
class ExperienceMinerRun {
  #candidates: MemoryCandidateDraft[] = [];
  #turns = 0;
  #failure: AirError | undefined;

  constructor(
    private readonly task: TaskSpec,
    private readonly brief: AgentBrief,
    private readonly runtime: WorkerRuntime,
  ) {}

  async run(): Promise<WorkerResult> {
    const ending = await guarded(
      this.runtime,
      () => this.#loop(),
      (failure) => {
        this.#failure = failure;
      },
    );
    return this.#result(ending);
  }

  async #loop(): Promise<Ending> {
    const context = role_context(this.task, this.brief, this.runtime, "summary", [...this.brief.tools, PROPOSE_SCHEMA]);
    context.add_user([`# Task: ${this.task.title}`, "", this.brief.instructions ?? "No evidence was handed over."].join("\n"));
    const offered = new Set(this.brief.tools.map((tool) => tool.name));
    for (let turn = 1; turn <= this.brief.max_turns; turn += 1) {
      this.#turns = turn;
      const { request } = await context.next_request(turn);
      const response = await this.runtime.complete(request);
      context.add_assistant(response);
      const uses = tool_uses_of(response.content);
      if (uses.length === 0) {
        if (response.stop_reason === "pause_turn") continue;
        return "end_turn";
      }
      const results: ContentBlock[] = [];
      let proposed = false;
      for (const use of uses) {
        if (use.name === PROPOSE_TOOL) {
          const answer = this.#propose(use, proposed);
          proposed ||= answer.accepted;
          results.push(answer.result);
        } else {
          results.push(
            (
              await answer_tool_use(
                use,
                (name) => offered.has(name),
                (call) => this.runtime.call_tool(call),
              )
            ).result,
          );
        }
      }
      context.add_user(results);
      if (proposed) return "proposed";
    }
    return "max_turns";
  }

  #propose(use: ToolUse, already: boolean): { accepted: boolean; result: ContentBlock } {
    if (already) return { accepted: false, result: tool_error(use, "error: candidates were already proposed in this turn") };
    const parsed = v.safeParse(ExperienceMinerResult, use.input);
    if (!parsed.success) return { accepted: false, result: tool_error(use, `error: the proposal does not match the schema: ${v.summarize(parsed.issues)}`) };
    this.#candidates = parsed.output.candidates;
    return { accepted: true, result: { type: "tool_result", tool_use_id: use.id, content: `recorded ${this.#candidates.length} candidate(s)` } };
  }

  #result(ending: Ending): WorkerResult {
    const status: WorkerStatus = ending === "cancelled" ? "cancelled" : ending === "error" ? "failed" : ending === "max_turns" ? "blocked" : "completed";
    const how: Record<Ending, string> = {
      proposed: `Proposed ${this.#candidates.length} memory candidate(s)`,
      end_turn: "The model ended without a proposal; nothing is proposed",
      max_turns: `The turn budget of ${this.brief.max_turns} ran out before a proposal`,
      cancelled: `The run was cancelled (${this.runtime.cancel_reason ?? "by the parent"})`,
      error: `The run stopped on an error: ${this.#failure?.message ?? "unknown"}`,
    };
    return {
      task_id: this.task.id,
      agent_id: this.runtime.address.agent_id,
      agent_type: "experience_miner",
      status,
      summary: `${how[ending]} after ${this.#turns} turn(s).`,
      changed_files: [],
      artifacts: [],
      verification: [],
      risks: [],
      follow_up_tasks: [],
      evidence_refs: [],
      result: { candidates: this.#candidates },
    };
  }
}

export const experience_miner_role: WorkerRole = {
  agent_type: "experience_miner",
  run: (task, brief, runtime) => new ExperienceMinerRun(task, brief, runtime).run(),
};

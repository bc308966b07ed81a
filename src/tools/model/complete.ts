import { eq } from "drizzle-orm";
import { MESSAGES_ARTIFACT_THRESHOLD_BYTES } from "../../context/assembler.js";
import type { RunBudget } from "../../contracts/budget.js";
import { ModelRequest, ModelResponse, type ModelDelta } from "../../contracts/provider.js";
import { MODEL_COMPLETE_TOOL } from "../../contracts/tool.js";
import { agents } from "../../db/schema.js";
import { guard_model_call } from "../../orchestration/budget/enforce.js";
import type { Session } from "../../project/session-manager.js";
import { define_tool } from "../define.js";

/** The slice of a provider session this tool needs (see `ProviderSession`). */
export type ModelCompleter = {
  complete(request: ModelRequest, options: { requester: string; on_delta?: (delta: ModelDelta) => void; signal?: AbortSignal }): Promise<ModelResponse>;
};

/** Who asks, as the scripted server and the usage records know them: the agent's type, or the Main Agent. */
function requester_of(session: Session, agent_id: string | undefined): string {
  if (agent_id === undefined) return "main";
  const row = session.connection.db.select({ agent_type: agents.agent_type }).from(agents).where(eq(agents.id, agent_id)).get();
  return row?.agent_type ?? "main";
}

/**
 * `model.complete`: the only way a worker reaches the model (DESIGN §5). The parent holds the credentials,
 * records the call as a tool run (so every token is accounted in one place) and streams deltas back. It is
 * also where budgets hold: a call the run's or the calling worker's budget no longer allows is refused
 * before it is sent.
 */
export function model_complete_tool(model: ModelCompleter, options: { run_budget?: RunBudget } = {}) {
  return define_tool({
    name: MODEL_COMPLETE_TOOL,
    version: 1,
    description: "Internal: one completion of the session's model. Workers call it; it is never offered to a model.",
    category: "internal",
    input: ModelRequest,
    output: ModelResponse,
    permissions: {},
    async execute(input, execution) {
      guard_model_call(execution, options.run_budget ?? {});
      // A large context is kept whole as a messages artifact of this run (seeds 000 §10.1), beside the usage
      // record; a request the Main Agent's assembler kept already is that artifact, not a second copy.
      const json = JSON.stringify(input);
      if (Buffer.byteLength(json) > MESSAGES_ARTIFACT_THRESHOLD_BYTES) {
        execution.artifact({ type: "messages", content: json, mime_type: "application/json", extension: ".json", original_name: "model-request" });
      }
      return model.complete(input, {
        requester: execution.requester ?? requester_of(execution.session, execution.agent_id),
        on_delta: (delta) => execution.stream(delta),
        signal: execution.signal,
      });
    },
  });
}

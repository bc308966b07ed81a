import type { AssembledContext } from "../contracts/context.js";
import type { PromptLayer } from "../contracts/prompt-layer.js";
import type { PermissionMode } from "../contracts/events/permission.js";
import type { ModelRequest } from "../contracts/provider.js";
import type { TaskSpec } from "../contracts/task.js";
import type { ToolSchema } from "../contracts/tool.js";
import type { AgentType } from "../contracts/worker-result.js";
import type { Session } from "../project/session-manager.js";
import { ContextAssembler } from "./assembler.js";
import { DEFAULT_CONTEXT_WINDOW, token_budget_of } from "./budget.js";
import type { ConversationEntry } from "./conversation.js";
import { safety_layer } from "./layers.js";
import { PromptLayerLoader } from "./prompt-loader.js";
import { architecture_layers, evidence_layer } from "./task-layers.js";

export type SessionPromptsOptions = {
  readonly session: Pick<Session, "project" | "connection" | "artifacts">;
  /** The session's permission mode (L2): fixed for the session, like its model. */
  readonly mode: PermissionMode;
  /** The session model's context window (default `DEFAULT_CONTEXT_WINDOW`). */
  readonly context_window?: number;
  readonly loader?: PromptLayerLoader;
};

/**
 * The parent side of context assembly for one session: the stable layers of each agent it starts (so a
 * worker never reads project files for its prompt) and the Main Agent's requests, assembled stable-first with
 * large ones kept as `messages` artifacts.
 */
export class SessionPrompts {
  readonly context_window: number;
  readonly token_budget: number;
  readonly #options: SessionPromptsOptions;
  readonly #loader: PromptLayerLoader;
  readonly #main: ContextAssembler;

  constructor(options: SessionPromptsOptions) {
    this.#options = options;
    this.#loader = options.loader ?? new PromptLayerLoader();
    this.context_window = options.context_window ?? DEFAULT_CONTEXT_WINDOW;
    this.token_budget = token_budget_of(this.context_window);
    const artifacts = options.session.artifacts;
    this.#main = new ContextAssembler({
      write_messages_artifact: (json) =>
        artifacts.create({ type: "messages", content: json, mime_type: "application/json", extension: ".json", original_name: "main-agent-request" }).id,
    });
  }

  get #root(): string {
    return this.#options.session.project.layout.root;
  }

  /** L0–L6 of a worker's agent: invariant, role, permission mode, project rules, plan, task, evidence. */
  agent_layers(task: TaskSpec, role: AgentType): PromptLayer[] {
    const evidence = evidence_layer(this.#options.session.connection, task);
    return [
      ...this.#common_layers(role),
      ...architecture_layers(this.#root, task),
      ...this.#loader.load_task_context(task, this.#root),
      ...(evidence === undefined ? [] : [evidence]),
    ];
  }

  /** L0, L1 (main), L2, L3: the Main Agent's stable prefix. */
  main_layers(): PromptLayer[] {
    return this.#common_layers("main");
  }

  /** A Main Agent request: its stable layers, then the conversation whose last entry is the user's message. */
  assemble_main(purpose: ModelRequest["purpose"], conversation: readonly ConversationEntry[], tools: readonly ToolSchema[]): AssembledContext {
    return this.#main.assemble({ purpose, layers: this.main_layers(), conversation, tools, token_budget: this.token_budget });
  }

  #common_layers(role: AgentType | "main"): PromptLayer[] {
    return [
      this.#loader.load_runtime_invariant(),
      this.#loader.load_role(role),
      safety_layer(this.#options.mode),
      ...this.#loader.load_project_rules(this.#root),
    ];
  }
}

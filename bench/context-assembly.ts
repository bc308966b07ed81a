import { ContextAssembler, type AssembleInput } from "../src/context/assembler.js";
import { token_budget_of, DEFAULT_CONTEXT_WINDOW } from "../src/context/budget.js";
import { Conversation } from "../src/context/conversation.js";
import { make_layer, safety_layer } from "../src/context/layers.js";
import { PromptLayerLoader } from "../src/context/prompt-loader.js";
import { create_tool_registry } from "../src/tools/builtin.js";
import { PermissionEngine } from "../src/permissions/engine.js";
import { collect_garbage, median, ratios, time_ms } from "./stats.js";
import { VerificationError } from "./verify.js";

/**
 * Context assembly for a long session — 5,000 messages of which 500 tool runs (a tool_use and its result) —
 * beside a plain `JSON.stringify` of the same messages in the same run. `cold`: a new assembler (every
 * message measured and clipped for the first time); `warm`: the executor's case, one turn appended to a
 * conversation the assembler has seen.
 */
export type AssemblyBench = {
  readonly messages: number;
  readonly tool_runs: number;
  readonly cold_ms: number;
  readonly warm_ms: number;
  readonly stringify_ms: number;
  /** Median of paired cold / stringify ratios. */
  readonly ratio: number;
  readonly omitted: number;
};

const MESSAGES = 5_000;
const TOOL_RUNS = 500;

function prose(index: number, length: number): string {
  const words = `step ${index}: looked at the parser, the lexer and their tests; the failing case is the nested bracket `;
  return words.repeat(Math.ceil(length / words.length)).slice(0, length);
}

/** The task prompt, then assistant/user turns; every fifth assistant turn calls a tool and the next user turn answers it. */
function long_conversation(): Conversation {
  const conversation = new Conversation();
  conversation.append("msg_0", { role: "user", content: "# Task: fix the parser\n\nCarry out the task." });
  let tool_runs = 0;
  for (let index = 1; conversation.length < MESSAGES; index += 1) {
    if (index % 2 === 1 && ((index - 1) / 2) % 5 === 0 && tool_runs < TOOL_RUNS) {
      const id = `toolu_${index}`;
      conversation.append(`msg_${index}`, {
        role: "assistant",
        content: [
          { type: "text", text: prose(index, 120) },
          { type: "tool_use", id, name: "fs.read", input: { path: `src/file${index}.ts` } },
        ],
      });
      conversation.append(`msg_${index}r`, { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: prose(index, 2_000) }] });
      index += 1;
      tool_runs += 1;
    } else {
      conversation.append(`msg_${index}`, { role: index % 2 === 1 ? "assistant" : "user", content: prose(index, 300) });
    }
  }
  return conversation;
}

function assemble_input(conversation: Conversation): AssembleInput {
  const loader = new PromptLayerLoader();
  const registry = create_tool_registry({ permissions: new PermissionEngine({ policy: { mode: "accept-edits", rules: [] } }) });
  return {
    purpose: "task_execution",
    layers: [
      loader.load_runtime_invariant(),
      loader.load_role("executor"),
      safety_layer("accept-edits"),
      make_layer("project_rules", "AGENTS.md", `# Project rules: AGENTS.md\n\n${prose(0, 4_000)}`),
      make_layer("task_spec", "task/t", `# Task specification: fix the parser\n\n${prose(1, 1_000)}`),
    ],
    conversation: conversation.entries,
    tools: registry.schemas(),
    token_budget: token_budget_of(DEFAULT_CONTEXT_WINDOW),
  };
}

export function bench_context_assembly(rounds: number): AssemblyBench {
  const conversation = long_conversation();
  const input = assemble_input(conversation);
  const messages = conversation.entries.map((entry) => entry.message);
  const tool_runs = messages.filter((message) => message.role === "assistant" && typeof message.content !== "string").length;
  if (messages.length !== MESSAGES || tool_runs !== TOOL_RUNS) throw new VerificationError(`built ${messages.length} messages with ${tool_runs} tool runs`);
  const cold: number[] = [];
  const warm: number[] = [];
  const plain: number[] = [];
  let omitted = 0;
  for (let round = 0; round <= rounds; round += 1) {
    collect_garbage();
    let bytes = 0;
    plain.push(time_ms(() => (bytes = JSON.stringify(messages).length)));
    collect_garbage();
    const assembler = new ContextAssembler();
    cold.push(time_ms(() => (omitted = assembler.assemble(input).omissions.length)));
    const next = new Conversation();
    for (const entry of conversation.entries) next.append(entry.id, entry.message);
    next.append(`msg_next_${round}`, { role: "assistant", content: prose(round, 300) });
    warm.push(time_ms(() => assembler.assemble({ ...input, conversation: next.entries })));
    if (bytes === 0 || omitted === 0) throw new VerificationError("the session did not overflow the budget: nothing was fitted");
  }
  // The first round warms the JIT; it is not counted.
  const cold_ratios = ratios(cold.slice(1), plain.slice(1));
  return {
    messages: MESSAGES,
    tool_runs: TOOL_RUNS,
    cold_ms: median(cold.slice(1)),
    warm_ms: median(warm.slice(1)),
    stringify_ms: median(plain.slice(1)),
    ratio: median(cold_ratios),
    omitted,
  };
}

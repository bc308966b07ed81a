import * as clack from "@clack/prompts";
import { air_failure } from "../../contracts/errors.js";
import { open_memory_desk } from "../../memory/desk.js";
import { LearnedMemoryStore, type LearnedMemory } from "../../memory/learned-memory-store.js";
import { archive, meets_threshold, promote, reject, type MemoryDesk } from "../../memory/promotion.js";
import { open_project } from "../../project/project-store.js";
import { open_session } from "../../project/session-manager.js";
import type { Io } from "../output.js";
import { is_interactive } from "../wizard.js";

/** `air memory list`: every memory of the project with its status, type, evidence and where it went. */
export function run_memory_list(io: Io, options: { json: boolean }): number {
  const project = open_project(io.cwd);
  const store = LearnedMemoryStore.open(project.layout);
  try {
    const memories = store.list();
    if (options.json) {
      io.out(`${JSON.stringify(memories, null, 2)}\n`);
      return 0;
    }
    if (memories.length === 0) {
      io.out("No memories yet: the experience miner proposes them from verified work.\n");
      return 0;
    }
    for (const memory of memories) {
      const where = memory.target_ref === undefined ? "" : ` → ${memory.target_ref}`;
      io.out(
        `${memory.id}  ${memory.status.padEnd(9)}  ${memory.memory_type.padEnd(7)}  ${memory.title} (${memory.evidence_ref_ids.length} evidence)${where}\n`,
      );
    }
    return 0;
  } finally {
    store.close();
  }
}

/** The desk of a session of its own, so that the promotion's tool runs and events are recorded; closed after `work`. */
async function with_desk<T>(io: Io, title: string, work: (desk: MemoryDesk) => Promise<T>): Promise<T> {
  const session = open_session(open_project(io.cwd), { title });
  try {
    const desk = open_memory_desk(session);
    try {
      return await work(desk);
    } finally {
      desk.store.close();
    }
  } finally {
    session.close();
  }
}

function described(memory: LearnedMemory): string {
  return `${memory.memory_type} "${memory.title}" (${memory.id}, ${memory.evidence_ref_ids.length} evidence ref(s))`;
}

function review_needs_terminal() {
  return air_failure({
    kind: "user_error",
    message: "air memory review asks on a terminal; this is not one",
    retryability: "not_retryable",
    user_action: "Run it in a terminal, or decide one candidate with --approve ID or --reject ID.",
  });
}

/** Each candidate in turn: approve (promote), reject, or skip it; Ctrl-C stops with the rest left waiting. */
async function review_interactively(io: Io, desk: MemoryDesk): Promise<number> {
  const candidates = desk.store.lookup_by_status("candidate");
  if (candidates.length === 0) {
    io.out("No memory candidates wait for review.\n");
    return 0;
  }
  clack.intro(`air: ${candidates.length} memory candidate(s)`);
  for (const memory of candidates) {
    clack.note(memory.content, described(memory));
    const short = !meets_threshold(desk.policy, memory);
    const choice = await clack.select({
      message: short ? `Under the evidence threshold (${desk.policy.evidence_threshold}): reject or skip?` : "Promote this memory?",
      options: [...(short ? [] : [{ value: "approve", label: "approve" }]), { value: "reject", label: "reject" }, { value: "skip", label: "skip" }],
    });
    if (clack.isCancel(choice)) {
      clack.cancel("Review stopped; the remaining candidates still wait.");
      return 0;
    }
    if (choice === "approve") clack.log.success(`promoted to ${(await promote(desk, memory.id, "user")).target_ref ?? "learned-memory.db"}`);
    else if (choice === "reject") {
      reject(desk, memory.id, "rejected in review");
      clack.log.info("rejected");
    }
  }
  clack.outro("Review done.");
  return 0;
}

/** `air memory review`: on a terminal each candidate in turn; `--approve ID` / `--reject ID` decide one without asking. */
export async function run_memory_review(io: Io, options: { approve?: string; reject?: string; reason?: string }): Promise<number> {
  if (options.approve !== undefined && options.reject !== undefined) {
    throw air_failure({
      kind: "user_error",
      message: "--approve and --reject go one at a time",
      retryability: "not_retryable",
      user_action: "Decide one candidate per command.",
    });
  }
  const { approve, reject: rejected } = options;
  if (approve !== undefined) {
    return with_desk(io, "memory review", async (desk) => {
      const memory = await promote(desk, approve, "user");
      io.out(`promoted ${described(memory)} → ${memory.target_ref ?? "learned-memory.db"}\n`);
      return 0;
    });
  }
  if (rejected !== undefined) {
    return with_desk(io, "memory review", async (desk) => {
      const memory = reject(desk, rejected, options.reason ?? "rejected in review");
      io.out(`rejected ${described(memory)}\n`);
      return 0;
    });
  }
  if (!is_interactive()) throw review_needs_terminal();
  return with_desk(io, "memory review", (desk) => review_interactively(io, desk));
}

/** `air memory archive ID`: a stale or harmful memory made inactive; a promoted file is removed through the tools. */
export async function run_memory_archive(io: Io, options: { id: string | undefined; reason?: string }): Promise<number> {
  const { id } = options;
  if (id === undefined) {
    throw air_failure({
      kind: "user_error",
      message: "air memory archive needs the memory's id",
      retryability: "not_retryable",
      user_action: "Find it with `air memory list`.",
    });
  }
  return with_desk(io, "memory archive", async (desk) => {
    const memory = await archive(desk, id, options.reason ?? "archived by the user");
    io.out(`archived ${described(memory)}\n`);
    return 0;
  });
}

import { permissions_for_project } from "../permissions/session-permissions.js";
import type { Session } from "../project/session-manager.js";
import { create_tool_registry } from "../tools/builtin.js";
import { LearnedMemoryStore } from "./learned-memory-store.js";
import { read_memory_policy } from "./memory-policy.js";
import type { MemoryDesk } from "./promotion.js";

/**
 * The desk of one session: the store, the project's policy, and a registry of the built-in tools whose engine
 * runs in `accept-edits`: the approval (the user's, or the project's policy) is the consent to the write, and
 * the project's permission rules still apply to it. The caller closes the store.
 */
export function open_memory_desk(session: Session): MemoryDesk {
  const { layout } = session.project;
  const policy = read_memory_policy(layout);
  const registry = create_tool_registry({ permissions: permissions_for_project(layout, { mode: "accept-edits" }) });
  return { session, registry, store: LearnedMemoryStore.open(layout), policy };
}

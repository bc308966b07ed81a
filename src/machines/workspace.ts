import { setup } from "xstate";

/** Workspace lifecycle (seeds 000 §20.5). */
export type WorkspaceLifecycleEvent =
  | { type: "workspace.merge.started" }
  | { type: "workspace.merge.completed" }
  | { type: "workspace.merge.conflicted" }
  | { type: "workspace.abandoned" }
  | { type: "workspace.reactivated" }
  | { type: "workspace.cleaned" };

export const workspace_machine = setup({
  types: { events: {} as WorkspaceLifecycleEvent },
}).createMachine({
  id: "workspace",
  initial: "active",
  states: {
    active: {
      on: {
        // A merge in progress is metadata, not a status. The self-target (not reentering) keeps
        // the event legal for `snapshot.can()`: a target-less, action-less transition is
        // treated by XState as forbidden.
        "workspace.merge.started": { target: "active" },
        "workspace.merge.completed": { target: "merged" },
        "workspace.merge.conflicted": { target: "conflicted" },
        "workspace.abandoned": { target: "abandoned" },
      },
    },
    conflicted: {
      on: {
        // The decision on a conflict is either to give up or to try the merge again.
        "workspace.abandoned": { target: "abandoned" },
        "workspace.reactivated": { target: "active" },
      },
    },
    // Both merged and abandoned keep their files until garbage collection cleans them.
    merged: {
      on: { "workspace.cleaned": { target: "cleaned" } },
    },
    abandoned: {
      on: { "workspace.cleaned": { target: "cleaned" } },
    },
    cleaned: { type: "final" },
  },
});

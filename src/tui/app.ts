import { Box, Static, useStdout } from "ink";
import { createElement as h, useCallback, useMemo, useRef, useState, type ReactNode } from "react";
import type { TaskListing } from "../contracts/task-listing.js";
import type { ProjectionState } from "../projection/types.js";
import { is_busy, useControls } from "./controls.js";
import { EXIT_HINT } from "./exit-hint.js";
import type { AppProps } from "./props.js";
import { MAX_FPS, useProjection } from "./use-projection.js";
import { BlockerReports } from "./views/blockers.js";
import { collect_finished, type FinishedItem, type Notice } from "./views/finished.js";
import { FinishedView } from "./views/finished-view.js";
import { Hud } from "./views/hud.js";
import { LiveDrafts } from "./views/live-drafts.js";
import { dialog_lines, PermissionDialog } from "./views/permission-prompt.js";
import { progress_lines, Progress } from "./views/progress.js";
import { PromptLine } from "./views/prompt-line.js";
import { team_lines_count, team_tasks, TeamView } from "./views/team.js";

/** Lines of the live region besides the reply, progress and dialog: HUD, prompt line, hints, margins. */
const FRAME_ROWS = 8;
const BLOCKER_ROWS = 3;
/** A streaming reply's own lines besides its text: "… N lines above" and "writing…". */
const REPLY_FRAME_ROWS = 2;

/** The finished items in the order they finished; the list only grows, so `<Static>` prints each once. */
function useFinished(state: ProjectionState, read_artifact: AppProps["read_artifact"]) {
  const seen = useRef(new Set<string>());
  const items = useRef<FinishedItem[]>([]);
  const last_state = useRef<ProjectionState | undefined>(undefined);
  const notices = useRef(0);
  const [, set_version] = useState(0);
  if (last_state.current !== state) {
    last_state.current = state;
    const fresh = collect_finished(state, seen.current, read_artifact);
    if (fresh.length > 0) items.current = [...items.current, ...fresh];
  }
  const notify = useCallback((notice: Notice) => {
    notices.current += 1;
    items.current = [...items.current, { key: `n:${notices.current}`, at: new Date().toISOString(), kind: "notice", notice }];
    set_version((version) => version + 1);
  }, []);
  return { items: items.current, notify };
}

/**
 * The team's listing, read again only when what it shows can have changed: a task's status or attempt, or
 * the count of model calls. The listing is a few queries per task; re-renders on every event must not cost them.
 */
function useTeamListing(state: ProjectionState, read_tasks: AppProps["read_tasks"]): TaskListing | undefined {
  const key =
    team_tasks(state).length > 1
      ? `${state.usage.requests}|${team_tasks(state)
          .map((task) => `${task.id}:${task.status}:${task.attempt}`)
          .join(",")}`
      : "";
  return useMemo(() => (key === "" || read_tasks === undefined ? undefined : read_tasks()), [key, read_tasks]);
}

/**
 * The whole screen of `air run`/`air resume` (seeds 000 §13.2). Above: finished items in ink's `<Static>`,
 * printed once. Below: the live region — streaming reply, progress, blockers, the permission dialog, the
 * HUD and the prompt line — re-rendered at most `max_fps` times a second and kept shorter than the terminal
 * (ink clears the whole screen to redraw a region taller than it).
 */
export function App(props: AppProps): ReactNode {
  const { stdout } = useStdout();
  const { state, tick } = useProjection(props.client, props.max_fps ?? MAX_FPS, is_busy);
  const { items, notify } = useFinished(state, props.read_artifact);
  const controls = useControls(props, state, notify);
  const listing = useTeamListing(state, props.read_tasks);
  const { prompt } = controls;
  const rows = stdout.rows ?? 24;
  const compact = prompt !== undefined;
  const others =
    FRAME_ROWS +
    REPLY_FRAME_ROWS +
    team_lines_count(state) +
    progress_lines(state, compact) +
    state.blockers.length * BLOCKER_ROWS +
    (prompt === undefined ? 0 : dialog_lines(prompt));
  return h(
    Box,
    { flexDirection: "column" },
    // biome-ignore lint/correctness/noChildrenProp: Static renders each item with a function, which createElement's children arguments cannot type
    h(Static<FinishedItem>, { items, children: (item: FinishedItem) => h(FinishedView, { key: item.key, item }) }),
    h(LiveDrafts, { drafts: state.conversation.drafts, max_lines: Math.max(0, rows - others), columns: stdout.columns ?? 80, tick }),
    h(TeamView, { state, listing, tick }),
    h(Progress, { state, tick, columns: stdout.columns ?? 80, compact }),
    h(BlockerReports, { blockers: state.blockers }),
    prompt === undefined ? null : h(PermissionDialog, { key: prompt.prompt_id, prompt, on_answer: controls.answer }),
    h(Hud, { hud: state.hud, preset: state.ui.hud_preset }),
    h(PromptLine, { draft: controls.draft, direct: controls.direct, hint: controls.exit_armed ? EXIT_HINT : null, disabled: prompt !== undefined }),
  );
}

import { Box, Static, useStdout } from "ink";
import { createElement as h, memo, useCallback, useMemo, useRef, useState, type ReactNode } from "react";
import type { TaskListing } from "../contracts/task-listing.js";
import type { ProjectionState } from "../projection/types.js";
import { is_busy, useControls } from "./controls.js";
import { useEvidenceKey } from "./evidence-key.js";
import { EXIT_HINT } from "./exit-hint.js";
import type { AppProps } from "./props.js";
import { StreamedText, useWriteSettled } from "./streamed-text.js";
import { has_colors } from "./markdown-text.js";
import { MAX_FPS, useProjection } from "./use-projection.js";
import { BlockerReports } from "./views/blockers.js";
import { collect_finished, type FinishedItem, type Notice } from "./views/finished.js";
import { FinishedView } from "./views/finished-view.js";
import { Hud } from "./views/hud.js";
import { LiveDrafts } from "./views/live-drafts.js";
import { Echoes, QueuedMessages, queued_lines } from "./views/outgoing.js";
import { dialog_lines, PermissionDialog } from "./views/permission-prompt.js";
import { progress_lines, Progress } from "./views/progress.js";
import { PromptLine } from "./views/prompt-line.js";
import { team_lines_count, team_tasks, TeamView } from "./views/team.js";

/** Views whose props stay the same objects while a reply streams: not re-rendered on every frame. */
const HudView = memo(Hud);
const PromptLineView = memo(PromptLine);
const BlockerView = memo(BlockerReports);
/** Lines of the live region besides the reply, progress and dialog: HUD, prompt line, hints, margins. */
const FRAME_ROWS = 8;
const BLOCKER_ROWS = 3;
/** A streaming reply's own lines besides its text: "… N lines above" and "writing…". */
const REPLY_FRAME_ROWS = 2;

const NOTHING_SETTLED: readonly string[] = [];

/**
 * The finished items in the order they finished; the list only grows, so `<Static>` prints each once.
 * `settled`: the lines of the reply still streaming that are now written above the live region, after
 * those items; `drafts` the rest that the live region has to show.
 */
function useFinished(state: ProjectionState, read_artifact: AppProps["read_artifact"]) {
  const seen = useRef(new Set<string>());
  const streamed = useRef(new StreamedText());
  const items = useRef<FinishedItem[]>([]);
  const settled = useRef(NOTHING_SETTLED);
  const drafts = useRef(state.conversation.drafts);
  const last_state = useRef<ProjectionState | undefined>(undefined);
  const notices = useRef(0);
  const [, set_version] = useState(0);
  if (last_state.current !== state) {
    last_state.current = state;
    const fresh = streamed.current.settle(collect_finished(state, seen.current, read_artifact), state.conversation.drafts);
    if (fresh.finished.length > 0) items.current = [...items.current, ...fresh.finished];
    settled.current = fresh.settled.length > 0 ? fresh.settled : NOTHING_SETTLED;
    drafts.current = streamed.current.unprinted(state.conversation.drafts);
  }
  const append = useCallback((item: FinishedItem) => {
    items.current = [...items.current, item];
    set_version((version) => version + 1);
  }, []);
  const notify = useCallback(
    (notice: Notice) => {
      notices.current += 1;
      append({ key: `n:${notices.current}`, at: new Date().toISOString(), kind: "notice", notice });
    },
    [append],
  );
  return { items: items.current, settled: settled.current, drafts: drafts.current, append, notify };
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
  const { stdout, write } = useStdout();
  const { state, tick } = useProjection(props.client, props.max_fps ?? MAX_FPS, is_busy);
  const { items, settled, drafts, append, notify } = useFinished(state, props.read_artifact);
  useEvidenceKey(items, append, notify);
  useWriteSettled(settled, write, stdout);
  const controls = useControls(props, state, notify);
  const listing = useTeamListing(state, props.read_tasks);
  const { prompt } = controls;
  const rows = stdout.rows ?? 24;
  const compact = prompt !== undefined;
  const fixed =
    FRAME_ROWS +
    REPLY_FRAME_ROWS +
    team_lines_count(state) +
    progress_lines(state, compact) +
    state.blockers.length * BLOCKER_ROWS +
    controls.outgoing.echoes.length +
    queued_lines(controls.outgoing.queued);
  // The dialog's diff takes the rows the rest leaves; the reply gets what the dialog leaves.
  const dialog_room = rows - fixed;
  const others = fixed + (prompt === undefined ? 0 : dialog_lines(prompt, dialog_room));
  return h(
    Box,
    { flexDirection: "column" },
    // biome-ignore lint/correctness/noChildrenProp: Static renders each item with a function, which createElement's children arguments cannot type
    h(Static<FinishedItem>, { items, children: (item: FinishedItem) => h(FinishedView, { key: item.key, item }) }),
    h(Echoes, { echoes: controls.outgoing.echoes }),
    h(LiveDrafts, { drafts, max_lines: Math.max(0, rows - others), columns: stdout.columns ?? 80, colors: has_colors(stdout), tick }),
    h(TeamView, { state, listing, tick }),
    h(Progress, { state, tick, columns: stdout.columns ?? 80, compact }),
    h(BlockerView, { blockers: state.blockers }),
    prompt === undefined
      ? null
      : h(PermissionDialog, { key: prompt.prompt_id, prompt, max_lines: dialog_room, keys: controls.dialog_keys, on_answer: controls.answer }),
    h(QueuedMessages, { queued: controls.outgoing.queued }),
    h(HudView, { hud: state.hud, preset: state.ui.hud_preset, columns: stdout.columns ?? 80 }),
    h(PromptLineView, { draft: controls.draft, direct: controls.direct, hint: controls.exit_armed ? EXIT_HINT : null, disabled: prompt !== undefined }),
  );
}

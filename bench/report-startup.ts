import { ms } from "./report.js";
import { format_goal_line, format_info_line, format_skip_line } from "./report-info.js";
import type { PeerResult } from "./tui-peers.js";
import type { StartupResult } from "./tui-startup.js";

/** Issue 15's start-up goals, each over `node -e 0` in the same round. */
const FIRST_FRAME_GOAL = 3;
const READY_GOAL = 6;
const VERSION_GOAL = 1.2;

/** air's start-up lines (goals over `node -e 0`), then each peer's first visible frame beside air's in the same harness. */
export function format_startup(start: StartupResult, peers: readonly PeerResult[]): string[] {
  if (start.kind === "skipped") return [format_skip_line("tui first frame", start.reason)];
  const node = { ceiling_name: "node -e 0", ceiling: ms(start.node_ms) };
  const goal = (value: number) => ({ kind: "at_most", value, unit: "×" }) as const;
  return [
    format_goal_line({ name: "tui first frame", ours: ms(start.first_frame_ms), ...node, ratio: start.first_frame_ratio, goal: goal(FIRST_FRAME_GOAL) }),
    format_info_line({
      name: "tui ink frame",
      ours: ms(start.ink_frame_ms),
      ...node,
      ratio: start.ink_frame_ms / start.node_ms,
      note: "ink's first frame, in place of the pre-frame",
    }),
    format_goal_line({ name: "tui main agent ready", ours: ms(start.ready_ms), ...node, ratio: start.ready_ratio, goal: goal(READY_GOAL) }),
    format_goal_line({ name: "air --version", ours: ms(start.version_ms), ...node, ratio: start.version_ratio, goal: goal(VERSION_GOAL) }),
    format_info_line({
      name: "tui visible (tmux)",
      ours: ms(start.visible_ms),
      ...node,
      ratio: start.visible_ms / start.node_ms,
      note: "spawn to the first non-blank capture of the pane, as the peers below",
    }),
    ...peers.map((peer) =>
      peer.kind === "skipped"
        ? format_skip_line(`peer ${peer.name}`, peer.reason)
        : [
            `peer ${peer.name}`.padEnd(22),
            `visible ${ms(peer.visible_ms)}`.padEnd(20),
            `air ${ms(start.visible_ms)}`.padEnd(28),
            `${(peer.visible_ms / start.node_ms).toFixed(1)}× node -e 0 (info: ${peer.runs} runs, same tmux harness)`,
          ].join(" "),
    ),
  ];
}

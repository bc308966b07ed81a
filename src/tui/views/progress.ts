import { Box, Text } from "ink";
import { createElement as h, type ReactNode } from "react";
import type { ProjectionState } from "../../projection/types.js";
import { clean_line, clean_text, tail_lines } from "../sanitize.js";
import { is_model_turn } from "./finished.js";
import { StatusGlyph } from "./glyphs.js";
import { team_lines_count } from "./team.js";

/** Lines of a running command's output shown live; the whole output is in its artifacts. */
const OUTPUT_TAIL_LINES = 3;
const MAX_SHOWN = 3;

function running<T extends { readonly status: string }>(items: readonly T[], statuses: readonly string[]): T[] {
  return items.filter((item) => statuses.includes(item.status)).slice(-MAX_SHOWN);
}

function OutputTail(props: { readonly text: string; readonly color: string; readonly columns: number }): ReactNode {
  const { lines } = tail_lines(clean_text(props.text).replace(/\n$/, ""), OUTPUT_TAIL_LINES, props.columns - 6);
  if (lines.length === 0 || (lines.length === 1 && lines[0] === "")) return null;
  return h(
    Box,
    { flexDirection: "column", paddingLeft: 4 },
    ...lines.map((line, index) => h(Text, { key: String(index), color: props.color }, line === "" ? " " : line)),
  );
}

function shown(state: ProjectionState) {
  return {
    // A team's tasks have their own view, one line each.
    tasks: team_lines_count(state) > 0 ? [] : running(state.tasks, ["pending", "running"]),
    agents: running(state.agents, ["starting", "running"]),
    // A tool run whose command is running shows as that command, with its output, once.
    tools: running(
      state.tool_runs.filter(
        (run) => !is_model_turn(run) && !state.command_runs.some((command) => command.tool_run_id === run.id && command.status === "running"),
      ),
      ["running"],
    ),
    commands: running(state.command_runs, ["running"]),
  };
}

/** At most how many lines `Progress` takes (so a streaming reply can be given the rest of the screen). */
export function progress_lines(state: ProjectionState, compact: boolean): number {
  const { tasks, agents, tools, commands } = shown(state);
  return tasks.length + agents.length + tools.length + commands.length * (1 + (compact ? 0 : 2 * OUTPUT_TAIL_LINES));
}

/**
 * What is happening now: running tasks, agents, tool runs and commands, each with its status glyph and its
 * latest progress; a command shows the tail of its stdout and stderr. Finished ones leave this region
 * (they are printed once above it). `compact` leaves out the output tails (a permission dialog needs the room).
 */
export function Progress(props: { readonly state: ProjectionState; readonly tick: number; readonly columns: number; readonly compact: boolean }): ReactNode {
  const { state, tick, columns } = props;
  const { tasks, agents, tools, commands } = shown(state);
  if (tasks.length + agents.length + tools.length + commands.length === 0) return null;
  return h(
    Box,
    { flexDirection: "column" },
    ...tasks.map((task) =>
      h(
        Text,
        { key: task.id },
        h(StatusGlyph, { status: task.status, tick }),
        ` ${clean_line(task.title)}`,
        task.attempt > 1 ? ` (attempt ${task.attempt})` : "",
        task.progress === null
          ? ""
          : h(
              Text,
              { dimColor: true },
              ` — ${clean_line(task.progress.message)}${task.progress.percent === null ? "" : ` ${Math.round(task.progress.percent)}%`}`,
            ),
      ),
    ),
    ...agents.map((agent) => {
      const last = tail_lines(clean_text(agent.stream_tail).trimEnd(), 1, columns - 30).lines[0] ?? "";
      return h(
        Text,
        { key: agent.id },
        "  ",
        h(StatusGlyph, { status: agent.status, tick }),
        ` ${agent.agent_type}`,
        agent.model_id === null ? "" : h(Text, { dimColor: true }, ` (${clean_line(agent.model_id)})`),
        last === "" ? "" : h(Text, { dimColor: true }, ` ${last}`),
      );
    }),
    ...tools.map((run) =>
      h(
        Text,
        { key: run.id },
        "  ",
        h(StatusGlyph, { status: run.status, tick }),
        " ",
        h(Text, { color: "cyan" }, run.tool_name),
        ` ${clean_line(run.input_summary)}`,
        run.progress === null ? "" : h(Text, { dimColor: true }, ` — ${clean_line(run.progress)}`),
      ),
    ),
    ...commands.map((run) =>
      h(
        Box,
        { key: run.id, flexDirection: "column" },
        h(Text, null, "  ", h(StatusGlyph, { status: run.status, tick }), h(Text, { bold: true }, ` $ ${clean_line(run.command)}`)),
        ...(props.compact
          ? []
          : [
              h(OutputTail, { key: "out", text: run.stdout_tail, color: "white", columns }),
              h(OutputTail, { key: "err", text: run.stderr_tail, color: "red", columns }),
            ]),
      ),
    ),
  );
}

import type { ProjectionClient, SessionView, UiCommandSender } from "../projection/types.js";
import { help_text, type SlashName } from "./slash.js";
import { HUD_PRESETS, next_preset } from "./views/hud.js";
import type { Notice } from "./views/finished.js";

/** What a slash command may touch: the channel, the UI state, the screen's notices and the App's own modes. */
export type CommandContext = {
  readonly sender: UiCommandSender;
  readonly client: ProjectionClient;
  readonly list_sessions: () => readonly SessionView[] | Promise<readonly SessionView[]>;
  readonly notify: (notice: Notice) => void;
  /** Runs a send; a refusal becomes an error notice, and the answer says whether it went through. */
  readonly attempt: (action: () => unknown) => boolean;
  readonly direct: { get(): boolean; set(direct: boolean): void };
  readonly leave: () => void;
};

export function error_text(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sessions_text(sessions: readonly SessionView[]): string {
  if (sessions.length === 0) return "No sessions.";
  const lines = sessions.map((session) => `  ${session.id}  ${session.status.padEnd(10)} ${session.created_at ?? ""}  ${session.title}`);
  return ["Sessions:", ...lines].join("\n");
}

function set_direct(ctx: CommandContext, enabled: boolean): void {
  if (ctx.direct.get() === enabled) {
    ctx.notify({ tone: "info", text: enabled ? "Already in direct mode; /done leaves it." : "Not in direct mode (/direct enters it)." });
    return;
  }
  if (!ctx.attempt(() => ctx.sender.direct_mode(enabled))) return;
  ctx.direct.set(enabled);
  ctx.notify({
    tone: "info",
    text: enabled
      ? "Direct mode: the Main Agent works on your messages itself, with the tools, in the project. /done ends it with a summary."
      : "Direct mode ended.",
  });
}

export function run_command(name: SlashName, args: string, ctx: CommandContext): void {
  switch (name) {
    case "help":
      return ctx.notify({ tone: "info", text: help_text() });
    case "compact":
      if (ctx.attempt(() => ctx.sender.compact())) ctx.notify({ tone: "info", text: "Compacting the context…" });
      return;
    case "direct":
    case "done":
      return set_direct(ctx, name === "direct");
    case "approve":
      if (ctx.attempt(() => ctx.sender.decide_plan(true))) ctx.notify({ tone: "info", text: "Plan approved: recording its tasks…" });
      return;
    case "reject": {
      const reason = args.trim() === "" ? "the user rejected the plan" : args.trim();
      if (ctx.attempt(() => ctx.sender.decide_plan(false, reason))) ctx.notify({ tone: "info", text: "Plan rejected." });
      return;
    }
    case "hud": {
      const wanted = HUD_PRESETS.find((preset) => preset === args.trim().toLowerCase());
      ctx.client.set_ui({ hud_preset: wanted ?? next_preset(ctx.client.snapshot().ui.hud_preset) });
      return;
    }
    case "sessions":
      Promise.resolve()
        .then(() => ctx.list_sessions())
        .then(
          (sessions) => ctx.notify({ tone: "info", text: sessions_text(sessions) }),
          (error: unknown) => ctx.notify({ tone: "error", text: error_text(error) }),
        );
      return;
    case "exit":
      return ctx.leave();
  }
}

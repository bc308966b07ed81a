import type { Io } from "./output.js";
import { EXIT_HINT } from "../tui/exit-hint.js";
import { hud_rows } from "../tui/hud-rows.js";
import { TypedKeys } from "./pre-frame-keys.js";
import { is_interactive } from "./terminal.js";

/**
 * The TUI's first frame in plain ANSI, painted by `air run` before ink, React, the runtime and the SDKs
 * load: the HUD with the session's zero counters and its permission mode, and the prompt line. ink
 * takes over where it stands — its first frame is drawn in place of this one, no line left behind and the
 * screen never cleared.
 *
 * Why a frame of our own: measured on a 2-core machine (the tui start-up bench, medians of 5 runs, each
 * beside `node -e 0` in the same round), ink's first frame came at 24× node's start unbundled and at ~10×
 * with the CLI bundled (scripts/bundle-cli.mjs): ink + React, the runtime and the SDKs must load before ink
 * can draw anything. This frame needs only the bundle's entry and this file, and painted at 1.8×.
 *
 * The terminal is in raw mode from before the frame shows: a key typed meanwhile waits in the terminal
 * until ink reads it (the prompt line gets the text; a Ctrl+C is the App's first press, which arms the
 * exit hint), instead of a Ctrl+C being a SIGINT that ends a half-started process.
 */
export type PreFrame = {
  /** Epoch ms when the frame was written. */
  readonly painted_at: number;
  /** `io` whose lines print above the frame while it stands, so it stays the last thing on screen. */
  above(io: Io): Io;
  /** Erases the frame, leaving the cursor where it began and the terminal raw: ink draws there next. */
  hand_over(): void;
  /** Erases the frame and gives the terminal back (cooked, cursor shown): a start that ends before the TUI. */
  dismiss(): void;
  /** As `dismiss`, for a start that goes on reading the terminal without the TUI (the first-run wizard). */
  make_way(): void;
};

/** Below this, ink lays out the App as it can; a frame of ours would only differ from it. */
const MIN_COLUMNS = 30;
const MIN_ROWS = 6;
const DIM = "\x1b[2m";
const RESET = "\x1b[0m";
const HIDE_CURSOR = "\x1b[?25l";
const SHOW_CURSOR = "\x1b[?25h";

const epoch_ms = () => performance.timeOrigin + performance.now();

/** The HUD as a new session's first frame shows it (src/tui/views/hud.ts), the model not known yet. */
function hud_lines(mode: string, columns: number): string[] {
  const fields = ["starting", "ctx –", "0 tok (↑0 ↓0)", "cost –", `mode ${mode}`, "agents 0", "tasks 0"];
  return hud_rows(fields, columns)
    .split("\n")
    .map((line) => `${DIM}${line}${RESET}`);
}

/** The prompt line (src/tui/views/prompt-line.ts) with what was typed, and the exit hint after a Ctrl+C. */
function prompt_lines(keys: TypedKeys, columns: number): string[] {
  const draft = keys.draft().slice(-(columns - 4));
  const prompt = `\x1b[1m\x1b[32m› ${RESET}${draft}\x1b[7m ${RESET}`;
  return keys.armed ? [prompt, `\x1b[33m${EXIT_HINT.slice(0, columns - 1)}${RESET}`] : [prompt];
}

/**
 * Erases `lines` lines up from the cursor's and leaves it at the start of the first, line by line as ink
 * erases its own frame: an erase-to-the-end from the top corner reads as clearing the screen, which a
 * terminal may keep in its scrollback (tmux's scroll-on-clear).
 */
function erase(lines: number): string {
  return `${"\x1b[2K\x1b[1A".repeat(lines - 1)}\x1b[2K\r`;
}

/**
 * Paints the frame when a person is at a terminal big enough for it; otherwise undefined and ink's frame is
 * the first. `mode` is the `--permission-mode` given: it is validated later, so only a word is shown.
 */
export function paint_pre_frame(mode: string | undefined, env: NodeJS.ProcessEnv = process.env): PreFrame | undefined {
  const { stdin, stdout } = process;
  if (!is_interactive(env) || stdout.columns < MIN_COLUMNS || stdout.rows < MIN_ROWS) return undefined;
  const columns = stdout.columns;
  const hud = hud_lines(mode !== undefined && /^[a-z-]{1,20}$/.test(mode) ? mode : "default", columns);
  const keys = new TypedKeys();
  let shown = 0;
  const draw = () => {
    const lines = [...hud, ...prompt_lines(keys, columns)];
    stdout.write(`${shown === 0 ? "" : erase(shown)}${lines.join("\n")}`);
    shown = lines.length;
  };
  stdin.setRawMode(true);
  // From the line's start: what the terminal echoed of keys typed before raw mode goes (ink shows them again).
  stdout.write(`${HIDE_CURSOR}\r\x1b[K`);
  draw();
  const painted_at = epoch_ms();
  // Read as ink reads (`readable`, never flowing then paused): a paused TTY stream would not start again for ink.
  const on_keys = () => {
    let chunk: Buffer | null;
    while ((chunk = stdin.read() as Buffer | null) !== null) keys.add(chunk.toString("utf8"));
    draw();
  };
  stdin.on("readable", on_keys);
  let standing = true;
  /** Stops reading and erases the frame. */
  const stand_down = () => {
    standing = false;
    process.off("exit", dismiss);
    stdin.off("readable", on_keys);
    stdout.write(erase(shown));
  };
  const give_back = () => {
    stand_down();
    keys.give_back(stdin);
    stdout.write(SHOW_CURSOR);
    stdin.setRawMode(false);
  };
  function dismiss(): void {
    if (!standing) return;
    give_back();
    // Nobody reads after this frame: the terminal must not hold the process open.
    stdin.unref();
  }
  // A start that dies without a word must not leave the terminal raw with its cursor hidden.
  process.once("exit", dismiss);
  const print_above = (write: (text: string) => void, text: string) => {
    if (!standing) return write(text);
    stdout.write(erase(shown));
    shown = 0;
    write(text.endsWith("\n") ? text : `${text}\n`);
    draw();
  };
  return {
    painted_at,
    above: (io) => ({ ...io, out: (text) => print_above(io.out, text), err: (text) => print_above(io.err, text) }),
    hand_over: () => {
      if (!standing) return;
      stand_down();
      keys.hand_to(stdin);
    },
    dismiss,
    make_way: () => {
      if (standing) give_back();
    },
  };
}

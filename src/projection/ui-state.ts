import { eq } from "drizzle-orm";
import * as v from "valibot";
import { now_iso } from "../contracts/ids.js";
import type { Connection } from "../db/connection.js";
import { ui_state } from "../db/schema.js";

/** Which fields the HUD shows; the state underneath is the same for every preset (D-056). */
export const HudPreset = v.picklist(["full", "essential", "minimal"]);
export type HudPreset = v.InferOutput<typeof HudPreset>;

/**
 * UI-only recovery state (seeds 001 D-053): kept in memory while the user works, written to `ui_state`
 * now and then and on exit. Losing a few seconds of it is acceptable; it never steers the runtime.
 * Each field is one `ui_state` row, so a field added later reads as its default in older sessions.
 */
const UI_FIELDS = {
  hud_preset: v.optional(HudPreset, "full"),
  /** Text typed into the input box and not sent yet. */
  input_draft: v.optional(v.pipe(v.string(), v.maxLength(100_000)), ""),
};
export const UiState = v.strictObject(UI_FIELDS);
export type UiState = v.InferOutput<typeof UiState>;
export const UiStatePatch = v.partial(v.strictObject(UI_FIELDS));
export type UiStatePatch = v.InferInput<typeof UiStatePatch>;

/** The `ui_state.scope` of the terminal UI. */
export const UI_SCOPE = "tui";

export const DEFAULT_UI_STATE: UiState = v.parse(UiState, {});

type UiKey = keyof UiState;
const UI_KEYS = Object.keys(UI_FIELDS) as UiKey[];

/** The stored UI state; a missing, unreadable or out-of-date value reads as its default. */
export function read_ui_state(connection: Connection): UiState {
  const rows = connection.db.select({ key: ui_state.key, value_json: ui_state.value_json }).from(ui_state).where(eq(ui_state.scope, UI_SCOPE)).all();
  const stored = new Map(rows.map((row) => [row.key, row.value_json]));
  const state: Record<string, unknown> = {};
  for (const key of UI_KEYS) {
    const parsed = v.safeParse(UI_FIELDS[key], parse_json(stored.get(key)));
    state[key] = parsed.success ? parsed.output : DEFAULT_UI_STATE[key];
  }
  return state as UiState;
}

function parse_json(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export type UiStateFlusherOptions = {
  /** How often changes are written (D-053: "e.g. every 10 seconds"). */
  interval_ms?: number;
  /** Where a failed periodic write is reported; the next tick tries again. */
  on_error?: (error: unknown) => void;
};

const report_to_stderr = (error: unknown) => process.stderr.write(`ui_state flush failed: ${error instanceof Error ? error.message : String(error)}\n`);

/**
 * Writes the projection's `ui` to `ui_state` periodically and on close: only the fields that changed since
 * the last write. A direct write, not an event: `ui_state` is UI scratch state (seeds 000 §18.6 exemption).
 */
export class UiStateFlusher {
  #written: Map<UiKey, string>;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly connection: Connection,
    private readonly read: () => UiState,
    private readonly options: UiStateFlusherOptions = {},
  ) {
    const stored = read_ui_state(connection);
    this.#written = new Map(UI_KEYS.map((key) => [key, JSON.stringify(stored[key])]));
  }

  start(): this {
    if (this.#timer !== undefined || this.#closed) return this;
    this.#timer = setInterval(() => this.#tick(), this.options.interval_ms ?? 10_000);
    // UI scratch state must never keep the process alive.
    this.#timer.unref();
    return this;
  }

  /** Writes the changed fields now, in one transaction; returns how many were written. */
  flush(): number {
    const state = this.read();
    const changed = UI_KEYS.map((key) => [key, JSON.stringify(state[key])] as const).filter(([key, value]) => this.#written.get(key) !== value);
    if (changed.length === 0) return 0;
    const at = now_iso();
    this.connection.write(() => {
      for (const [key, value_json] of changed) upsert(this.connection, key, value_json, at);
    });
    for (const [key, value] of changed) this.#written.set(key, value);
    return changed.length;
  }

  /** Stops the timer and writes what is left (the "on exit" flush); idempotent. */
  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#closed) return;
    this.#closed = true;
    this.flush();
  }

  #tick(): void {
    try {
      this.flush();
    } catch (error) {
      (this.options.on_error ?? report_to_stderr)(error);
    }
  }
}

function upsert(connection: Connection, key: string, value_json: string, at: string): void {
  connection.db
    .insert(ui_state)
    .values({ scope: UI_SCOPE, key, value_json, updated_at: at })
    .onConflictDoUpdate({ target: [ui_state.scope, ui_state.key], set: { value_json, updated_at: at } })
    .run();
}

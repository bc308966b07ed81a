/**
 * ui_state (seeds 001 D-053): UI changes stay in memory, are written every interval and on close, and are
 * read back when the session's projection is opened again. A direct write, never an event.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { open_session, type Session } from "../../src/project/session-manager.js";
import { open_session_projection } from "../../src/projection/session-projection.js";
import { ProjectionStore } from "../../src/projection/store.js";
import { UI_SCOPE, UiStateFlusher } from "../../src/projection/ui-state.js";
import { event_count, find_rows, temp_project, type TempProject } from "../fixtures/session.js";

let temp: TempProject | undefined;
let opened: Session | undefined;
afterEach(() => {
  opened?.close();
  opened = undefined;
  temp?.cleanup();
  temp = undefined;
});

function new_session(): Session {
  temp = temp_project();
  opened = open_session(temp.project, { title: "ui state" });
  return opened;
}

function stored(session: Session): Record<string, unknown> {
  const rows = find_rows(session.connection, "ui_state", UI_SCOPE, "scope");
  return Object.fromEntries(rows.map((row) => [row.key, row.value_json]));
}

describe("ui_state", () => {
  it("is written every interval, only the fields that changed", async () => {
    const session = new_session();
    const ui = open_session_projection(session, { ui_state: { interval_ms: 20 } });
    const events_before = event_count(session.connection);
    ui.store.set_ui({ hud_preset: "minimal" });
    expect(stored(session)).toEqual({});
    await sleep(80);
    expect(stored(session)).toEqual({ hud_preset: "minimal" });
    expect(ui.ui_state.flush()).toBe(0);
    ui.store.set_ui({ input_draft: "fix the" });
    expect(ui.ui_state.flush()).toBe(1);
    expect(stored(session)).toEqual({ hud_preset: "minimal", input_draft: "fix the" });
    expect(event_count(session.connection)).toBe(events_before);
    ui.close();
  });

  it("is written on close, before the session closes, and read back when the session is resumed", () => {
    const session = new_session();
    const ui = open_session_projection(session, { ui_state: { interval_ms: 60_000 } });
    ui.store.set_ui({ hud_preset: "essential", input_draft: "half a sentence" });
    ui.close();
    expect(stored(session)).toEqual({ hud_preset: "essential", input_draft: "half a sentence" });
    session.close();
    opened = open_session(temp!.project, { session_id: session.id });
    const resumed = new ProjectionStore(opened);
    resumed.hydrate();
    expect(resumed.snapshot().ui).toEqual({ hud_preset: "essential", input_draft: "half a sentence" });
  });

  it("keeps the UI's own state across a rehydration and reads a broken stored value as its default", () => {
    const session = new_session();
    const insert = session.connection.client.prepare("INSERT INTO ui_state (scope, key, value_json, updated_at) VALUES (?, ?, ?, ?)");
    insert.run(UI_SCOPE, "hud_preset", JSON.stringify("enormous"), new Date().toISOString());
    insert.run(UI_SCOPE, "input_draft", "{not json", new Date().toISOString());
    const store = new ProjectionStore(session);
    store.hydrate();
    expect(store.snapshot().ui).toEqual({ hud_preset: "full", input_draft: "" });
    store.set_ui({ input_draft: "unsaved" });
    store.rehydrate();
    expect(store.snapshot().ui.input_draft).toBe("unsaved");
    expect(() => store.set_ui({ hud_preset: "huge" as never })).toThrow();
  });

  it("reports a failed periodic write and tries again on the next tick", async () => {
    const session = new_session();
    const store = new ProjectionStore(session);
    store.hydrate();
    const errors: unknown[] = [];
    let broken = true;
    const flusher = new UiStateFlusher(
      session.connection,
      () => {
        if (broken) throw new Error("the disk is full");
        return store.snapshot().ui;
      },
      { interval_ms: 10, on_error: (error) => errors.push(error) },
    ).start();
    store.set_ui({ hud_preset: "minimal" });
    await sleep(40);
    expect(errors.length).toBeGreaterThan(0);
    broken = false;
    await sleep(40);
    expect(stored(session)).toEqual({ hud_preset: "minimal" });
    flusher.close();
  });
});

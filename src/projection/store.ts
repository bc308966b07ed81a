import { createStore } from "@xstate/store";
import * as v from "valibot";
import { Coalescer } from "../event-store/coalesce.js";
import type { EventBus } from "../event-store/event-bus.js";
import { definition_of, EVENT_TYPES, is_durable, type EventType, type RuntimeEvent } from "../contracts/events/registry.js";
import { empty_state, fold, summarize, type ProjectionOptions } from "./apply.js";
import { hydrate_state, type ProjectionSource } from "./hydrate.js";
import { carry_live } from "./live.js";
import type { ProjectionClient, ProjectionSelection, ProjectionState } from "./types.js";
import { read_ui_state, UiStatePatch, type UiState } from "./ui-state.js";
import { DEFAULT_TAIL_CHARS } from "./views.js";

export type ProjectionStoreOptions = ProjectionOptions & {
  /** How long live deltas wait to be folded together (one frame). */
  flush_ms?: number;
};

/** A frame at 30 per second: the TUI never repaints streaming text faster than this. */
const DEFAULT_FLUSH_MS = 33;

/** The live events the projection shows; other ephemeral traffic (render timings) is not subscribed to. */
const LIVE_EVENT_TYPES: readonly EventType[] = [
  "assistant.message.delta",
  "token.delta",
  "task.progress",
  "agent.heartbeat",
  "tool.progress",
  "command.stdout.delta",
  "command.stderr.delta",
  "stdout.delta",
  "stderr.delta",
];

function same_fields<T extends object>(a: T, b: T): boolean {
  const keys = Object.keys(a) as (keyof T)[];
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

/**
 * A batch of events folded, then the derived parts once: one store update per batch. Derived parts that
 * came out the same are the earlier objects, so a view of them can tell at a glance it has nothing to redraw.
 */
function fold_batch(state: ProjectionState, batch: readonly RuntimeEvent[], options: ProjectionStoreOptions): ProjectionState {
  const fold_options = { tail_chars: options.tail_chars ?? DEFAULT_TAIL_CHARS, price: options.price };
  const next = summarize(
    batch.reduce((folded, event) => fold(folded, event, fold_options), state),
    options,
  );
  const hud = same_fields(next.hud, state.hud) ? state.hud : next.hud;
  const blockers =
    next.blockers.length === state.blockers.length && next.blockers.every((blocker, index) => same_fields(blocker, state.blockers[index] ?? blocker))
      ? state.blockers
      : next.blockers;
  return hud === next.hud && blockers === next.blockers ? next : { ...next, hud, blockers };
}

function make_store(initial: ProjectionState, options: ProjectionStoreOptions) {
  return createStore({
    context: initial,
    on: {
      hydrated: (_context, event: { state: ProjectionState }) => event.state,
      applied: (context, event: { events: readonly RuntimeEvent[] }) => fold_batch(context, event.events, options),
      ui_changed: (context, event: { ui: UiState }) => ({ ...context, ui: event.ui }),
    },
  });
}

/**
 * The display projection of one session (seeds 000 §13.1, 001 D-056), an `@xstate/store`: hydrated from the
 * session database, then kept current by the bus — committed durable events and the live ephemeral ones,
 * deltas folded per frame so a burst of them costs one update. Never a source of truth: whenever it may
 * have missed something (a new bus, a gap in the event sequence) it rebuilds from the database.
 */
export class ProjectionStore implements ProjectionClient {
  readonly #store: ReturnType<typeof make_store>;
  readonly #coalescer: Coalescer;
  #seq = 0;
  #hydrated = false;
  #detach: (() => void) | undefined;

  constructor(
    private readonly source: ProjectionSource,
    private readonly options: ProjectionStoreOptions = {},
  ) {
    this.#store = make_store(empty_state(source.id), options);
    this.#coalescer = new Coalescer(options.flush_ms ?? DEFAULT_FLUSH_MS, () => this.flush());
  }

  snapshot(): ProjectionState {
    return this.#store.getSnapshot().context;
  }

  subscribe(handler: (state: ProjectionState) => void): () => void {
    const subscription = this.#store.subscribe((snapshot) => handler(snapshot.context));
    return () => subscription.unsubscribe();
  }

  select<T>(selector: (state: ProjectionState) => T, equal?: (a: T, b: T) => boolean): ProjectionSelection<T> {
    const selection = this.#store.select(selector, equal);
    return {
      get: () => selection.get(),
      subscribe: (handler) => {
        const subscription = selection.subscribe(handler);
        return () => subscription.unsubscribe();
      },
    };
  }

  set_ui(patch: UiStatePatch): void {
    const checked = v.parse(UiStatePatch, patch);
    this.#store.trigger.ui_changed({ ui: { ...this.snapshot().ui, ...checked } as UiState });
  }

  /**
   * Rebuilds the state from the database. The first hydration also reads the stored UI state; later ones
   * keep the UI's own (newer) one, and the live-only parts (streamed text, output tails) of what still exists.
   */
  hydrate(): void {
    const before = fold_batch(this.snapshot(), this.#coalescer.take(), this.options);
    const ui = this.#hydrated ? before.ui : read_ui_state(this.source.connection);
    const { state, seq } = hydrate_state(this.source, ui, this.options);
    this.#seq = seq;
    this.#store.trigger.hydrated({ state: this.#hydrated ? summarize(carry_live(before, state), this.options) : state });
    this.#hydrated = true;
  }

  /** Same as `hydrate`, named for its use: after a bus restart or a detected gap. */
  rehydrate(): void {
    this.hydrate();
  }

  /**
   * One event from the bus. Ephemeral ones wait for the next frame; a durable one is applied at once, after
   * the deltas that came before it. Its sequence number, which the bus hands over with it, says whether it is
   * the next one: an older one is already in the state (a rehydration read it), a newer one means events were
   * missed. A durable event without one was never committed.
   */
  apply(event: RuntimeEvent, seq?: number): void {
    if (event.session_id !== this.source.id) return;
    if (!is_durable(event)) {
      this.#coalescer.push(event);
      return;
    }
    if (seq === undefined || seq <= this.#seq) {
      this.flush();
      return;
    }
    if (seq > this.#seq + 1) {
      this.rehydrate();
      return;
    }
    this.#seq = seq;
    this.#store.trigger.applied({ events: [...this.#coalescer.take(), event] });
  }

  /** Applies the held deltas now (the frame timer does this on its own). */
  flush(): void {
    const pending = this.#coalescer.take();
    if (pending.length > 0) this.#store.trigger.applied({ events: pending });
  }

  /** Follows `bus` from now on: subscribes, then hydrates, so nothing falls between the two. */
  attach(bus: EventBus): () => void {
    this.detach();
    const types = [...EVENT_TYPES.filter((type) => definition_of(type).persistence === "durable"), ...LIVE_EVENT_TYPES];
    this.#detach = bus.subscribe({ types }, (event, seq) => this.apply(event, seq));
    this.hydrate();
    return () => this.detach();
  }

  detach(): void {
    this.#detach?.();
    this.#detach = undefined;
  }

  /** Stops following the bus; held deltas are applied first. */
  close(): void {
    this.detach();
    this.flush();
  }
}

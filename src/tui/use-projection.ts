import { useEffect, useState } from "react";
import type { ProjectionClient, ProjectionState } from "../projection/types.js";

export const MAX_FPS = 30;

/**
 * The projection's state, re-read at most `max_fps` times a second: a burst of store updates (a stream of
 * deltas) costs one render per frame, the first after at most one frame's wait.
 */
export function use_projection(client: ProjectionClient, max_fps: number = MAX_FPS): ProjectionState {
  const [state, set_state] = useState(() => client.snapshot());
  useEffect(() => {
    const frame_ms = 1000 / Math.min(MAX_FPS, Math.max(1, max_fps));
    let timer: NodeJS.Timeout | undefined;
    let last_render = 0;
    const render = () => {
      timer = undefined;
      last_render = Date.now();
      set_state(client.snapshot());
    };
    const unsubscribe = client.subscribe(() => {
      if (timer === undefined) timer = setTimeout(render, Math.max(0, last_render + frame_ms - Date.now()));
    });
    // An update between the first render and the subscription would otherwise wait for the next one.
    set_state(client.snapshot());
    return () => {
      unsubscribe();
      clearTimeout(timer);
    };
  }, [client, max_fps]);
  return state;
}

/** A counter for spinners, ticking only while something runs (an idle screen does not redraw). */
export function use_tick(active: boolean, interval_ms = 120): number {
  const [tick, set_tick] = useState(0);
  useEffect(() => {
    if (!active) return undefined;
    const timer = setInterval(() => set_tick((value) => value + 1), interval_ms);
    return () => clearInterval(timer);
  }, [active, interval_ms]);
  return tick;
}

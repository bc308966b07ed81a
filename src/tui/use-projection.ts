import { useEffect, useRef, useState } from "react";
import type { ProjectionClient, ProjectionState } from "../projection/types.js";

export const MAX_FPS = 30;
/** How often a spinner moves while something runs. */
const SPIN_MS = 120;

export type Frame = { readonly state: ProjectionState; readonly tick: number };

/**
 * The projection's state, re-read at most `max_fps` times a second: a burst of store updates (a stream of
 * deltas) costs one render per frame, the first after at most one frame's wait. While `animate` holds,
 * the spinners' tick asks for frames through the same throttle, so the total stays within `max_fps`.
 */
export function useProjection(client: ProjectionClient, max_fps: number, animate: (state: ProjectionState) => boolean): Frame {
  const [frame, set_frame] = useState<Frame>(() => ({ state: client.snapshot(), tick: 0 }));
  const request = useRef<() => void>(() => {});
  useEffect(() => {
    const frame_ms = 1000 / Math.min(MAX_FPS, Math.max(1, max_fps));
    let timer: NodeJS.Timeout | undefined;
    let last_render = 0;
    const render = () => {
      timer = undefined;
      last_render = Date.now();
      set_frame({ state: client.snapshot(), tick: Math.floor(last_render / SPIN_MS) });
    };
    request.current = () => {
      if (timer === undefined) timer = setTimeout(render, Math.max(0, last_render + frame_ms - Date.now()));
    };
    const unsubscribe = client.subscribe(() => request.current());
    // An update between the first render and the subscription would otherwise wait for the next one.
    request.current();
    return () => {
      unsubscribe();
      clearTimeout(timer);
      request.current = () => {};
    };
  }, [client, max_fps]);
  const animating = animate(frame.state);
  useEffect(() => {
    if (!animating) return undefined;
    const spinner = setInterval(() => request.current(), SPIN_MS);
    return () => clearInterval(spinner);
  }, [animating]);
  return frame;
}

import { useCallback, useRef, useState } from "react";

/**
 * State whose handlers read the latest value at once: keys arriving in one burst (a paste, `tmux send-keys`,
 * two quick Ctrl+C) reach the input handler before React re-renders it with the new value.
 */
export function useSynced<T>(initial: T): [T, { readonly current: T }, (next: T) => void] {
  const ref = useRef(initial);
  const [value, set_value] = useState(initial);
  const set = useCallback((next: T) => {
    ref.current = next;
    set_value(next);
  }, []);
  return [value, ref, set];
}

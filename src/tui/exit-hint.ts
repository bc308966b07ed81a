/** What the App says after a first Ctrl+C; `air run`'s pre-frame (src/cli/pre-frame.ts) says it too. */
export const EXIT_HINT = "Press Ctrl+C again to exit (the session stays resumable).";

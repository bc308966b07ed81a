import { createRequire } from "node:module";

/**
 * React, its reconciler and scheduler pick their development or production build from `NODE_ENV` when
 * first loaded, and air's users do not set it: the development build (checks and timings on every render)
 * costs the TUI about a third more CPU per frame. They are loaded here, before ink loads them, with
 * `NODE_ENV` set to "production" only for that moment, so the commands air runs never inherit it. A
 * `NODE_ENV` the user set (the test runner sets "test") is kept as it is. Import this on its own, before
 * loading any module graph that holds ink: a static import beside ink's is not sure to run first.
 */
if (process.env.NODE_ENV === undefined) {
  const require = createRequire(import.meta.url);
  process.env.NODE_ENV = "production";
  try {
    for (const name of ["react", "scheduler", "react-reconciler", "react-reconciler/constants.js"]) require(name);
  } finally {
    delete process.env.NODE_ENV;
  }
}

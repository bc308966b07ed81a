/**
 * Part of `npm run build`: bundles the worker entry (dist/workers/main.js) into one file, in place.
 *
 * Why: a worker is spawned per agent, and its start-up is mostly Node resolving and loading modules — 23 of
 * ours and valibot's before `worker.ready`. Measured on a 2-core machine, the unbundled worker answered at
 * ~1.57× a bare `node -e` child answering one NDJSON line, the bundled one at ~1.3× (`npm run bench`, worker
 * spawn). The worker imports only contracts, workers and context (DESIGN.md §2) and reads one file at run time
 * (`package.json`, relative to `dist/workers/`, where the bundle stays), so one file behaves as the many did.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const entry = path.join(root, "dist", "workers", "main.js");

await build({
  entryPoints: [entry],
  outfile: entry,
  allowOverwrite: true,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
});

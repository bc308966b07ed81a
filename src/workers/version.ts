import fs from "node:fs";

/**
 * The worker's own version, announced in `worker.ready`: air's version from the package.json one level
 * above both src/ and dist/. Reading the worker's own installation once at start-up is not project I/O.
 */
export const WORKER_VERSION: string = (JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

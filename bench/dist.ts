import fs from "node:fs";

/**
 * The built air (dist/), typed by its sources. The bench measures the code `npm run build` ships, not
 * a tsx-transpiled copy of src/.
 */
type SessionManager = typeof import("../src/project/session-manager.js");
type ProjectStore = typeof import("../src/project/project-store.js");
type Registry = typeof import("../src/contracts/events/registry.js");
type Ids = typeof import("../src/contracts/ids.js");
type ConnectionModule = typeof import("../src/db/connection.js");
type MigrateModule = typeof import("../src/db/migrate.js");

export const DIST = new URL("../dist/", import.meta.url);

async function load<T>(path: string): Promise<T> {
  const url = new URL(path, DIST);
  if (!fs.existsSync(url)) throw new Error(`${url.pathname} is missing: run \`npm run build\` first (\`npm run bench\` does)`);
  return (await import(url.href)) as T;
}

export const air = {
  sessions: await load<SessionManager>("project/session-manager.js"),
  projects: await load<ProjectStore>("project/project-store.js"),
  registry: await load<Registry>("contracts/events/registry.js"),
  ids: await load<Ids>("contracts/ids.js"),
  connection: await load<ConnectionModule>("db/connection.js"),
  migrate: await load<MigrateModule>("db/migrate.js"),
};

export type Session = import("../src/project/session-manager.js").Session;
export type Project = import("../src/project/project-store.js").Project;

import type { Project } from "../project/project-store.js";
import { record_project_opened } from "../project/project-index.js";
import type { Io } from "./output.js";

/**
 * Adds the project to `~/.air/project-index.db` for `air session list --all-projects`. The index is a
 * convenience: a failure to write it is reported and the run goes on.
 */
export async function note_project_opened(io: Io, project: Project): Promise<void> {
  try {
    await record_project_opened(project);
  } catch (error) {
    io.err(`air: could not record ${project.layout.root} in the project index: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}

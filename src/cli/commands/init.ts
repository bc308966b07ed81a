import { init_project } from "../../project/project-store.js";
import type { Io } from "../output.js";
import { note_project_opened } from "../note-project.js";
import { is_interactive, needs_wizard, run_wizard } from "../wizard.js";

/** The exit code of a setup the user cancelled (as for Ctrl+C). */
const CANCELLED = 130;

/**
 * Makes the current folder an air project. In a terminal, with no provider set up yet and without
 * `--yes`, the first-run wizard runs first (provider, key, model, permission mode, and the project's
 * starter `.air/shared` files); cancelled, it leaves the folder as it was.
 */
export async function run_init(io: Io, options: { yes: boolean }): Promise<number> {
  if (!options.yes && is_interactive() && needs_wizard()) {
    const result = await run_wizard(io, { for_init: true, project_root: io.cwd });
    if (result.status === "cancelled") return CANCELLED;
  }
  const { project, created } = init_project(io.cwd);
  await note_project_opened(io, project);
  const { file, layout } = project;
  io.out(
    created
      ? `Initialised air project "${file.name}" (${file.project_id})\n  shared: ${layout.shared}\n  local:  ${layout.local} (gitignored)\n`
      : `Already an air project: "${file.name}" (${file.project_id}) at ${layout.root}\n`,
  );
  return 0;
}

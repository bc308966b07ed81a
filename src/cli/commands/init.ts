import { init_project } from "../../project/project-store.js";
import type { Io } from "../output.js";

/** Non-interactive for now: the @clack/prompts wizard arrives with the TUI; `--yes` is accepted already. */
export async function run_init(io: Io, _options: { yes: boolean }): Promise<number> {
  const { project, created } = init_project(io.cwd);
  const { file, layout } = project;
  io.out(
    created
      ? `Initialised air project "${file.name}" (${file.project_id})\n  shared: ${layout.shared}\n  local:  ${layout.local} (gitignored)\n`
      : `Already an air project: "${file.name}" (${file.project_id}) at ${layout.root}\n`,
  );
  return 0;
}

import { init_project } from "../../project/project-store.js";
import type { Io } from "../output.js";
import { note_project_opened } from "../note-project.js";
import { is_interactive, run_wizard, type WizardResult } from "../wizard.js";
import { needs_wizard } from "../wizard/needed.js";
import { DEMO_PROVIDER } from "../wizard/air-config.js";

/** The exit code of a setup the user cancelled (as for Ctrl+C). */
const CANCELLED = 130;

/**
 * Makes the current folder an air project. In a terminal, with no provider set up yet and without
 * `--yes`, the first-run wizard runs first (provider, key, model, permission mode, and the project's
 * starter `.air/shared` files); cancelled, it leaves the folder as it was. Its "Offline demo" choice
 * opens `air demo` once the folder is initialised.
 */
export async function run_init(io: Io, options: { yes: boolean }): Promise<number> {
  let setup: WizardResult | undefined;
  if (!options.yes && is_interactive() && needs_wizard()) {
    setup = await run_wizard(io, { for_init: true, project_root: io.cwd });
    if (setup.status === "cancelled") return CANCELLED;
  }
  const { project, created } = init_project(io.cwd);
  await note_project_opened(io, project);
  const { file, layout } = project;
  io.out(
    created
      ? `Initialised air project "${file.name}" (${file.project_id})\n  shared: ${layout.shared}\n  local:  ${layout.local} (gitignored)\n`
      : `Already an air project: "${file.name}" (${file.project_id}) at ${layout.root}\n`,
  );
  // The offline demo configures no provider: the project is ready, and the demo shows what a run looks like.
  if (setup?.status === "configured" && setup.provider === DEMO_PROVIDER) return (await import("./demo.js")).run_demo(io, { keep: false });
  return 0;
}

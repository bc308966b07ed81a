import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";

const DATABASE = "compile_commands.json";
/** Where air's configure and common hand setups put the database, in the order clangd should prefer them. */
const CANDIDATES = [".", "build/air", "build", "out", "cmake-build-debug"];

const CompileCommand = v.looseObject({ directory: v.string(), file: v.string() });
const CompileCommands = v.array(CompileCommand);

/** The folder holding the workspace's `compile_commands.json`: a known place first, then any direct child of `build/`. */
export function find_compile_commands_dir(root: string): string | null {
  const build = path.join(root, "build");
  let children: string[] = [];
  try {
    children = fs
      .readdirSync(build, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => path.join("build", entry.name))
      .sort();
  } catch {
    // no build folder
  }
  for (const candidate of [...CANDIDATES, ...children]) {
    const dir = path.resolve(root, candidate);
    if (fs.existsSync(path.join(dir, DATABASE))) return dir;
  }
  return null;
}

/** Every translation unit the database compiles, as absolute paths (an unreadable database lists none). */
export function translation_units(dir: string | null): string[] {
  if (dir === null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(path.join(dir, DATABASE), "utf8"));
  } catch {
    return [];
  }
  const commands = v.safeParse(CompileCommands, parsed);
  if (!commands.success) return [];
  return [...new Set(commands.output.map((command) => path.resolve(command.directory, command.file)))].sort();
}

import path from "node:path";
import { COMPILE_CASES } from "./cases/compile.js";
import type { CompileCase } from "./cases/types.js";
import { LAYOUTS, expected, project_root, run, write_project } from "./capture.js";
import { record } from "./corpus.js";

/**
 * Hand-written builds that compile from a subfolder with relative paths, as many Make and Ninja projects do:
 * a recursive make (`make -C src`, so make prints `Entering directory`) and a ninja whose commands start with
 * `cd src &&`. The compiler then prints `main.cpp:2:3: error: …`, and only the framing says it is src/main.cpp.
 */

const CXX = "g++ -Wall -Wextra -Iinclude";

function in_src(project: CompileCase): CompileCase {
  const files = Object.fromEntries(Object.entries(project.files).map(([name, text]) => [`src/${name}`, text]));
  const expect = project.expect.map((entry) => ({ ...entry, file: entry.file === null ? null : `src/${entry.file}` }));
  return { ...project, files, bug_file: `src/${project.bug_file}`, expect };
}

function makefiles(sources: readonly string[]): Record<string, string> {
  const objects = sources.map((source) => source.replace(/\.cpp$/, ".o"));
  const rules = sources.map((source, index) => `${objects[index]}: ${source}\n\t${CXX} -c ${source} -o ${objects[index]}\n`).join("");
  return {
    Makefile: "all:\n\t$(MAKE) -C src\n",
    "src/Makefile": `app: ${objects.join(" ")}\n\tg++ -o app ${objects.join(" ")}\n${rules}`,
  };
}

function ninja_file(sources: readonly string[]): Record<string, string> {
  const builds = sources.map((source) => `build out/${source.replace(/\.cpp$/, ".o")}: cxx src/${source}\n  name = ${source}\n`).join("");
  return {
    // No description, so ninja's status line shows each command with its `cd`, as many hand-written files do.
    "build.ninja": `rule cxx\n  command = cd src && ${CXX} -c $name -o ../$out\n${builds}`,
  };
}

const SYSTEMS = [
  ["make", makefiles, (root: string) => run("make", ["-k", "-j1", "-C", root], root)],
  ["ninja", ninja_file, (root: string) => run("ninja", ["-k", "0", "-j2", "-C", root], root)],
] as const;

export function relative_corpus(): void {
  const layouts = LAYOUTS.filter(([name]) => name === "base" || name === "shift5" || name === "moved");
  for (const original of COMPILE_CASES) {
    const project = in_src(original);
    for (const [system, files_of, build] of SYSTEMS) {
      for (const [name, layout] of layouts) {
        const root = project_root(project.id, layout);
        const files = write_project(root, project, layout, files_of(original.sources));
        const text = build(root);
        record(`relative/${project.id}/${system}-${name}.txt`, text, {
          root,
          build_dirs: [path.join(root, "out")],
          stability: `relative/${project.id}`,
          cause: `compile/${project.id}`,
          framing: system,
          expected: expected(files, project.expect, "gcc"),
        });
      }
    }
  }
}

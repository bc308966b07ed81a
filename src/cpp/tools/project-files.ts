import fs from "node:fs";
import path from "node:path";
import * as v from "valibot";

/** How deep detection looks for build folders, CMake lists and sources: enough for `build/air`, `src/lib/x.cpp`. */
const MAX_DEPTH = 3;
const MAX_FILES_READ = 300;
const MAX_BYTES_READ = 64 * 1024;
const SKIPPED = new Set([".git", ".air", "node_modules", ".cache", ".cmake", "CMakeFiles", "_deps"]);
const SOURCE = /\.(c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx)$/;

export const TestFramework = v.picklist(["ctest", "googletest", "catch2"]);
type TestFramework = v.InferOutput<typeof TestFramework>;

/** What names a framework in CMake lists, and in a source file (CTest has no sources of its own). */
const FRAMEWORK_MARKS: Readonly<Record<TestFramework, { cmake: RegExp; source: RegExp | null }>> = {
  ctest: { cmake: /\b(enable_testing|add_test)\s*\(|\binclude\s*\(\s*CTest\s*\)/i, source: null },
  googletest: {
    cmake: /\bfind_package\s*\(\s*GTest\b|\bGTest::|\bgtest(_main)?\b|\bgtest_(discover|add)_tests\s*\(/,
    source: /#\s*include\s*[<"](gtest|gmock)\//,
  },
  catch2: { cmake: /\bfind_package\s*\(\s*Catch2\b|\bCatch2::|\bcatch_discover_tests\s*\(/, source: /#\s*include\s*[<"]catch2?\// },
};

/** What the project's files say, without running anything. */
export type ProjectFiles = {
  cmake_lists: string[];
  presets: string[];
  makefile: string | null;
  compile_commands: string[];
  build_dirs: string[];
  test_frameworks: TestFramework[];
};

type Walked = { files: string[]; folders: string[] };

function walk(root: string): Walked {
  const walked: Walked = { files: [], folders: [] };
  const visit = (folder: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, folder), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const relative = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (entry.isFile()) walked.files.push(relative);
      else if (entry.isDirectory() && !SKIPPED.has(entry.name) && depth < MAX_DEPTH) {
        walked.folders.push(relative);
        visit(relative, depth + 1);
      }
    }
  };
  visit("", 0);
  return walked;
}

function head_of(file: string): string {
  try {
    const fd = fs.openSync(file, "r");
    try {
      const buffer = Buffer.alloc(MAX_BYTES_READ);
      return buffer.subarray(0, fs.readSync(fd, buffer, 0, MAX_BYTES_READ, 0)).toString("utf8");
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return "";
  }
}

const Presets = v.object({ configurePresets: v.optional(v.array(v.object({ name: v.string(), hidden: v.optional(v.boolean()) })), []) });

/** The visible configure presets of CMakePresets.json (and CMakeUserPresets.json). */
function preset_names(root: string): string[] {
  return ["CMakePresets.json", "CMakeUserPresets.json"].flatMap((name) => {
    try {
      const parsed = v.safeParse(Presets, JSON.parse(fs.readFileSync(path.join(root, name), "utf8")));
      return parsed.success ? parsed.output.configurePresets.filter((preset) => preset.hidden !== true).map((preset) => preset.name) : [];
    } catch {
      return [];
    }
  });
}

function frameworks(root: string, walked: Walked, cmake_lists: readonly string[]): TestFramework[] {
  const sources = walked.files.filter((file) => SOURCE.test(file)).slice(0, MAX_FILES_READ);
  const cmake_text = cmake_lists.map((file) => head_of(path.join(root, file))).join("\n");
  const found = new Set<TestFramework>();
  for (const name of TestFramework.options) if (FRAMEWORK_MARKS[name].cmake.test(cmake_text)) found.add(name);
  for (const file of sources) {
    const text = head_of(path.join(root, file));
    for (const name of TestFramework.options) if (FRAMEWORK_MARKS[name].source?.test(text) === true) found.add(name);
  }
  return TestFramework.options.filter((name) => found.has(name));
}

export function project_files(root: string): ProjectFiles {
  const walked = walk(root);
  const build_dirs = walked.folders.filter((folder) => fs.existsSync(path.join(root, folder, "CMakeCache.txt")));
  const in_build = (file: string) => build_dirs.some((folder) => file.startsWith(`${folder}/`));
  const cmake_lists = walked.files.filter((file) => path.posix.basename(file) === "CMakeLists.txt" && !in_build(file));
  const compile_commands = walked.files.filter(
    (file) => file === "compile_commands.json" || (path.posix.basename(file) === "compile_commands.json" && in_build(file)),
  );
  const makefile = ["GNUmakefile", "makefile", "Makefile"].find((name) => walked.files.includes(name)) ?? null;
  return {
    cmake_lists,
    presets: preset_names(root),
    makefile,
    compile_commands,
    build_dirs,
    test_frameworks: frameworks(root, walked, cmake_lists),
  };
}

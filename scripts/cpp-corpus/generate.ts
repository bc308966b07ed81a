/**
 * Builds the parser corpus (test/fixtures/cpp-diagnostics/corpus/): seeded-bug mini projects run through gcc 12,
 * clang 14, ld/gold/lld, cmake, ctest, GoogleTest, the sanitizers, gdb and cppcheck, each output checked in as
 * printed, with the diagnostics the seeded bug must produce (from its marker line) in manifest.json.
 *   npx tsx scripts/cpp-corpus/generate.ts [PART]
 * PART (compile, link, cmake, run, cppcheck, test, gcc-json, relative) rebuilds that part alone and keeps the rest.
 * Sequential and at most -j2, so it can share a small machine; it takes some minutes.
 */
import path from "node:path";
import { relative_corpus } from "./relative.js";
import { COMPILE_CASES } from "./cases/compile.js";
import { CMAKE_CASES, LINK_CASES } from "./cases/link.js";
import { CPPCHECK_CASES, GDB_CASES, SANITIZER_CASES, TEST_CASES } from "./cases/run.js";
import { BASE, COMPILERS, type Compiler, LAYOUTS, type Layout, cmake_configure, expected, project_root, run, write_project } from "./capture.js";
import { record, write_corpus } from "./corpus.js";

function cmake_lists(sources: readonly string[], extra: string): string {
  return `cmake_minimum_required(VERSION 3.20)\nproject(seeded CXX)\nadd_executable(app ${sources.join(" ")})\ntarget_include_directories(app PRIVATE include)\n${extra}`;
}

interface BuildVariant {
  readonly name: string;
  readonly layout: Layout;
  readonly generator: "Ninja" | "Unix Makefiles";
  readonly flags: string;
}

function build_variants(colour: boolean): BuildVariant[] {
  const ninja = LAYOUTS.map(([name, layout]) => ({ name, layout, generator: "Ninja" as const, flags: "-Wall -Wextra" }));
  const more: BuildVariant[] = [{ name: "make", layout: BASE, generator: "Unix Makefiles", flags: "-Wall -Wextra" }];
  if (colour) more.push({ name: "colour", layout: BASE, generator: "Ninja", flags: "-Wall -Wextra -fdiagnostics-color=always" });
  return [...ninja, ...more];
}

/** Configures and builds with -k so every failing job prints; the build's output is the corpus entry. */
function build(root: string, variant: BuildVariant, compiler: Compiler, linker_flags: string): string {
  const configure = cmake_configure(root, variant.layout.build, [
    "-G",
    variant.generator,
    `-DCMAKE_CXX_COMPILER=${COMPILERS[compiler]}`,
    `-DCMAKE_CXX_FLAGS=${variant.flags}`,
    "-DCMAKE_BUILD_TYPE=Debug",
    `-DCMAKE_EXE_LINKER_FLAGS=${linker_flags}`,
  ]);
  if (!configure.includes("Build files have been written")) throw new Error(`configure failed in ${root}:\n${configure}`);
  const keep_going = variant.generator === "Ninja" ? ["--", "-k", "0"] : ["--", "-k"];
  const jobs = variant.generator === "Ninja" ? "2" : "1";
  return run("cmake", ["--build", path.join(root, variant.layout.build), "-j", jobs, ...keep_going], root);
}

function compile_corpus(): void {
  for (const project of COMPILE_CASES) {
    for (const compiler of ["gcc", "clang"] as const) {
      for (const variant of build_variants(true)) {
        const root = project_root(project.id, variant.layout);
        const files = write_project(root, project, variant.layout, { "CMakeLists.txt": cmake_lists(project.sources, "") });
        const text = build(root, variant, compiler, "");
        record(`compile/${project.id}/${compiler}-${variant.name}.txt`, text, {
          root,
          build_dirs: [path.join(root, variant.layout.build)],
          stability: `compile/${project.id}/${compiler}`,
          cause: `compile/${project.id}`,
          framing: variant.generator === "Ninja" ? "ninja" : "make",
          expected: expected(files, project.expect, compiler),
        });
      }
    }
  }
}

/** GCC's JSON format alone (-fdiagnostics-format=json), for the adapter that reads it when no text is printed. */
function gcc_json_corpus(): void {
  for (const project of COMPILE_CASES) {
    for (const [name, layout] of LAYOUTS) {
      const variant: BuildVariant = { name, layout, generator: "Ninja", flags: "-Wall -Wextra -fdiagnostics-format=json" };
      const root = project_root(project.id, layout);
      const files = write_project(root, project, layout, { "CMakeLists.txt": cmake_lists(project.sources, "") });
      record(`gcc-json/${project.id}/${name}.txt`, build(root, variant, "gcc", ""), {
        root,
        build_dirs: [path.join(root, layout.build)],
        stability: `gcc-json/${project.id}`,
        cause: `compile/${project.id}`,
        framing: "ninja",
        expected: expected(files, project.expect, "gcc"),
      });
    }
  }
}

function link_corpus(): void {
  for (const project of LINK_CASES) {
    for (const linker of ["bfd", "gold", "lld"] as const) {
      for (const variant of build_variants(false).filter((v) => v.name !== "shift1" && v.name !== "shift50")) {
        const root = project_root(project.id, variant.layout);
        const files = write_project(root, project, variant.layout, { "CMakeLists.txt": cmake_lists(project.sources, project.cmake ?? "") });
        const text = build(root, variant, "gcc", `-fuse-ld=${linker}`);
        record(`link/${project.id}/${linker}-${variant.name}.txt`, text, {
          root,
          build_dirs: [path.join(root, variant.layout.build)],
          stability: `link/${project.id}/${linker}`,
          cause: `link/${project.id}`,
          framing: variant.generator === "Ninja" ? "ninja" : "make",
          expected: expected(files, project.expect, "gcc"),
        });
      }
    }
  }
}

function cmake_corpus(): void {
  for (const project of CMAKE_CASES) {
    for (const variant of build_variants(false)) {
      const root = project_root(project.id, variant.layout);
      const files = write_project(root, project, variant.layout, {});
      const text = cmake_configure(root, variant.layout.build, ["-G", variant.generator, "-DCMAKE_CXX_COMPILER=/usr/bin/g++"]);
      record(`cmake/${project.id}/${variant.name}.txt`, text, {
        root,
        build_dirs: [path.join(root, variant.layout.build)],
        stability: `cmake/${project.id}`,
        cause: `cmake/${project.id}`,
        framing: null,
        expected: expected(files, project.expect, "gcc"),
      });
    }
  }
}

const RUN_LAYOUTS = LAYOUTS.filter(([name]) => name !== "build-renamed");

function run_corpus(): void {
  for (const [kind, cases, compilers] of [
    ["sanitizer", SANITIZER_CASES, ["gcc"]],
    ["gdb", GDB_CASES, ["gcc"]],
  ] as const) {
    for (const project of cases) {
      for (const compiler of compilers) {
        for (const [name, layout] of RUN_LAYOUTS) {
          const root = project_root(project.id, layout);
          const files = write_project(root, project, layout, {});
          run(COMPILERS[compiler], ["-g", "-O0", ...project.flags, path.join(root, "main.cpp"), "-o", path.join(root, "app")], root);
          const text = kind === "gdb" ? run("gdb", ["-batch", "-ex", "run", "-ex", "bt", "--args", "./app"], root) : run("./app", [], root);
          record(`${kind}/${project.id}/${compiler}-${name}.txt`, text, {
            root,
            build_dirs: [],
            stability: `${kind}/${project.id}/${compiler}`,
            cause: `${kind}/${project.id}`,
            framing: null,
            expected: expected(files, project.expect, compiler),
          });
        }
      }
    }
  }
}

function cppcheck_corpus(): void {
  for (const project of CPPCHECK_CASES) {
    for (const [name, layout] of RUN_LAYOUTS) {
      const root = project_root(project.id, layout);
      const files = write_project(root, project, layout, {});
      const text = run("cppcheck", ["--xml", "--enable=warning", path.join(root, "main.cpp")], root, "stderr");
      record(`cppcheck/${project.id}/${name}.xml`, text, {
        root,
        build_dirs: [],
        stability: `cppcheck/${project.id}`,
        cause: `cppcheck/${project.id}`,
        framing: null,
        expected: expected(files, project.expect, "gcc"),
      });
    }
  }
}

const TEST_LISTS =
  "cmake_minimum_required(VERSION 3.20)\nproject(seeded CXX)\nfind_package(GTest REQUIRED)\nenable_testing()\nadd_executable(unit test.cpp)\ntarget_link_libraries(unit GTest::gtest_main)\ninclude(GoogleTest)\ngtest_discover_tests(unit)\n";

function test_corpus(): void {
  for (const project of TEST_CASES) {
    for (const [name, layout] of LAYOUTS) {
      const root = project_root(project.id, layout);
      const files = write_project(root, project, layout, { "CMakeLists.txt": TEST_LISTS });
      const build_dir = path.join(root, layout.build);
      cmake_configure(root, layout.build, ["-G", "Ninja", "-DCMAKE_CXX_COMPILER=/usr/bin/g++"]);
      run("cmake", ["--build", build_dir, "-j", "2"], root);
      run("ctest", ["--test-dir", build_dir, "--output-junit", "junit.xml"], root);
      const outputs: [string, string][] = [
        ["junit.xml", run("cat", [path.join(build_dir, "junit.xml")], root)],
        ["text.txt", run("ctest", ["--test-dir", build_dir, "--output-on-failure"], root)],
      ];
      run(path.join(build_dir, "unit"), [`--gtest_output=json:${path.join(build_dir, "gtest.json")}`], root);
      outputs.push(["gtest.json", run("cat", [path.join(build_dir, "gtest.json")], root)]);
      for (const [format, text] of outputs) {
        const stem = format.replace(/\..*$/, "");
        record(`test/${project.id}/${stem}-${name}.${format.split(".")[1]}`, text, {
          root,
          build_dirs: [build_dir],
          stability: `test/${project.id}/${stem}`,
          cause: `test/${project.id}`,
          framing: null,
          expected: expected(files, project.expect, "gcc"),
        });
      }
    }
  }
}

write_corpus(process.argv[2], [
  { name: "compile", outputs: ["compile"], build: compile_corpus },
  { name: "link", outputs: ["link"], build: link_corpus },
  { name: "cmake", outputs: ["cmake"], build: cmake_corpus },
  { name: "run", outputs: ["sanitizer", "gdb"], build: run_corpus },
  { name: "cppcheck", outputs: ["cppcheck"], build: cppcheck_corpus },
  { name: "test", outputs: ["test"], build: test_corpus },
  { name: "gcc-json", outputs: ["gcc-json"], build: gcc_json_corpus },
  { name: "relative", outputs: ["relative"], build: relative_corpus },
]);

/**
 * What a project is made of, from file names alone (the scanner reads no contents): languages by
 * extension, build systems and test frameworks by the names of their manifest and config files.
 */

const LANGUAGE_OF_EXTENSION: Readonly<Record<string, string>> = {
  ".ts": "TypeScript",
  ".tsx": "TypeScript",
  ".mts": "TypeScript",
  ".cts": "TypeScript",
  ".js": "JavaScript",
  ".jsx": "JavaScript",
  ".mjs": "JavaScript",
  ".cjs": "JavaScript",
  ".py": "Python",
  ".pyi": "Python",
  ".c": "C",
  ".h": "C",
  ".cc": "C++",
  ".cpp": "C++",
  ".cxx": "C++",
  ".c++": "C++",
  ".hh": "C++",
  ".hpp": "C++",
  ".hxx": "C++",
  ".ipp": "C++",
  ".rs": "Rust",
  ".go": "Go",
  ".java": "Java",
  ".kt": "Kotlin",
  ".kts": "Kotlin",
  ".scala": "Scala",
  ".swift": "Swift",
  ".m": "Objective-C",
  ".mm": "Objective-C++",
  ".cs": "C#",
  ".fs": "F#",
  ".rb": "Ruby",
  ".php": "PHP",
  ".pl": "Perl",
  ".lua": "Lua",
  ".zig": "Zig",
  ".dart": "Dart",
  ".ex": "Elixir",
  ".exs": "Elixir",
  ".erl": "Erlang",
  ".hs": "Haskell",
  ".ml": "OCaml",
  ".r": "R",
  ".jl": "Julia",
  ".sh": "Shell",
  ".bash": "Shell",
  ".zsh": "Shell",
  ".ps1": "PowerShell",
  ".sql": "SQL",
  ".html": "HTML",
  ".htm": "HTML",
  ".css": "CSS",
  ".scss": "SCSS",
  ".sass": "SCSS",
  ".vue": "Vue",
  ".svelte": "Svelte",
  ".cmake": "CMake",
  ".proto": "Protocol Buffers",
  ".md": "Markdown",
  ".rst": "reStructuredText",
};

const LANGUAGE_OF_NAME: Readonly<Record<string, string>> = {
  "CMakeLists.txt": "CMake",
  Makefile: "Makefile",
  makefile: "Makefile",
  GNUmakefile: "Makefile",
  Dockerfile: "Dockerfile",
};

const BUILD_SYSTEM_OF_NAME: Readonly<Record<string, string>> = {
  "CMakeLists.txt": "cmake",
  "package.json": "npm",
  "Cargo.toml": "cargo",
  "pyproject.toml": "python (pyproject)",
  "setup.py": "python (setuptools)",
  "go.mod": "go modules",
  Makefile: "make",
  makefile: "make",
  GNUmakefile: "make",
  "meson.build": "meson",
  "build.gradle": "gradle",
  "build.gradle.kts": "gradle",
  "pom.xml": "maven",
  "MODULE.bazel": "bazel",
  WORKSPACE: "bazel",
  "BUILD.bazel": "bazel",
  "configure.ac": "autotools",
  "build.zig": "zig",
  Gemfile: "bundler",
  "composer.json": "composer",
  "mix.exs": "mix",
  "Package.swift": "swift package manager",
  "deno.json": "deno",
  "build.sbt": "sbt",
  "stack.yaml": "stack",
};

const BUILD_SYSTEM_OF_EXTENSION: Readonly<Record<string, string>> = {
  ".sln": "dotnet",
  ".csproj": "dotnet",
  ".fsproj": "dotnet",
  ".cabal": "cabal",
};

const TEST_FRAMEWORK_PATTERNS: readonly (readonly [RegExp, string])[] = [
  [/^vitest\.(config|workspace)\.[cm]?[jt]s$/, "vitest"],
  [/^jest\.config\.[cm]?[jt]s(on)?$/, "jest"],
  [/^\.mocharc(\.[a-z]+)?$/, "mocha"],
  [/^playwright\.config\.[cm]?[jt]s$/, "playwright"],
  [/^cypress\.config\.[cm]?[jt]s$/, "cypress"],
  [/^karma\.conf\.[cm]?[jt]s$/, "karma"],
  [/^(pytest\.ini|conftest\.py)$/, "pytest"],
  [/^tox\.ini$/, "tox"],
  [/^phpunit\.xml(\.dist)?$/, "phpunit"],
  [/^\.rspec$/, "rspec"],
  [/^CTestConfig\.cmake$/, "ctest"],
];

/** Test source files by their naming conventions (`*.test.ts`, `test_x.py`, `x_test.go`, `FooTest.java` …). */
const TEST_FILE = /(\.(test|spec)\.[cm]?[jt]sx?$)|(^test_.*\.py$)|(_test\.(py|go|cc|cpp|c|rs)$)|(Tests?\.(java|kt|cs|swift)$)|(_spec\.rb$)/;

/**
 * Folders whose files are dependencies, build output or tool state rather than the project's sources:
 * listed like every other folder, but left out of the language and build-system summary.
 */
const NOT_SOURCE_FOLDERS = new Set([
  ".git",
  ".hg",
  ".svn",
  ".air",
  "node_modules",
  "bower_components",
  "vendor",
  "third_party",
  "build",
  "dist",
  "out",
  "target",
  "bin",
  "obj",
  "coverage",
  ".next",
  ".nuxt",
  ".cache",
  "__pycache__",
  ".venv",
  "venv",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".gradle",
  ".idea",
  ".vscode",
  "cmake-build-debug",
  "cmake-build-release",
]);

function extension_of(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? "" : name.slice(dot).toLowerCase();
}

export function language_of(name: string): string | undefined {
  return LANGUAGE_OF_NAME[name] ?? LANGUAGE_OF_EXTENSION[extension_of(name)];
}

export function build_system_of(name: string): string | undefined {
  return BUILD_SYSTEM_OF_NAME[name] ?? BUILD_SYSTEM_OF_EXTENSION[extension_of(name)];
}

export function test_framework_of(name: string): string | undefined {
  return TEST_FRAMEWORK_PATTERNS.find(([pattern]) => pattern.test(name))?.[1];
}

export function is_test_file(name: string): boolean {
  return TEST_FILE.test(name);
}

export function is_not_source_folder(name: string): boolean {
  return NOT_SOURCE_FOLDERS.has(name) || name.startsWith("cmake-build-");
}

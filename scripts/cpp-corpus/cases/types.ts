/**
 * The seeded-bug mini projects of the parser corpus. A bug's place is a marker comment (`// @1`, `# @1`) on the
 * line the generator planted it on, so the expected line comes from the project, never from the parser.
 */

type Severity = "fatal" | "error" | "warning" | "note";

/** One diagnostic the tool must report: the file (repo-relative), the marker of its line, or null where the tool prints none. */
export interface Expect {
  readonly file: string | null;
  readonly at: string | null;
  readonly severity: Severity;
  readonly code?: string;
  /** The compiler that reports it when the two differ. */
  readonly only?: "gcc" | "clang";
}

export interface Project {
  /** Unique, the root cause's name: different ids are different bugs. */
  readonly id: string;
  readonly files: Readonly<Record<string, string>>;
  /** The file whose marker line the stability variants shift. */
  readonly bug_file: string;
  readonly expect: readonly Expect[];
}

export interface CompileCase extends Project {
  readonly sources: readonly string[];
}

export interface LinkCase extends Project {
  readonly sources: readonly string[];
  /** Extra CMake lines after add_executable (a missing library). */
  readonly cmake?: string;
}

/** A whole CMakeLists.txt (plus any files it includes): configure output only. */
export type CmakeCase = Project;

/** A program built with -g and run; its sanitizer report or its gdb backtrace is the output. */
export interface RunCase extends Project {
  readonly flags: readonly string[];
}

export type CppcheckCase = Project;

/** A GoogleTest file run through ctest (JUnit and text) and on its own (JSON). */
export type TestCase = Project;

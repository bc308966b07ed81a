import * as v from "valibot";

/** Top-level folders no task may claim: git's own data and air's. */
const RESERVED = new Set([".git", ".air"]);

/** "./src/net/" → "src/net": one spelling per area, so overlap and matching compare like with like. */
function normalise(glob: string): string {
  return glob.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
}

const segments = (glob: string) => glob.split("/");

/**
 * One glob of a task's write area, posix, relative to the root the task works in (the project, or its
 * workspace). A glob without wildcards names a file or a folder and everything under it.
 */
export const AreaGlob = v.pipe(
  v.string(),
  v.trim(),
  v.transform(normalise),
  v.minLength(1, "a write area glob must not be empty"),
  v.check((glob) => !glob.startsWith("/") && !/^[A-Za-z]:/.test(glob), "a write area glob must be relative to the project"),
  v.check((glob) => !glob.includes("\\"), "a write area glob uses / between folders"),
  v.check((glob) => !segments(glob).includes(".."), "a write area glob must not climb out with .."),
  v.check((glob) => !segments(glob).includes("."), "a write area glob must not contain a . folder"),
  v.check((glob) => !RESERVED.has(segments(glob)[0] ?? ""), "a write area must not be in .git or .air"),
);

/**
 * The globs a task may write: at least one. A single string is the spelling of sessions recorded before
 * areas were lists, read as a list of one.
 */
export const WriteArea = v.union([
  v.pipe(v.array(AreaGlob), v.minLength(1, "a write area needs at least one glob")),
  v.pipe(
    AreaGlob,
    v.transform((glob) => [glob]),
  ),
]);
export type WriteArea = v.InferOutput<typeof WriteArea>;

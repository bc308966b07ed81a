import fs from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import type { WriteArea } from "../contracts/write-area.js";
import { within } from "./paths.js";

/** Whether `relative` (posix, from the root the task works in) is inside one of the area's globs. */
export function in_write_area(relative: string, area: WriteArea): boolean {
  return area.some((glob) =>
    picomatch.scan(glob).isGlob ? picomatch(glob, { dot: true })(relative) || picomatch(`${glob}/**`, { dot: true })(relative) : within(relative, glob),
  );
}

/**
 * The folders a sandboxed command may write for this area: each glob's literal base. A plain entry that
 * is an existing file gives its folder — bwrap binds folders, and a rename over a bound file fails — and so
 * does a missing one named like a file (`CHANGES.md`): the sandbox makes the folders it binds, and a folder
 * made under a file's name would keep the task from writing the file. So the shell sandbox is at most one
 * folder wider than the area; fs tools still check the exact globs.
 */
export function write_area_folders(real_root: string, area: WriteArea): string[] {
  const folders = area.map((glob) => {
    const scanned = picomatch.scan(glob);
    const base = path.resolve(real_root, scanned.base);
    if (scanned.isGlob) return base;
    const found = fs.statSync(base, { throwIfNoEntry: false });
    const file = found === undefined ? path.extname(base) !== "" : !found.isDirectory();
    return file ? path.dirname(base) : base;
  });
  return [...new Set(folders)];
}

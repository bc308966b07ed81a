/** Where air finds clangd: the names Debian and LLVM install it under, on PATH first. */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { find_clangd } from "../../../src/cpp/clangd/executable.js";
import { TempDirs } from "../../fixtures/processes.js";

const temps = new TempDirs();
afterEach(() => temps.cleanup());

function executable_in(folder: string, name: string, mode = 0o755): string {
  const file = path.join(folder, name);
  fs.writeFileSync(file, "#!/bin/sh\n", { mode });
  return file;
}

describe("find_clangd", () => {
  it("takes a versioned clangd on PATH when there is no unversioned one", () => {
    const bin = temps.make("air-bin-");
    const clangd = executable_in(bin, "clangd-15");
    expect(find_clangd(bin)).toBe(clangd);
  });

  it("prefers the unversioned name, and skips files that are not executable", () => {
    const first = temps.make("air-bin-");
    const second = temps.make("air-bin-");
    executable_in(first, "clangd", 0o644);
    executable_in(first, "clangd-16");
    const clangd = executable_in(second, "clangd");
    expect(find_clangd([first, second].join(path.delimiter))).toBe(clangd);
  });
});

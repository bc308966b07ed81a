/** Printed paths made stable across machines before anything is signed (research cpp-toolchain §8a). */
import { describe, expect, it } from "vitest";
import { normalise_path } from "../../../src/cpp/diagnostics/paths.js";

const root = "/home/dev/project";

describe("normalise_path", () => {
  it("makes a path inside the root repo-relative POSIX", () => {
    expect(normalise_path("/home/dev/project/src/../src/a.cpp", { root })).toBe("src/a.cpp");
    expect(normalise_path("src/./a.cpp", { root })).toBe("src/a.cpp");
  });

  it("resolves a relative path against the folder the job ran in", () => {
    expect(normalise_path("../src/a.cpp", { root, cwd: "build" })).toBe("src/a.cpp");
  });

  it("marks a named build folder as <build> so renaming it changes nothing", () => {
    expect(normalise_path("/home/dev/project/out-debug/gen/x.h", { root, build_dirs: ["out-debug"] })).toBe("<build>/gen/x.h");
    expect(normalise_path("/var/ci/b2/gen/x.h", { root, build_dirs: ["/var/ci/b2"] })).toBe("<build>/gen/x.h");
  });

  it("recognises a CMake build tree by its CMakeFiles folder when no build folder is named", () => {
    expect(normalise_path("/home/dev/project/build-x/CMakeFiles/demo.dir/a.cpp.o", { root })).toBe("<build>/CMakeFiles/demo.dir/a.cpp.o");
  });

  it("marks toolchain headers as <sys> without version or triplet folders", () => {
    expect(normalise_path("/usr/include/c++/12/bits/stl_vector.h", { root })).toBe("<sys>/c++/bits/stl_vector.h");
    expect(normalise_path("/usr/include/x86_64-linux-gnu/c++/12/bits/c++config.h", { root })).toBe("<sys>/c++/bits/c++config.h");
    expect(normalise_path("/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h", { root })).toBe("<sys>/stddef.h");
  });

  it("keeps pseudo files such as <command-line> as printed", () => {
    expect(normalise_path("<command-line>", { root })).toBe("<command-line>");
  });

  it("turns a Windows path into POSIX", () => {
    expect(normalise_path("C:\\work\\project\\src\\a.cpp", { root: "C:\\work\\project" })).toBe("src/a.cpp");
  });

  it("keeps a path outside the repository absolute", () => {
    expect(normalise_path("/srv/other/lib.h", { root })).toBe("/srv/other/lib.h");
  });
});

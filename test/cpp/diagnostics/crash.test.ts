import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse_gdb_backtrace, parse_sanitizer } from "../../../src/cpp/diagnostics/crash.js";

const FIXTURES = new URL("../../fixtures/cpp-diagnostics/structured/", import.meta.url);
const fixture = (name: string): string => readFileSync(new URL(name, FIXTURES), "utf8");
const expected = (name: string): unknown => JSON.parse(fixture(`${name}.expected.json`));

describe("parse_sanitizer", () => {
  it.each(["asan-heap-use-after-free.txt", "asan-heap-buffer-overflow.txt", "asan-segv.txt", "lsan-direct-leak.txt", "ubsan-runtime-errors.txt"])(
    "reads the real report %s into its expected records",
    (name) => {
      expect(parse_sanitizer(fixture(name))).toEqual(expected(name));
    },
  );

  it("places an ASan error at the first frame in the program's own code, the other stacks as notes", () => {
    const [report] = parse_sanitizer(fixture("asan-heap-use-after-free.txt"));
    expect(report).toMatchObject({ code: "asan.heap-use-after-free", file: "src/uaf.cpp", line: 5 });
    expect(report?.context.function).toBe("use_after_free(int)");
    expect(report?.children.map((c) => [c.message, c.line])).toEqual([
      ["freed by thread T0 here", 4],
      ["previously allocated by thread T0 here", 3],
    ]);
  });

  it("marks libc, startup and sanitizer runtime frames as not in the app", () => {
    const [leak] = parse_sanitizer(fixture("lsan-direct-leak.txt"));
    expect(leak?.frames.map((f) => [f.function, f.in_app])).toEqual([
      ["__interceptor_malloc", false],
      ["make_buffer()", true],
      ["main", true],
      ["__libc_start_call_main", false],
    ]);
  });

  it("skips installed library headers when placing an allocation note", () => {
    const [overflow] = parse_sanitizer(fixture("asan-heap-buffer-overflow.txt"));
    expect(overflow?.children[0]).toMatchObject({ message: "allocated by thread T0 here", file: "src/overflow.cpp", line: 4 });
  });

  it("reads each UBSan runtime error at its printed location, its kind as the code", () => {
    const errors = parse_sanitizer(fixture("ubsan-runtime-errors.txt"));
    expect(errors.map((e) => [e.code, e.line, e.column])).toEqual([
      ["ubsan.signed-integer-overflow", 3, 33],
      ["ubsan.runtime-error", 8, 25],
    ]);
  });

  it("finds a report among other output, with colour and CRLF line ends", () => {
    const noisy = `test starting\r\n\u001b[1m\u001b[31m${fixture("asan-segv.txt").replaceAll("\n", "\r\n")}\u001b[0m\r\nmore output\r\n`;
    expect(parse_sanitizer(noisy)).toEqual(parse_sanitizer(fixture("asan-segv.txt")));
  });

  it("keeps what a truncated report holds and reads nothing from text without a report", () => {
    const text = fixture("asan-heap-use-after-free.txt");
    const truncated = text.slice(0, text.indexOf("freed by"));
    expect(parse_sanitizer(truncated)[0]).toMatchObject({ code: "asan.heap-use-after-free", line: 5, children: [] });
    expect(parse_sanitizer("\u0000\u00ff binary \u0001")).toEqual([]);
  });
});

describe("parse_gdb_backtrace", () => {
  it.each(["gdb-segv-bt-full.txt", "gdb-abort-bt.txt"])("reads the real gdb output %s into its expected record", (name) => {
    expect(parse_gdb_backtrace(fixture(name))).toEqual(expected(name));
  });

  it("places a crash at the first frame in the program past libc and libstdc++", () => {
    const [abort] = parse_gdb_backtrace(fixture("gdb-abort-bt.txt"));
    expect(abort).toMatchObject({ severity: "fatal", code: "gdb.SIGABRT", file: "src/abort.cpp", line: 5 });
    expect(abort?.context.function).toBe("parse_port");
    expect(abort?.frames.filter((f) => f.in_app).map((f) => f.function)).toEqual(["parse_port", "main"]);
  });

  it("reads function names without their arguments, and bt full's locals not as frames", () => {
    const [segv] = parse_gdb_backtrace(fixture("gdb-segv-bt-full.txt"));
    expect(segv?.frames.map((f) => [f.index, f.function, f.file, f.line])).toEqual([
      [0, "sum", "src/segv.cpp", 5],
      [1, "main", "src/segv.cpp", 10],
    ]);
  });

  it("reads nothing from a run that exited without a stack", () => {
    expect(parse_gdb_backtrace("[Inferior 1 (process 15311) exited with code 01]\nNo stack.\n")).toEqual([]);
  });
});

/** sig/v1: the family says what kind of failure, the semantic signature which root cause; neither sees a line number. */
import { describe, expect, it } from "vitest";
import type { Frame, ParsedDiagnostic } from "../../../src/cpp/diagnostics/record.js";
import { family_signature, message_template, semantic_signature, trim_function_name } from "../../../src/cpp/diagnostics/signature.js";

function diagnostic(fields: Partial<ParsedDiagnostic>): ParsedDiagnostic {
  return {
    severity: "error",
    file: "src/a.cpp",
    line: 10,
    column: 5,
    code: null,
    message: "'x' was not declared in this scope",
    source: "gcc",
    children: [],
    context: { include_chain: [], instantiation: [], function: "int f()", target: null },
    fixits: [],
    frames: [],
    job: null,
    ...fields,
  };
}

function frame(index: number, name: string, file: string, in_app: boolean): Frame {
  return { index, function: name, file, line: index + 1, column: null, in_app };
}

describe("message_template", () => {
  it("masks quoted spans in every quoting style and records them as symbols", () => {
    const { template, symbols } = message_template("‘a’ and 'b' and `c' differ");
    expect(template).toBe("{q} and {q} and {q} differ");
    expect(symbols).toEqual(["a", "b", "c"]);
  });

  it("masks numbers, addresses, section offsets, pids and temp objects", () => {
    expect(message_template("==4242== at 0x7f00 in /tmp/ccAb12.o:(.text+0x1f) after 3 tries").template).toBe(
      "=={pid}== at {hex} in {tmp}:({section}) after {n} tries",
    );
  });

  it("drops [with …] and {aka …} clauses and collapses template arguments", () => {
    const { template } = message_template("no match for std::vector<std::pair<int, long> > [with T = int] {aka unsigned}");
    expect(template).toBe("no match for std::vector<T>");
  });
});

describe("trim_function_name", () => {
  it("drops argument lists, template arguments and trailing qualifiers, keeping the last name", () => {
    expect(trim_function_name("std::vector<int>::at(unsigned long) const")).toBe("std::vector<T>::at");
    expect(trim_function_name("int main(int, char**)")).toBe("main");
  });
});

describe("family_signature", () => {
  it("is versioned sha256", () => {
    expect(family_signature(diagnostic({}))).toMatch(/^sig\/v1:[0-9a-f]{64}$/);
  });

  it("is the same for the same kind of failure on another symbol, file or compiler", () => {
    const other = diagnostic({ message: "'y' was not declared in this scope", file: "lib/b.cpp", source: "clang" });
    expect(family_signature(other)).toBe(family_signature(diagnostic({})));
  });

  it("differs between an error and a warning, and between codes", () => {
    expect(family_signature(diagnostic({ severity: "warning" }))).not.toBe(family_signature(diagnostic({})));
    expect(family_signature(diagnostic({ code: "-Wshadow" }))).not.toBe(family_signature(diagnostic({})));
  });
});

describe("semantic_signature", () => {
  const base = semantic_signature(diagnostic({}));

  it("never depends on the line or column", () => {
    expect(semantic_signature(diagnostic({ line: 60, column: 1 }))).toBe(base);
  });

  it("is the same whichever job or target printed it and however the file was reached", () => {
    const context = { include_chain: [{ file: "src/main.cpp", line: 2, column: null }], instantiation: [], function: "int f()", target: "a.o" };
    expect(semantic_signature(diagnostic({ job: "b.o", context }))).toBe(base);
  });

  it("ignores temp object names inside a symbol", () => {
    const first = diagnostic({ source: "ld", message: "undefined reference to `g()' from '/tmp/ccAAAA.o'" });
    const second = diagnostic({ source: "ld", message: "undefined reference to `g()' from '/tmp/ccBBBB.o'" });
    expect(semantic_signature(first)).toBe(semantic_signature(second));
  });

  it("differs by symbol, by file and by enclosing function", () => {
    expect(semantic_signature(diagnostic({ message: "'y' was not declared in this scope" }))).not.toBe(base);
    expect(semantic_signature(diagnostic({ file: "src/b.cpp" }))).not.toBe(base);
    const elsewhere = diagnostic({ context: { include_chain: [], instantiation: [], function: "int g()", target: null } });
    expect(semantic_signature(elsewhere)).not.toBe(base);
  });

  it("keeps overloads apart by the parameter list of a linker symbol", () => {
    const int_overload = diagnostic({ source: "ld", message: "undefined reference to `missing(int)'" });
    const long_overload = diagnostic({ source: "ld", message: "undefined reference to `missing(long)'" });
    expect(semantic_signature(int_overload)).not.toBe(semantic_signature(long_overload));
  });

  it("anchors a crash on its top three in-app frames, skipping runtime frames", () => {
    const crash = (frames: Frame[]): string =>
      semantic_signature(diagnostic({ source: "sanitizer", code: "heap-use-after-free", message: "heap-use-after-free on address 0x6020", frames }));
    const app = [frame(1, "use(int*)", "src/a.cpp", true), frame(2, "run()", "src/b.cpp", true), frame(3, "main", "src/main.cpp", true)];
    const with_runtime = [frame(0, "__interceptor_free", "<sys>/asan.cpp", false), ...app];
    expect(crash(with_runtime)).toBe(crash(app));
    expect(crash(app.slice(0, 1))).not.toBe(crash(app));
  });
});

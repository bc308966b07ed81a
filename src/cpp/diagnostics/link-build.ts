import type { ChildDiagnostic, DiagnosticSource, ParsedDiagnostic, Severity } from "./record.js";

interface Draft {
  readonly source: DiagnosticSource;
  readonly severity: Severity;
  readonly file?: string | null;
  readonly line?: number | null;
  readonly code: string | null;
  readonly message: string;
  readonly function?: string | null;
  readonly children?: ChildDiagnostic[];
}

function record(draft: Draft): ParsedDiagnostic {
  return {
    severity: draft.severity,
    file: draft.file ?? null,
    line: draft.line ?? null,
    column: null,
    code: draft.code,
    message: draft.message,
    source: draft.source,
    children: draft.children ?? [],
    context: { include_chain: [], instantiation: [], function: draft.function ?? null, target: null },
    fixits: [],
    frames: [],
    job: null,
  };
}

function note(message: string, file: string | null = null, line: number | null = null): ChildDiagnostic {
  return { severity: "note", file, line, column: null, code: null, message };
}

const LD_TOOL = String.raw`(?:\S*/)?(?:ld(?:\.bfd|\.gold)?|collect2)`;
const LD_IN_FUNCTION = new RegExp(String.raw`^${LD_TOOL}: (.+?): in function [\`'](.+)':$`);
const LD_AT = /^([^\s:][^:]*):(?:\((\.[^)]*)\)|(\d+)): (undefined reference to|multiple definition of) (.+)$/;
const LD_LINE = new RegExp(String.raw`^${LD_TOOL}: (?:(error|warning): )?(.+)$`);
const GOLD_AT = /^([^:\s]+):([^:]+):function (.+): (error|warning): (undefined reference to|multiple definition of) (.+)$/;
// gold with debug info names the source line itself: `/src/main.cpp:3: error: undefined reference to 'f()'`.
const GOLD_LINE_AT = /^([^\s:][^:]*):(\d+): (error|warning): (undefined reference to|multiple definition of) (.+)$/;
const LLD_LINE = /^(?:\S*\/)?(?:ld\.lld|lld|ld64\.lld): (error|warning): (.+)$/;
const LLD_DETAIL = /^>>> (?:referenced by|defined at) ([^\s:]+):(\d+)(?: \(([^:]+):\d+\))?$/;
const CMAKE_HEAD = /^CMake (Error|Warning)(?: \(dev\))? (?:at (.+?):(\d+) \((\w+)\)|in (.+)):$/;
const CMAKE_LINE = /^CMake (Error|Warning)(?: \(dev\))?: (.+)$/;
const CMAKE_STACK_HEAD = "Call Stack (most recent call first):";
const CMAKE_STACK_FRAME = /^\s+(.+?):(\d+) \((\w+)\)$/;
const MAKE_NO_RULE = /^(?:g?make)(?:\[\d+\])?: \*\*\* (No rule to make target .+?)\.\s+Stop\.$/;
const LD_SUMMARY = /^collect2: error: ld returned \d+ exit status$|^clang(?:\+\+)?: error: linker command failed/;
/** CMake's object naming, `CMakeFiles/<target>.dir/<source>.o`, names the source ld only gives by basename. */
const CMAKE_OBJECT = /CMakeFiles\/[^/]+\.dir\/(.+)\.o(?:bj)?$/;

function code_of(kind: string): string {
  return kind.startsWith("undefined") ? "ld.undefined-reference" : "ld.multiple-definition";
}

function source_of(printed: string, object: string | null): string {
  const from_object = object === null ? undefined : CMAKE_OBJECT.exec(object)?.[1];
  const base = printed.slice(printed.lastIndexOf("/") + 1);
  return from_object?.endsWith(base) ? from_object : printed;
}

/** `… multiple definition of `f()'; OBJ:SRC:(.text+0x0): first defined here` keeps the first definition as a note. */
function split_first_definition(rest: string): { message: string; children: ChildDiagnostic[] } {
  const at = rest.indexOf("; ");
  if (at < 0) return { message: rest, children: [] };
  const where = /^(?:(.+?\.o(?:bj)?):)?([^:]+):(?:\(\.[^)]*\)|(\d+)): first defined here$/.exec(rest.slice(at + 2));
  if (where === null) return { message: rest, children: [] };
  const file = source_of(where[2] ?? "", where[1] ?? null);
  return { message: rest.slice(0, at), children: [note("first defined here", file, where[3] === undefined ? null : Number(where[3]))] };
}

interface State {
  readonly out: ParsedDiagnostic[];
  object: string | null;
  function: string | null;
  /** The lld or CMake record whose continuation lines are being read. */
  open: { readonly kind: "lld" | "cmake"; readonly diagnostic: ParsedDiagnostic; readonly body: string[] } | null;
}

function read_ld(line: string, state: State): boolean {
  const context = LD_IN_FUNCTION.exec(line);
  if (context !== null) {
    state.object = context[1] ?? null;
    state.function = context[2] ?? null;
    return true;
  }
  const at = LD_AT.exec(line);
  if (at !== null) {
    const kind = at[4] ?? "";
    const { message, children } = split_first_definition(`${kind} ${at[5] ?? ""}`);
    const file = source_of(at[1] ?? "", state.object);
    const line_number = at[3] === undefined ? null : Number(at[3]);
    state.out.push(record({ source: "ld", severity: "error", file, line: line_number, code: code_of(kind), message, function: state.function, children }));
    return true;
  }
  const gold = GOLD_AT.exec(line);
  if (gold !== null) {
    const kind = gold[5] ?? "";
    state.out.push(
      record({
        source: "ld",
        severity: gold[4] === "warning" ? "warning" : "error",
        file: gold[2] ?? null,
        code: code_of(kind),
        message: `${kind} ${gold[6] ?? ""}`,
        function: gold[3] ?? null,
      }),
    );
    return true;
  }
  const gold_line = GOLD_LINE_AT.exec(line);
  if (gold_line !== null) {
    const kind = gold_line[4] ?? "";
    const severity = gold_line[3] === "warning" ? "warning" : "error";
    state.out.push(
      record({ source: "ld", severity, file: gold_line[1] ?? null, line: Number(gold_line[2]), code: code_of(kind), message: `${kind} ${gold_line[5] ?? ""}` }),
    );
    return true;
  }
  if (LD_SUMMARY.test(line)) return true;
  const plain = LD_LINE.exec(line);
  if (plain === null) return false;
  const message = plain[2] ?? "";
  const previous = state.out.at(-1);
  if (message.endsWith(": previous definition here") && previous?.source === "ld") {
    previous.children.push(note("previous definition here"));
    return true;
  }
  const gold_multiple = /^(?:\S+\.o): (multiple definition of .+)$/.exec(message);
  const kind = gold_multiple?.[1] ?? message;
  const code = gold_multiple === null ? (message.startsWith("cannot find") ? "ld.cannot-find" : null) : "ld.multiple-definition";
  state.out.push(record({ source: "ld", severity: plain[1] === "warning" ? "warning" : "error", code, message: kind }));
  return true;
}

const LLD_CODES: readonly (readonly [string, string])[] = [
  ["undefined symbol", "ld.undefined-reference"],
  ["duplicate symbol", "ld.multiple-definition"],
  ["unable to find library", "ld.cannot-find"],
];

function open_lld(line: string, state: State): boolean {
  const head = LLD_LINE.exec(line);
  if (head === null) return false;
  const message = head[2] ?? "";
  const code = LLD_CODES.find(([prefix]) => message.startsWith(prefix))?.[1] ?? null;
  const diagnostic = record({ source: "ld", severity: head[1] === "warning" ? "warning" : "error", code, message });
  state.out.push(diagnostic);
  state.open = { kind: "lld", diagnostic, body: [] };
  return true;
}

/** lld's `>>> referenced by SRC:LINE (PATH:LINE)`: the first gives the record its place, later ones become notes. */
function continue_lld(line: string, diagnostic: ParsedDiagnostic): boolean {
  if (!line.startsWith(">>> ")) return false;
  const detail = LLD_DETAIL.exec(line);
  if (detail === null) return true;
  const file = detail[3] ?? detail[1] ?? null;
  const line_number = Number(detail[2]);
  if (diagnostic.file === null) {
    diagnostic.file = file;
    diagnostic.line = line_number;
  } else {
    diagnostic.children.push(note(line.slice(4).replace(/\s*\(.*\)$/, ""), file, line_number));
  }
  return true;
}

function open_cmake(line: string, state: State): boolean {
  const head = CMAKE_HEAD.exec(line);
  const single = head === null ? CMAKE_LINE.exec(line) : null;
  if (head === null && single === null) return false;
  const severity = (head ?? single)?.[1] === "Warning" ? "warning" : "error";
  if (single !== null) {
    state.out.push(record({ source: "cmake", severity, code: null, message: single[2] ?? "" }));
    return true;
  }
  const file = head?.[2] ?? head?.[5] ?? null;
  const line_number = head?.[3] === undefined ? null : Number(head[3]);
  const command = head?.[4];
  const diagnostic = record({ source: "cmake", severity, file, line: line_number, code: command === undefined ? null : `cmake.${command}`, message: "" });
  state.out.push(diagnostic);
  state.open = { kind: "cmake", diagnostic, body: [] };
  return true;
}

/** A CMake block is its indented paragraphs; a `Call Stack` section turns into notes, one per frame. */
function close_cmake(diagnostic: ParsedDiagnostic, body: readonly string[]): void {
  const stack_at = body.indexOf(CMAKE_STACK_HEAD);
  const message_lines = stack_at < 0 ? body : body.slice(0, stack_at);
  const paragraphs = message_lines
    .join("\n")
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s+/g, " ").trim())
    .filter((paragraph) => paragraph !== "");
  diagnostic.message = paragraphs.join("\n");
  for (const frame of stack_at < 0 ? [] : body.slice(stack_at + 1)) {
    const parts = CMAKE_STACK_FRAME.exec(frame);
    if (parts !== null) diagnostic.children.push(note(`called from ${parts[3] ?? ""}`, parts[1] ?? null, Number(parts[2])));
  }
}

function continue_open(line: string, state: State): boolean {
  const open = state.open;
  if (open === null) return false;
  if (open.kind === "lld") {
    if (continue_lld(line, open.diagnostic)) return true;
  } else if (line === "" || /^\s/.test(line) || line === CMAKE_STACK_HEAD) {
    open.body.push(line);
    return true;
  } else {
    close_cmake(open.diagnostic, open.body);
  }
  state.open = null;
  return false;
}

/** Substrings one of which every linker, CMake or make line holds: most lines of a log are ruled out without a regex. */
function may_be_link_build_line(line: string): boolean {
  if (line.startsWith("CMake ") || line.startsWith(">>> ")) return true;
  // Every other linker or make line has a tool or place followed by ": ".
  return (
    line.includes(": ") &&
    (line.includes("ld: ") ||
      line.includes("ld.bfd: ") ||
      line.includes("collect2: ") ||
      line.includes(" reference to ") ||
      line.includes("multiple definition of ") ||
      line.includes("No rule to make target") ||
      line.includes("linker command failed"))
  );
}

const LINK_BUILD_LINES = [LD_IN_FUNCTION, LD_AT, LD_LINE, GOLD_AT, GOLD_LINE_AT, LLD_LINE, CMAKE_HEAD, CMAKE_LINE, MAKE_NO_RULE, LD_SUMMARY];

/**
 * Whether a line belongs to the linker, CMake or make grammar, so the pipeline keeps it from the compiler
 * grammar (`collect2: error: …` would otherwise read as a driver error).
 */
export function is_link_build_line(line: string): boolean {
  return may_be_link_build_line(line) && (line.startsWith(">>> ") || LINK_BUILD_LINES.some((pattern) => pattern.test(line)));
}

/**
 * ld/gold/lld errors, CMake configure blocks and make's `No rule to make target`, as printed (paths not
 * normalised). `link_lines`, when given, says which lines `is_link_build_line` already accepted.
 */
export function parse_link_build_lines(lines: readonly string[], link_lines?: readonly boolean[]): ParsedDiagnostic[] {
  const state: State = { out: [], object: null, function: null, open: null };
  lines.forEach((line, index) => {
    if (continue_open(line, state)) return;
    if (!(link_lines?.[index] ?? is_link_build_line(line))) return;
    if (open_lld(line, state) || open_cmake(line, state) || read_ld(line, state)) return;
    const no_rule = MAKE_NO_RULE.exec(line);
    if (no_rule !== null) state.out.push(record({ source: "make", severity: "error", code: "make.no-rule", message: no_rule[1] ?? "" }));
  });
  if (state.open?.kind === "cmake") close_cmake(state.open.diagnostic, state.open.body);
  return state.out;
}

/** `parse_link_build_lines` over a whole text. */
export function parse_link_build_text(text: string): ParsedDiagnostic[] {
  return parse_link_build_lines(text.split(/\r?\n/));
}

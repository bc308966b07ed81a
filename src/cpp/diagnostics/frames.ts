import { line_number } from "./parsed.js";
import type { Frame } from "./record.js";

/** Sanitizer runtime, C/C++ runtime and startup functions: where a crash surfaces, never its cause. */
const RUNTIME_FUNCTION =
  /^(__interceptor_|__asan|__lsan|__ubsan|__sanitizer|__libc_|__GI_|__pthread_|__assert|__cxa_|__gnu_cxx::|_start$|_init$|operator new|operator delete|std::terminate|raise$|abort$|__restore_rt$)/;

/** glibc's sources as its debug info names them, the sanitizer runtime, and installed headers or libraries. */
const RUNTIME_FILE = /(^|\/)(libsanitizer|sysdeps|csu|nptl|stdlib|signal|libio|malloc|elf|posix|assert)\/|^\/usr\/(include|lib|src)\//;

const RUNTIME_MODULE = /^\/(usr\/)?lib(32|64|x32)?\/|\/lib(c|stdc\+\+|asan|ubsan|lsan|tsan|gcc_s|m|pthread)[.-]/;

export type FrameSite = {
  index: number;
  function: string | null;
  file: string | null;
  line: number | null;
  column: number | null;
  /** The binary or shared library an unsymbolised frame points into. */
  module: string | null;
};

export function frame_of(site: FrameSite): Frame {
  const runtime =
    (site.function !== null && RUNTIME_FUNCTION.test(site.function)) ||
    (site.file !== null && RUNTIME_FILE.test(site.file)) ||
    (site.module !== null && RUNTIME_MODULE.test(site.module));
  return { index: site.index, function: site.function, file: site.file, line: site.line, column: site.column, in_app: !runtime };
}

const FILE_LINE = /^(.+?):(\d+)(?::(\d+))?$/;

export function file_line(token: string): { file: string; line: number | null; column: number | null } | null {
  const match = FILE_LINE.exec(token);
  if (match?.[1] === undefined) return null;
  return { file: match[1], line: line_number(match[2]), column: line_number(match[3]) };
}

/** The frame a report points at: the first one in the program's own code. */
export function first_in_app(frames: readonly Frame[]): Frame | null {
  return frames.find((frame) => frame.in_app && frame.file !== null) ?? null;
}

import type { ShellWord } from "./types.js";
import { literal_word, split_option } from "./words.js";

/**
 * Strips the commands that only run another command (`env`, `sudo`, `timeout 5`, `xargs` …) and returns
 * the command they run. Options that take a value are skipped with it; `env -S` splits its string.
 */
export type Unwrapped = {
  readonly words: ShellWord[];
  readonly wrappers: string[];
  readonly privileged: boolean;
  /** Environment assignments made by `env` (and `sudo VAR=…`). */
  readonly assignments: { name: string; value: ShellWord }[];
  /** Set when a wrapper runs a shell string (`watch 'cmd'`, `su -c 'cmd'`). */
  readonly shell_string?: ShellWord;
};

type Spec = { readonly valued: ReadonlySet<string>; readonly positional?: number; readonly privileged?: boolean; readonly assignments?: boolean };
const spec = (valued: string[], extra: Partial<Spec> = {}): Spec => ({ valued: new Set(valued), ...extra });

const WRAPPERS: Record<string, Spec> = {
  env: spec(["-u", "--unset", "-C", "--chdir", "-P", "-S", "--split-string"], { assignments: true }),
  command: spec([]),
  builtin: spec([]),
  exec: spec(["-a"]),
  time: spec(["-f", "--format", "-o", "--output"]),
  nohup: spec([]),
  timeout: spec(["-s", "--signal", "-k", "--kill-after"], { positional: 1 }),
  nice: spec(["-n", "--adjustment"]),
  ionice: spec(["-c", "--class", "-n", "--classdata", "-p", "-P", "-u"]),
  stdbuf: spec(["-i", "-o", "-e", "--input", "--output", "--error"]),
  xargs: spec([
    "-a",
    "--arg-file",
    "-d",
    "--delimiter",
    "-E",
    "-I",
    "-L",
    "--max-lines",
    "-n",
    "--max-args",
    "-P",
    "--max-procs",
    "-s",
    "--max-chars",
    "--process-slot-var",
  ]),
  sudo: spec(
    [
      "-u",
      "--user",
      "-g",
      "--group",
      "-h",
      "--host",
      "-p",
      "--prompt",
      "-C",
      "--close-from",
      "-D",
      "--chdir",
      "-r",
      "--role",
      "-t",
      "--type",
      "-T",
      "--command-timeout",
      "-U",
      "--other-user",
    ],
    { privileged: true, assignments: true },
  ),
  doas: spec(["-u", "-C"], { privileged: true }),
  chroot: spec(["--userspec", "--groups"], { positional: 1, privileged: true }),
  setsid: spec([]),
  // `busybox rm …` is rm: the multi-call binary runs its first argument as the applet.
  busybox: spec([]),
  unbuffer: spec([]),
  watch: spec(["-n", "--interval", "-d", "--differences", "-q", "--equexit"]),
  flock: spec(["-w", "--timeout", "-E", "--conflict-exit-code"], { positional: 1 }),
};

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;

export function unwrap(input: readonly ShellWord[]): Unwrapped {
  let words = [...input];
  const wrappers: string[] = [];
  const assignments: { name: string; value: ShellWord }[] = [];
  let privileged = false;
  for (let guard = 0; guard < 64; guard += 1) {
    const head = words[0];
    if (head === undefined || !head.literal) break;
    const name = head.value.split("/").at(-1) ?? head.value;
    const wrapper = WRAPPERS[name];
    if (wrapper === undefined) break;
    if (name === "command" && words.slice(1).some((word) => /^-[a-zA-Z]*[vV]/.test(word.value))) break; // `command -v` only looks up
    let index = 1;
    let positional = wrapper.positional ?? 0;
    let shell_string: ShellWord | undefined;
    let split: ShellWord[] | undefined;
    while (index < words.length) {
      // biome-ignore lint/style/noNonNullAssertion: index < words.length
      const word = words[index]!;
      const text = word.value;
      if (text === "--") {
        index += 1;
        break;
      }
      if (word.literal && text.startsWith("-") && text.length > 1) {
        const { option: flag, attached: inline } = text.startsWith("--")
          ? split_option(text)
          : { option: text.slice(0, 2), attached: text.length > 2 ? literal_word(text.slice(2)) : undefined };
        let value: ShellWord | undefined;
        if (wrapper.valued.has(flag)) {
          if (inline !== undefined) value = inline;
          else {
            value = words[index + 1];
            index += 1;
          }
        }
        if (name === "env" && (flag === "-S" || flag === "--split-string") && value !== undefined) {
          split = value.literal
            ? value.value
                .split(/\s+/)
                .filter((part) => part !== "")
                .map((part) => ({ value: part, literal: true, glob: false }))
            : [value];
        }
        if ((name === "sudo" && (flag === "-s" || flag === "-i")) || (name === "nice" && /^-\d+$/.test(text))) {
          // `sudo -s cmd` runs cmd through a shell; `nice -5` is an adjustment
        }
        index += 1;
        continue;
      }
      const [, variable, assigned] = (wrapper.assignments === true && word.literal ? ASSIGNMENT.exec(text) : null) ?? [];
      if (variable !== undefined && assigned !== undefined) {
        assignments.push({ name: variable, value: literal_word(assigned) });
        index += 1;
        continue;
      }
      if (positional > 0) {
        positional -= 1;
        index += 1;
        continue;
      }
      break;
    }
    wrappers.push(name);
    if (wrapper.privileged === true) privileged = true;
    let rest = words.slice(index);
    if (split !== undefined) rest = [...split, ...rest];
    if (name === "watch" && rest.length > 0) {
      shell_string = rest.every((word) => word.literal)
        ? { value: rest.map((word) => word.value).join(" "), literal: true, glob: false }
        : { value: rest.map((word) => word.value).join(" "), literal: false, glob: false };
      return { words: [], wrappers, privileged, assignments, shell_string };
    }
    if (rest.length === 0 && name === "xargs") rest = [{ value: "echo", literal: true, glob: false }];
    if (rest.length === 0 && name === "chroot") rest = [{ value: "sh", literal: true, glob: false }];
    if (rest.length === 0 && (name === "sudo" || name === "doas")) rest = [{ value: "sh", literal: true, glob: false }];
    words = rest;
  }
  return { words, wrappers, privileged, assignments };
}

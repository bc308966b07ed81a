import { forEachChild, type SyntaxNode } from "unbash";
import type { ShellWord } from "./types.js";
import { shell_word } from "./words.js";

/**
 * The folders a command may run in, as chains of `cd` targets from the folder the script starts in:
 * `[]` is that folder, `[src, lib]` is where `cd src; cd lib` leads. `cd src && cat x` reads `src/x`;
 * `cd src; cat x` may read either (the `cd` may fail), and a subshell's `cd` stays inside it. A target
 * only known at run time (`cd "$d"`) is kept as its word, for the analyzer to resolve through the
 * values the script gives it.
 */
export type Places = readonly (readonly ShellWord[])[];

export const START: Places = [[]];
/** A target standing for "too many folders to follow": commands there cannot have their paths checked. */
export const LOST: ShellWord = { value: "\0", literal: false, glob: false };
const MAX_PLACES = 32;

const key = (chain: readonly ShellWord[]): string => chain.map((word) => `${word.literal ? "" : "$"}${word.value}`).join("\0/");

export function union(a: Places, b: Places): Places {
  if (a === b) return a;
  const seen = new Set(a.map(key));
  const out = [...a];
  for (const chain of b) {
    if (seen.has(key(chain))) continue;
    seen.add(key(chain));
    out.push(chain);
  }
  return out.length > MAX_PLACES ? [...out.slice(0, MAX_PLACES - 1), [LOST]] : out;
}

/** Every folder the chains passed through, the start included: where `popd` or `cd -` may lead back to. */
function earlier(places: Places): Places {
  return places.reduce<Places>(
    (all, chain) =>
      union(
        all,
        chain.map((_, index) => chain.slice(0, index)),
      ),
    places,
  );
}

function along(places: Places, targets: readonly ShellWord[]): Places {
  return places.map((chain) => [...chain, ...targets]);
}

/** The operand of `cd [-L|-P [-e]] [-@] [dir]` and `pushd [-n] [+N | -N | dir]`. */
function operand(args: readonly ShellWord[]): ShellWord | undefined {
  const index = args.findIndex((word) => !word.literal || word.value === "-" || !/^[-+]/.test(word.value) || word.value === "--");
  const found = args[index];
  return found?.value === "--" ? args[index + 1] : found;
}

/**
 * Where a `cd`, `pushd` or `popd` leaves the shell when it succeeds: after its target, back to an earlier
 * folder (`cd -`, `popd`, `pushd +N`), or home (`cd` alone). `undefined` for any other command.
 */
export function moved(words: readonly ShellWord[], places: Places): Places | undefined {
  const [head, ...args] = words;
  if (head === undefined || !head.literal || !/^(cd|pushd|popd)$/.test(head.value)) return undefined;
  const target = operand(args);
  if (head.value === "popd" || target?.value === "-" || (target === undefined && head.value === "pushd") || /^[+-]\d+$/.test(target?.value ?? ""))
    return earlier(places);
  return along(places, [target ?? HOME]);
}

const HOME: ShellWord = { value: "~", literal: true, glob: false };

/** The `cd`/`pushd` targets in a function's body, in order: a call may leave the shell after any of them. */
function chain_of(body: SyntaxNode): ShellWord[] {
  const targets: ShellWord[] = [];
  const walk = (node: SyntaxNode): void => {
    if (node.type === "Command" && /^(cd|pushd)$/.test(node.name?.value ?? "")) {
      const target = operand(node.args.flatMap((arg) => (arg.type === "Word" ? [shell_word(arg)] : [])));
      targets.push(target ?? HOME);
    }
    forEachChild(node, walk);
  };
  walk(body);
  return targets;
}

/** Where a call of a function whose body `cd`s leaves the shell: anywhere along its chain of targets. */
export function called(body: SyntaxNode, places: Places): Places {
  const chain = chain_of(body);
  return chain.reduce<Places>((all, _, index) => union(all, along(places, chain.slice(0, index + 1))), places);
}

import type { SimpleCommand } from "./parse.js";

/**
 * Text a command writes into a pipe, and whether bash would write it exactly so (no expansions, no escapes);
 * `producer` is the program writing it.
 */
export type PipedText = { readonly producer: string; readonly text: string; readonly literal: boolean };

/**
 * What the producer of `producer | sh` feeds the shell, when it is plain enough to know without running it:
 * `echo WORDS`, `printf FORMAT` (no `%`, no escapes) and `cat` of a here-document or here-string.
 */
export function piped_text(producer: SimpleCommand): PipedText | undefined {
  const [head, ...args] = producer.words;
  if (head === undefined || !head.literal) return undefined;
  if (head.value === "echo") {
    let index = 0;
    let escapes = false;
    for (const arg of args) {
      if (!arg.literal || !/^-[neE]+$/.test(arg.value)) break;
      if (arg.value.includes("e")) escapes = true;
      index += 1;
    }
    const rest = args.slice(index);
    const text = rest.map((word) => word.value).join(" ");
    return { producer: head.value, text, literal: !escapes && rest.every((word) => word.literal) && !text.includes("\\") };
  }
  if (head.value === "printf") {
    const text = args.map((word) => word.value).join(" ");
    return { producer: head.value, text, literal: args.length === 1 && args[0]?.literal === true && !/[%\\]/.test(text) };
  }
  if (head.value === "cat" && args.length === 0) {
    for (const redirect of producer.redirects) {
      if (redirect.kind === "heredoc") return { producer: head.value, text: redirect.body, literal: redirect.literal };
      if (redirect.kind === "herestring" && redirect.target !== undefined)
        return { producer: head.value, text: redirect.target.value, literal: redirect.target.literal };
    }
  }
  return undefined;
}

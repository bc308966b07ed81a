/** The key the terminal sends for Ctrl+C in raw mode. */
const CTRL_C = "\x03";
/**
 * Keys typed while the pre-frame stands: kept, in order, to be handed to ink, and shown meanwhile as the
 * App would show them (the typed text on the prompt line; after a Ctrl+C, its exit hint).
 *
 * ink reads whatever waits on stdin as one burst, and the App takes a burst as typed text: a Ctrl+C inside
 * it would be lost. So the keys go to ink in pieces, each Ctrl+C on its own, the next one once ink has read
 * the one before.
 */
export class TypedKeys {
  #pieces: string[] = [];
  #armed = false;

  /** A chunk read from the terminal (raw mode, UTF-8). */
  add(chunk: string): void {
    for (const [index, text] of chunk.split(CTRL_C).entries()) {
      if (index > 0) {
        this.#pieces.push(CTRL_C);
        this.#armed = true;
      }
      if (text === "") continue;
      this.#armed = false;
      const last = this.#pieces.length - 1;
      if (last >= 0 && this.#pieces[last] !== CTRL_C) this.#pieces[last] += text;
      else this.#pieces.push(text);
    }
  }

  /** Whether the last key was a Ctrl+C: the App's first press, which shows the exit hint. */
  get armed(): boolean {
    return this.#armed;
  }

  /** The prompt line's text: what was typed, Backspace applied, other control keys left out. */
  draft(): string {
    let draft = "";
    for (const piece of this.#pieces) {
      for (const char of piece) {
        if (char === "\x7f" || char === "\b") draft = draft.slice(0, -1);
        else if (char >= " ") draft += char;
      }
    }
    return draft;
  }

  /** Puts the keys back on `stdin` as they came, for a reader that is not the App (the wizard's prompts). */
  give_back(stdin: NodeJS.ReadStream): void {
    const keys = this.#pieces.splice(0).join("");
    if (keys !== "") stdin.unshift(keys);
  }

  /** Hands the keys to the App through `stdin`, a piece per read of ink's. */
  hand_to(stdin: NodeJS.ReadStream): void {
    const pieces = this.#pieces.splice(0);
    const feed = () => {
      const next = pieces.shift();
      if (next === undefined) stdin.off("readable", after_read);
      else stdin.unshift(next);
    };
    // Called before ink's own listener reads: what is left once it has read is the next tick's to see.
    const after_read = () =>
      process.nextTick(() => {
        if (stdin.readableLength === 0) feed();
      });
    if (pieces.length === 0) return;
    stdin.on("readable", after_read);
    feed();
  }
}

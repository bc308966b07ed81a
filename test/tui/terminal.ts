/** A terminal and a keyboard for ink's real renderer: what it writes is kept, what is typed is read as a TTY's input. */
import { EventEmitter } from "node:events";

export class Terminal extends EventEmitter {
  // biome-ignore lint/style/useNamingConvention: the tty.WriteStream member ink reads
  readonly isTTY = true;
  readonly writes: string[] = [];
  constructor(
    readonly columns: number,
    readonly rows: number,
  ) {
    super();
  }
  write(chunk: string): boolean {
    this.writes.push(chunk);
    return true;
  }
  text(): string {
    return this.writes.join("");
  }
}

export class Keyboard extends EventEmitter {
  // biome-ignore lint/style/useNamingConvention: the tty.ReadStream member ink reads
  readonly isTTY = true;
  #data: string | null = null;
  write(data: string): void {
    this.#data = data;
    this.emit("readable");
    this.emit("data", data);
  }
  // biome-ignore lint/style/useNamingConvention: a tty.ReadStream method ink calls
  setEncoding(): void {}
  // biome-ignore lint/style/useNamingConvention: a tty.ReadStream method ink calls
  setRawMode(): void {}
  ref(): void {}
  unref(): void {}
  resume(): void {}
  pause(): void {}
  read(): string | null {
    const data = this.#data;
    this.#data = null;
    return data;
  }
}

import path from "node:path";
import type { InspectionEvent, Observer } from "xstate";
import { air_failure } from "../contracts/errors.js";
import { open_file_sink } from "./file-sink.js";
import { LiveSystem } from "./live-system.js";
import { start_relay } from "./relay.js";
import { start_sky } from "./sky.js";

export type InspectTarget = { readonly kind: "local"; readonly port: number } | { readonly kind: "sky" };

/** `--inspect` (`local` after normalise_inspect_argv), `--inspect=PORT`, `--inspect=sky`. */
export function parse_inspect_target(value: string): InspectTarget {
  if (value === "local" || value === "") return { kind: "local", port: 0 };
  if (value === "sky") return { kind: "sky" };
  if (/^\d{1,5}$/.test(value) && Number(value) <= 65_535) return { kind: "local", port: Number(value) };
  throw air_failure({
    kind: "user_error",
    message: `--inspect=${value} is neither a port nor "sky"`,
    retryability: "retryable_after_change",
    user_action: "Use --inspect (any free port), --inspect=PORT (0-65535), or --inspect=sky (uploads to Stately; warns first).",
  });
}

export type InspectOptions = {
  /** The value of `--inspect`: "local", a port, or "sky". */
  readonly inspect?: string;
  /** `--inspect-file PATH`, relative to `cwd`. */
  readonly inspect_file?: string;
  /** Test seam: a module run as the Sky thread instead of Stately's client. */
  readonly sky_thread?: URL;
};

/** The inspection flags of a command's options, without the ones not given. */
export function inspect_options(values: { readonly inspect?: string; readonly inspect_file?: string }): InspectOptions {
  return {
    ...(values.inspect === undefined ? {} : { inspect: values.inspect }),
    ...(values.inspect_file === undefined ? {} : { inspect_file: values.inspect_file }),
  };
}

export type Inspection = {
  /** The `inspect` option of every root actor: `createActor(logic, { inspect })`. */
  readonly inspect: Observer<InspectionEvent>;
  readonly system: LiveSystem;
  /** The local relay's page (`--inspect[=PORT]`). */
  readonly url: string | undefined;
  /** Closes the relay, the file and the Sky thread at once; also runs when the process exits. */
  close(): void;
};

/**
 * Starts what the options ask for, before any actor exists (so every registration is seen): the local
 * relay, the NDJSON file, Stately Sky. Undefined when no option asks for inspection. Messages for a person
 * go to `err`: stdout may carry `--output-format json`.
 */
export async function start_inspection(
  io: { readonly err: (text: string) => void; readonly cwd: string },
  options: InspectOptions,
): Promise<Inspection | undefined> {
  if (options.inspect === undefined && options.inspect_file === undefined) return undefined;
  const target = options.inspect === undefined ? undefined : parse_inspect_target(options.inspect);
  const system = new LiveSystem();
  const closers: Array<() => void> = [];
  const close = () => {
    process.off("exit", close);
    for (const closer of closers.splice(0)) closer();
  };
  try {
    // The port first: a taken port then leaves no empty trace file behind.
    let url: string | undefined;
    if (target?.kind === "local") {
      const relay = await start_relay(system, { port: target.port });
      closers.push(() => relay.close());
      url = relay.url;
    }
    if (options.inspect_file !== undefined) {
      const file = open_file_sink(path.resolve(io.cwd, options.inspect_file), io.err);
      closers.push(system.attach(file, { replay: true }), () => file.close());
    }
    if (url !== undefined) {
      io.err(`air: live statecharts at ${url} — open it in a browser on this machine (the page embeds the Stately Inspector from stately.ai)\n`);
    }
    if (target?.kind === "sky") {
      const sky = start_sky(io.err, options.sky_thread);
      closers.push(system.attach(sky), () => sky.close());
    }
    process.once("exit", close);
    return { inspect: system.inspect, system, url, close };
  } catch (error) {
    close();
    throw error;
  }
}

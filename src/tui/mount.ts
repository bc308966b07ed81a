import { render } from "ink";
import { createElement } from "react";
import { App } from "./app.js";
import type { AppProps } from "./props.js";

export type TuiStreams = { stdin?: NodeJS.ReadStream; stdout?: NodeJS.WriteStream; stderr?: NodeJS.WriteStream };
export type MountedTui = {
  /** Settles when the App has exited (`/exit`, a second Ctrl+C) or been unmounted. */
  readonly exited: Promise<void>;
  unmount(): void;
};

/**
 * Puts the App on the terminal with the options it relies on: Ctrl+C is the App's (the first one only
 * warns), and ink draws at most 30 frames a second like the App's own throttle.
 */
export function mount_tui(props: AppProps, streams: TuiStreams = {}): MountedTui {
  const instance = render(createElement(App, props), { ...streams, exitOnCtrlC: false, maxFps: 30 });
  return { exited: instance.waitUntilExit().then(() => undefined), unmount: () => instance.unmount() };
}

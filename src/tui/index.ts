export { App } from "./app.js";
export { mount_tui, type MountedTui, type TuiStreams } from "./mount.js";
export type { AppProps } from "./props.js";

export { App } from "./app.js";
export type { AppProps } from "./props.js";

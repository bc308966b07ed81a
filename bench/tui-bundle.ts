import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { bundle_options } from "../scripts/bundle-options.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** What the TUI bench renders with: the App, ink and React. */
const ENTRY = `export { render } from "ink";
export { default as React } from "react";
export { App } from "./dist/tui/index.js";
`;

/**
 * The TUI as `air run` runs it: the App, ink and React bundled into `outdir` with the options of the CLI's
 * bundle (scripts/bundle-options.mjs) — React's production build, ink's patches. Returns the bundle's URL.
 */
export async function bundle_tui(outdir: string): Promise<string> {
  // ESM outside any package.json that says so: .mjs.
  const stdin = { contents: ENTRY, resolveDir: ROOT, sourcefile: "tui-bench.js", loader: "js" } as const;
  await build({ ...bundle_options([], outdir), stdin, outExtension: { ".js": ".mjs" } });
  return pathToFileURL(path.join(outdir, "stdin.mjs")).href;
}

/**
 * Part of `npm run build`: bundles the CLI (dist/cli/main.js and every module it imports, packages
 * included) into dist/bundle/, split at its dynamic imports, so each command still loads only its own
 * part; bin/air.js runs dist/bundle/main.js.
 *
 * Why: loading is most of air's start. Measured on a 2-core machine, importing what `air run` needs (the
 * run command, the runtime, the SDKs, ink, React and the App) took ~1.7 s as separate modules and ~0.45 s
 * from the bundle; in the tui start-up bench (medians of 5 runs beside `node -e 0`) the Main Agent was ready
 * at 10× node's start, from 24× unbundled, and at 5.3–5.9× (from 7.7–7.8× in the same runs) once the SDKs, the
 * wizard, the inspector and the LSP modules loaded only when used, the command grammars compiled at first use
 * and yoga's WebAssembly was decoded without `fetch`. The first frame does not wait for any of it
 * (src/cli/pre-frame.ts). Minifying (half the bytes) changed neither figure beyond the noise: not done, so
 * stack traces keep their names.
 *
 * A module of ours that reads a file beside it (`new URL("../package.json", import.meta.url)`, the
 * migrations, the prompts, the worker's entry) reads it where it did unbundled: its `import.meta.url` is
 * rewritten to its own dist/ path. The metafile (dist/bundle/meta.json) says which modules each file holds,
 * for the tests that check what a command loads.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const outdir = path.join(dist, "bundle");

/** Each dist/ module's `import.meta.url` as it was before bundling, relative to the bundle's file. */
const own_urls = {
  name: "own-import-meta-url",
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, async (args) => {
      const source = await fs.promises.readFile(args.path, "utf8");
      if (!source.includes("import.meta.url")) return undefined;
      const relative = path.relative(outdir, args.path).split(path.sep).join("/");
      return { contents: source.replaceAll("import.meta.url", `new URL(${JSON.stringify(relative)}, import.meta.url).href`), loader: "js" };
    });
  },
};

/** The unbundled switch to React's production build (src/tui/react-production.ts) is the `define` below here. */
const react_production_by_define = {
  name: "react-production-by-define",
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/]tui[\\/]react-production\.js$/ }, () => ({ contents: "", loader: "js" }));
  },
};

/**
 * yoga-layout (ink's layout engine) carries its WebAssembly as a base64 `data:` URL, which its loader reads
 * with `fetch` whenever Node has one: that loads Node's undici and its web streams first, ~30 ms on the TUI's
 * way to ink's first frame. Its own fallback decodes the same bytes directly; here it is the only path.
 */
const yoga_without_fetch = {
  name: "yoga-without-fetch",
  setup(build) {
    build.onLoad({ filter: /[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ }, async (args) => {
      const source = await fs.promises.readFile(args.path, "utf8");
      const decoded_directly = source.replaceAll('"function"!=typeof fetch', "true");
      if (decoded_directly === source) throw new Error(`${args.path}: yoga-layout no longer loads its WebAssembly as this build expects`);
      return { contents: decoded_directly, loader: "js" };
    });
  },
};

fs.rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: [path.join(dist, "cli", "main.js")],
  outdir,
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // libsql loads its native addon; react-devtools-core is ink's, loaded only when DEV=true; ws's native helpers are optional.
  external: ["libsql", "react-devtools-core", "bufferutil", "utf-8-validate"],
  // The packages written as CommonJS call require() for Node's own modules.
  banner: { js: 'import { createRequire as __air_create_require } from "node:module"; const require = __air_create_require(import.meta.url);' },
  // The bundled React, reconciler and scheduler pick their build by NODE_ENV when their chunk runs, after
  // src/tui/react-production.ts has put the variable back; fixed here, only inside the bundle's code, so the
  // TUI runs React's production build and the commands air runs still never inherit a NODE_ENV.
  define: { "process.env.NODE_ENV": '"production"' },
  plugins: [react_production_by_define, yoga_without_fetch, own_urls],
  metafile: true,
  sourcemap: true,
  logLevel: "warning",
});
const holds = Object.fromEntries(
  Object.entries(result.metafile.outputs)
    .filter(([file]) => file.endsWith(".js"))
    .map(([file, output]) => [path.basename(file), Object.keys(output.inputs).map((input) => path.resolve(input))]),
);
fs.writeFileSync(path.join(outdir, "meta.json"), `${JSON.stringify(holds)}\n`);

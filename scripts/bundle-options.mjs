/**
 * The options of the CLI's bundle (scripts/bundle-cli.mjs says why it is bundled), shared with the benches
 * that must run the code `air` runs: the same packages bundled the same way, ink and string-width with their
 * patches (scripts/ink-patches.mjs, scripts/string-width-patch.mjs).
 */
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { ink_frame_caches } from "./ink-patches.mjs";
import { string_width_single_code_units } from "./string-width-patch.mjs";

/** Each dist/ module's `import.meta.url` as it was before bundling, relative to the bundle's file. */
function own_urls(outdir) {
  return {
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
}

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

/** esbuild's options for bundling `entryPoints` (modules of dist/ and the packages they import) into `outdir`. */
export function bundle_options(entry_points, outdir) {
  return {
    entryPoints: entry_points,
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
    plugins: [react_production_by_define, yoga_without_fetch, ink_frame_caches, string_width_single_code_units, own_urls(outdir)],
    metafile: true,
    sourcemap: true,
    logLevel: "warning",
  };
}

/**
 * `contents`, an ES module's source resolved from `resolve_dir`, bundled as the CLI's bundle is into `outdir`;
 * returns the bundled module's path (.mjs: ESM outside any package.json that says so).
 */
export async function bundle_source(contents, resolve_dir, outdir) {
  await build({ ...bundle_options([], outdir), stdin: { contents, resolveDir: resolve_dir, loader: "js" }, outExtension: { ".js": ".mjs" } });
  return path.join(outdir, "stdin.mjs");
}

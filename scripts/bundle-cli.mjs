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
import { bundle_options } from "./bundle-options.mjs";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const outdir = path.join(dist, "bundle");

fs.rmSync(outdir, { recursive: true, force: true });
const result = await build(bundle_options([path.join(dist, "cli", "main.js")], outdir));
const holds = Object.fromEntries(
  Object.entries(result.metafile.outputs)
    .filter(([file]) => file.endsWith(".js"))
    .map(([file, output]) => [path.basename(file), Object.keys(output.inputs).map((input) => path.resolve(input))]),
);
fs.writeFileSync(path.join(outdir, "meta.json"), `${JSON.stringify(holds)}\n`);

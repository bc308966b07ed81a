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
 *
 * `air run`'s TUI (src/cli/tui-main.ts, entered from main.ts) is a bundle of its own, dist/bundle/tui/. Split in
 * one bundle with the other commands, the modules it loads fell into 110 files, one for each set of commands and
 * lazy imports sharing them; importing that many files (resolving, linking, reading each) cost ~130 ms more than
 * the same code in one file, measured in-process. Bundled on its own, an `air run` loads 45
 * files (3 of them the CLI's entry's), and the Main Agent was ready at 4.9–5.4× `node -e 0` in the tui start-up
 * bench, from 5.6–6.7× (median ready 694 ms against 769 ms in 10 interleaved runs of each). Each bundle has
 * its own copy of the modules they both hold: in one process only the router's three stateless modules are
 * loaded from both, and main.js hands the TUI's bundle nothing but its parsed arguments and Io (plain data),
 * so no class or registry meets its twin (test/scripts/bundle-cli.test.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { bundle_options } from "./bundle-options.mjs";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const outdir = path.join(dist, "bundle");

const tui_outdir = path.join(outdir, "tui");

/** main.ts's import of the TUI's entry is left to load the TUI's bundle at run time, never bundled with main. */
const tui_bundle_apart = {
  name: "tui-bundle-apart",
  setup(build) {
    build.onResolve({ filter: /^\.\/tui-main\.js$/ }, () => ({ path: "./tui/tui-main.js", external: true }));
  },
};

/** Bundles `entry` into `into`, then writes `into`/meta.json: the modules each file holds. */
async function bundle(entry, into, plugins = []) {
  const options = bundle_options([entry], into);
  const result = await build({ ...options, plugins: [...plugins, ...options.plugins] });
  const holds = Object.fromEntries(
    Object.entries(result.metafile.outputs)
      .filter(([file]) => file.endsWith(".js"))
      .map(([file, output]) => [path.basename(file), Object.keys(output.inputs).map((input) => path.resolve(input))]),
  );
  fs.writeFileSync(path.join(into, "meta.json"), `${JSON.stringify(holds)}\n`);
}

fs.rmSync(outdir, { recursive: true, force: true });
await Promise.all([bundle(path.join(dist, "cli", "main.js"), outdir, [tui_bundle_apart]), bundle(path.join(dist, "cli", "tui-main.js"), tui_outdir)]);

/**
 * ink's per-frame work, kept from one frame to the next inside the bundle (scripts/bundle-options.mjs).
 *
 * Why: ink 6 draws every frame of the live region from scratch. Its `Output` fills a grid of the terminal's
 * width with one cell object per column, tokenizes each written line into styled characters (string-width
 * measuring every one), and serializes the grid back to text cell by cell, with caches that live for one
 * frame; on its way there it measures the width of every text node again, uncached. While a reply streams at
 * 30 frames a second, the HUD, the prompt line and the status line are the same text on every frame and went
 * through all of it each time, and those loops were hot enough for V8 to compile them with TurboFan during
 * the first reply — more CPU, on its background threads, than running them. Measured on a 2-core machine, the
 * 2,000-delta stream of `npm run bench` (bench/tui-stream.ts) with the App bundled as `air run` runs it, medians
 * of 5 interleaved runs: TUI CPU 680 ms with ink as published, 475 ms with these patches, beside 278 ms for the
 * no-UI stream (2.4× → 1.7×).
 *
 * The patches:
 * - `Output`'s caches (widths, styled characters, and now each line's serialized text) live across frames.
 * - A frame whose rows each hold at most one written line, with nothing clipped (the live region while a reply
 *   streams) is that line's serialized text after its column's indent, row by row: the text the grid gives (the
 *   cells before the line are unstyled blanks, the line's own cells serialize to that text, the blanks after it
 *   are trimmed), without the grid. Any other frame goes through the grid as before.
 * - A line without escape sequences serializes to itself (ansi-tokenize splits it into graphemes with no
 *   styles, which join back to the line): the streaming reply's new line is not tokenized on every frame.
 * - A text node's width is the one ink's layout already measured and cached (measure-text), not measured again.
 * - Caches kept across frames are bounded: past a fixed number of entries they start over. ink's own
 *   module-level caches (measure-text, wrap-text) grew without bound, one entry per frame of a streaming reply.
 *
 * ink 7 and 8 need Node 22 and still work per frame; air supports Node 20.
 */
import fs from "node:fs";
import { replace_each } from "./source-patch.mjs";

/** Past this many entries, a cache kept across frames starts over. */
const CACHE_ENTRIES = 4096;

const output_caches_across_frames = [
  [
    "    getStringWidth(text) {",
    `    serialized = new Map();
    getSerialized(line) {
        if (!line.includes('\\u001B') && !line.includes('\\u009B')) {
            return line;
        }
        let cached = this.serialized.get(line);
        if (cached === undefined) {
            cached = styledCharsToString(this.getStyledChars(line));
            this.serialized.set(line, cached);
        }
        return cached;
    }
    size() {
        return this.widths.size + this.blockWidths.size + this.styledChars.size + this.serialized.size;
    }
    getStringWidth(text) {`,
  ],
  [
    "export default class Output {",
    `let framesCaches = new OutputCaches();
const cachesAcrossFrames = () => {
    if (framesCaches.size() > ${CACHE_ENTRIES}) {
        framesCaches = new OutputCaches();
    }
    return framesCaches;
};
export default class Output {`,
  ],
  ["caches = new OutputCaches();", "caches = cachesAcrossFrames();"],
];

const output_rows_without_grid = [
  [
    "    get() {\n",
    `    get() {
        const rows = this.rowsOfSingleWrites();
        if (rows !== undefined) {
            return { output: rows.join('\\n'), height: rows.length };
        }
`,
  ],
  [
    "    clip(clip) {",
    `    rowsOfSingleWrites() {
        const rows = new Array(this.height).fill(undefined);
        for (const operation of this.operations) {
            if (operation.type !== 'write') {
                return undefined;
            }
            const { x, y, transformers } = operation;
            const lines = operation.text.split('\\n');
            for (let index = 0; index < lines.length && y + index < this.height; index++) {
                if (rows[y + index] !== undefined) {
                    return undefined;
                }
                let line = lines[index];
                for (const transformer of transformers) {
                    line = transformer(line, index);
                }
                rows[y + index] = ' '.repeat(x) + this.caches.getSerialized(line);
            }
        }
        return rows.map(row => (row === undefined ? '' : row.trimEnd()));
    }
    clip(clip) {`,
  ],
];

const patches = {
  "output.js": [...output_caches_across_frames, ...output_rows_without_grid],
  "render-node-to-output.js": [
    ["import widestLine from 'widest-line';", "import measureText from './measure-text.js';"],
    ["const currentWidth = widestLine(text);", "const currentWidth = measureText(text).width;"],
  ],
  "measure-text.js": [
    ["cache.set(text, dimensions);", `if (cache.size >= ${CACHE_ENTRIES}) {\n        cache.clear();\n    }\n    cache.set(text, dimensions);`],
  ],
  "wrap-text.js": [
    ["const cache = {};", "let cache = {};\nlet cached = 0;"],
    [
      "cache[cacheKey] = wrappedText;",
      `if (++cached > ${CACHE_ENTRIES}) {\n        cache = {};\n        cached = 1;\n    }\n    cache[cacheKey] = wrappedText;`,
    ],
  ],
};

/** The source of ink's build file `file` (…/ink/build/<name>) with its patches applied; other files unchanged. */
export function patch_ink_file(file, source) {
  const name = file.split(/[\\/]/).at(-1);
  return replace_each(file, source, patches[name] ?? []);
}

/** The esbuild plugin that applies the patches to ink's build as it is bundled. */
export const ink_frame_caches = {
  name: "ink-frame-caches",
  setup(build) {
    const names = Object.keys(patches).map((name) => name.replaceAll(".", "\\."));
    build.onLoad({ filter: new RegExp(`[\\\\/]ink[\\\\/]build[\\\\/](${names.join("|")})$`) }, async (args) => ({
      contents: patch_ink_file(args.path, await fs.promises.readFile(args.path, "utf8")),
      loader: "js",
    }));
  },
};

#!/usr/bin/env node
// The installed entry: runs the build that `npm install` made (the `prepare` script), bundled
// (scripts/bundle-cli.mjs says why).
const { readFileSync } = require("node:fs");
const path = require("node:path");

// A reader that stops reading (`air history --json | head`) closes the pipe, and the next write fails with
// EPIPE: whatever the command, it ends there, quietly and successfully, as the reader asked (Node ignores
// the SIGPIPE that would end a C program the same way). A terminal that went away (its window closed)
// fails the next write with EIO: what was being drawn has nowhere to go, and the SIGHUP that comes with it
// closes the session as /exit does — throwing here would crash past that and leave the session locked.
// Any other stream error is a real failure.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(0);
    if (error.code === "EIO") return;
    throw error;
  });
}

// `air --version` is answered from package.json before the build loads: loading it (four ESM files, the
// loader's own start) cost ~15 ms over node's start of ~65 ms, measured on a 2-core machine, against a goal of
// 1.2×. This file is CommonJS (bin/package.json) so that the answer never starts Node's ES module loader
// either: as an ES module it took 1.14× `node -e 0`, as CommonJS 1.05× (hyperfine, 40 runs each, one session).
const [first, ...rest] = process.argv.slice(2);
if ((first === "--version" || first === "-v") && rest.length === 0) {
  process.stdout.write(`${JSON.parse(readFileSync(path.join(__dirname, "..", "package.json"), "utf8")).version}\n`);
} else {
  load_the_build();
}

function load_the_build() {
  import("../dist/bundle/main.js").then(
    async ({ main }) => {
      process.exitCode = await main(process.argv.slice(2));
    },
    (error) => {
      process.stderr.write(`air: cannot load its build (${error.message}); run \`npm run build\` in the air package.\n`);
      process.exitCode = 2;
    },
  );
}

#!/usr/bin/env node
// The installed entry: runs the build that `npm install` made (the `prepare` script).
import("../dist/cli/main.js").then(
  async ({ main }) => {
    process.exitCode = await main(process.argv.slice(2));
  },
  (error) => {
    process.stderr.write(`air: cannot load its build (${error.message}); run \`npm run build\` in the air package.\n`);
    process.exitCode = 2;
  },
);

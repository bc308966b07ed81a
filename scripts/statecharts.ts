import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { render_statecharts } from "../src/machines/statecharts.js";

const dir = fileURLToPath(new URL("../statecharts/", import.meta.url));
const files = render_statecharts();

mkdirSync(dir, { recursive: true });
// A renamed or removed machine must not leave a stale chart behind.
for (const name of readdirSync(dir)) {
  if (/\.(json|mmd)$/.test(name) && !files.has(name)) rmSync(join(dir, name));
}
for (const [name, text] of files) writeFileSync(join(dir, name), text);
console.log(`wrote ${files.size} files to statecharts/`);

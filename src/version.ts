import fs from "node:fs";

/** air's own version, read from package.json (one level above both src/ and dist/). */
export const AIR_VERSION: string = (JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;

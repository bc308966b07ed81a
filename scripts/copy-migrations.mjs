// tsc copies no .sql: the generated migrations must sit beside dist/db/migrate.js as they sit beside src/.
import fs from "node:fs";

fs.rmSync(new URL("../dist/db/migrations", import.meta.url), { recursive: true, force: true });
fs.cpSync(new URL("../src/db/migrations", import.meta.url), new URL("../dist/db/migrations", import.meta.url), {
  recursive: true,
});

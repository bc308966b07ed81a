import { defineConfig } from "drizzle-kit";

/** The session database. Project-level databases have their own configs in drizzle/. */
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema.ts",
  out: "./src/db/migrations/session",
});

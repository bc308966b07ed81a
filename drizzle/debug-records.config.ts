import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/debug-records-schema.ts",
  out: "./src/db/migrations/debug-records",
});

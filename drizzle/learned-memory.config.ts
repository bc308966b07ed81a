import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/learned-memory-schema.ts",
  out: "./src/db/migrations/learned-memory",
});

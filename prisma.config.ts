// Prisma 7 reads the datasource URL from here, not from the schema. The
// fallback keeps `prisma generate` working with DATABASE_URL unset (the
// embedded default sets it at run time).
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: {
    url: process.env.DATABASE_URL ?? "postgresql://localhost:5432/driftwatch",
  },
});

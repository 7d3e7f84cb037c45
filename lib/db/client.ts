// The one PrismaClient of a process, created on first use from DATABASE_URL
// (which ensureDatabase sets for the embedded Postgres) and kept on globalThis
// so hot reloads in development do not open a new pool each time. No
// "server-only" import: the collector and scripts run outside Next.js.
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client";

interface Cached {
  client: PrismaClient;
  url: string;
}

const holder = globalThis as typeof globalThis & { __driftwatchPrisma?: Cached };

export function getPrisma(): PrismaClient {
  const url = process.env.DATABASE_URL;
  if (!url) {
    throw new Error("DATABASE_URL is not set: start Driftwatch through ensureDatabase() (npm start does) or set it to a Postgres URL.");
  }
  const cached = holder.__driftwatchPrisma;
  if (cached?.url === url) return cached.client;
  if (cached) {
    // The database moved (tests, restarts in one process): never keep talking to the old one.
    void cached.client.$disconnect().catch(() => {});
  }
  const client = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
  holder.__driftwatchPrisma = { client, url };
  return client;
}

export async function disconnectPrisma(): Promise<void> {
  const cached = holder.__driftwatchPrisma;
  if (!cached) return;
  holder.__driftwatchPrisma = undefined;
  await cached.client.$disconnect();
}

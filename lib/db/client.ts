// The one PrismaClient of a process, created on first use for databaseUrl()
// (DATABASE_URL, or the embedded Postgres ensureDatabase started) and kept on globalThis
// so hot reloads in development do not open a new pool each time. No
// "server-only" import: the collector and scripts run outside Next.js.
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapterFactory, SqlQuery, Transaction } from "@prisma/driver-adapter-utils";
import { PrismaClient } from "./generated/client";
import { databaseUrl } from "./url";

interface Cached {
  client: PrismaClient;
  url: string;
}

const holder = globalThis as typeof globalThis & { __driftwatchPrisma?: Cached };

export function getPrisma(): PrismaClient {
  const url = databaseUrl();
  if (!url) {
    throw new Error("DATABASE_URL is not set: start Driftwatch through ensureDatabase() (npm start does) or set it to a Postgres URL.");
  }
  const cached = holder.__driftwatchPrisma;
  if (cached?.url === url) return cached.client;
  if (cached) {
    // The database moved (tests, restarts in one process): never keep talking to the old one.
    void cached.client.$disconnect().catch(() => {});
  }
  const client = new PrismaClient({ adapter: oneQueryAtATimeInTransactions(new PrismaPg({ connectionString: url })) });
  holder.__driftwatchPrisma = { client, url };
  return client;
}

export async function disconnectPrisma(): Promise<void> {
  const cached = holder.__driftwatchPrisma;
  if (!cached) return;
  holder.__driftwatchPrisma = undefined;
  await cached.client.$disconnect();
}

/**
 * Prisma sends the queries that load the relations of one `include` (owner,
 * createdBy, items…) all at once. Outside a transaction each takes a pool
 * connection of its own; inside an interactive transaction they share the
 * transaction's one connection, where pg queues them and warns ("Calling
 * client.query() when the client is already executing a query", an error from
 * pg 9 on). A transaction's queries are therefore sent one after another.
 */
export function oneQueryAtATimeInTransactions(factory: SqlDriverAdapterFactory): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => {
      const adapter = await factory.connect();
      return Object.assign(Object.create(adapter) as typeof adapter, {
        startTransaction: async (isolationLevel?: Parameters<typeof adapter.startTransaction>[0]) => inTurn(await adapter.startTransaction(isolationLevel)),
      });
    },
  };
}

function inTurn(tx: Transaction): Transaction {
  let last: Promise<unknown> = Promise.resolve();
  const queue = <T>(send: () => Promise<T>): Promise<T> => {
    const next = last.then(send, send);
    last = next.catch(() => undefined);
    return next;
  };
  return Object.assign(Object.create(tx) as Transaction, {
    queryRaw: (q: SqlQuery) => queue(() => tx.queryRaw(q)),
    executeRaw: (q: SqlQuery) => queue(() => tx.executeRaw(q)),
  });
}

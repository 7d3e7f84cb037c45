// Writes of a collection run. Only what changed is written: blobs are
// content-addressed (an unchanged object costs nothing), current rows are
// upserted only for keys whose blob changed, and each change appends one
// ObjectVersion row. Bulk statements keep a 50,000-object first run to a few
// round trips.
import type { Prisma } from "@/lib/db/generated/client";

export type Tx = Prisma.TransactionClient;

export interface CurrentRow {
  key: string;
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  blobHash: string;
  resourceVersion?: string | null;
  revisionSha?: string;
  sourcePath?: string;
  /** The application the object belongs to (null: written before applications). */
  applicationId?: string | null;
}

/** What a later run needs of a stored current row: whether and how its object changed, and whose it is. */
export type StoredRow = Pick<CurrentRow, "key" | "blobHash" | "resourceVersion" | "revisionSha" | "sourcePath" | "applicationId">;

/** A current row as kept between runs (names and kinds are in its key; the next run needs only this). */
export function storedRow(r: StoredRow): StoredRow {
  const out: StoredRow = { key: r.key, blobHash: r.blobHash, applicationId: r.applicationId ?? null };
  if (r.resourceVersion !== undefined) out.resourceVersion = r.resourceVersion;
  if (r.revisionSha !== undefined) out.revisionSha = r.revisionSha;
  if (r.sourcePath !== undefined) out.sourcePath = r.sourcePath;
  return out;
}

export interface Blob {
  hash: string;
  /** The body, or how to make it when its statement is sent (a first run would otherwise hold every body at once). */
  text: string | (() => string);
}

// 1,000 rows a statement: Prisma's client and its pg adapter each keep their
// last 100 debug calls with the statement's parameters (even with debug off),
// and every statement's parameters are copied several times on their way to
// Postgres (JSON, the wire). Small statements keep both to a few MiB; a
// 50,000-object first run then pins no blob text past its transaction.
const CHUNK = 1_000;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

// A statement's blob bodies are also bounded in characters: its parameters
// become one array literal (and a wire message) per statement, and a literal
// of a thousand bodies (1–2 MB) is a large object V8 keeps until its next full
// collection, so a first run's hundred such statements piled up in the heap
// (50,000 objects: peak RSS 778–821 MiB; 647–660 MiB with literals kept below
// V8's large-object size, 128 KiB, where they die young).
const BLOB_CHUNK_CHARS = 64 * 1024;

/** Inserts blobs not yet stored; returns how many were new. */
export async function writeBlobs(tx: Tx, blobs: Blob[]): Promise<number> {
  let written = 0;
  const unique = new Map(blobs.map((b) => [b.hash, b]));
  let hashes: string[] = [];
  let texts: string[] = [];
  let chars = 0;
  const flush = async () => {
    if (hashes.length === 0) return;
    written += await tx.$executeRaw`
      INSERT INTO "ObjectBlob" (hash, body, size)
      SELECT h, b::jsonb, octet_length(b) FROM unnest(${hashes}::text[], ${texts}::text[]) AS t(h, b)
      ON CONFLICT (hash) DO NOTHING`;
    hashes = [];
    texts = [];
    chars = 0;
  };
  for (const b of unique.values()) {
    const text = typeof b.text === "string" ? b.text : b.text();
    if (hashes.length > 0 && (chars + text.length > BLOB_CHUNK_CHARS || hashes.length >= CHUNK)) await flush();
    hashes.push(b.hash);
    texts.push(text);
    chars += text.length;
  }
  await flush();
  return written;
}

export async function upsertLiveRows(tx: Tx, environmentId: string, rows: CurrentRow[], now: Date): Promise<void> {
  for (const part of chunks(rows)) {
    await tx.$executeRaw`
      INSERT INTO "LiveObject" ("environmentId", key, "apiVersion", kind, namespace, name, "blobHash", "resourceVersion", "applicationId", "updatedAt")
      SELECT ${environmentId}::uuid, k, av, ki, ns, n, h, rv, app::uuid, ${now}
      FROM unnest(${part.map((r) => r.key)}::text[], ${part.map((r) => r.apiVersion)}::text[], ${part.map((r) => r.kind)}::text[],
                  ${part.map((r) => r.namespace)}::text[], ${part.map((r) => r.name)}::text[], ${part.map((r) => r.blobHash)}::text[],
                  ${part.map((r) => r.resourceVersion ?? null)}::text[], ${part.map((r) => r.applicationId ?? null)}::text[]) AS t(k, av, ki, ns, n, h, rv, app)
      ON CONFLICT ("environmentId", key) DO UPDATE SET "apiVersion" = EXCLUDED."apiVersion", "blobHash" = EXCLUDED."blobHash",
        "resourceVersion" = EXCLUDED."resourceVersion", "applicationId" = EXCLUDED."applicationId", "updatedAt" = EXCLUDED."updatedAt"`;
  }
}

/** Resource versions move on every status write; recording them keeps the next run's "unchanged" check exact. */
export async function touchResourceVersions(tx: Tx, environmentId: string, rows: Array<{ key: string; resourceVersion: string | null }>): Promise<void> {
  for (const part of chunks(rows)) {
    await tx.$executeRaw`
      UPDATE "LiveObject" l SET "resourceVersion" = t.rv
      FROM unnest(${part.map((r) => r.key)}::text[], ${part.map((r) => r.resourceVersion)}::text[]) AS t(k, rv)
      WHERE l."environmentId" = ${environmentId}::uuid AND l.key = t.k`;
  }
}

export async function upsertDesiredRows(tx: Tx, environmentId: string, rows: CurrentRow[], now: Date): Promise<void> {
  for (const part of chunks(rows)) {
    await tx.$executeRaw`
      INSERT INTO "DesiredObject" ("environmentId", key, "apiVersion", kind, namespace, name, "blobHash", "revisionSha", "sourcePath", "applicationId", "updatedAt")
      SELECT ${environmentId}::uuid, k, av, ki, ns, n, h, sha, sp, app::uuid, ${now}
      FROM unnest(${part.map((r) => r.key)}::text[], ${part.map((r) => r.apiVersion)}::text[], ${part.map((r) => r.kind)}::text[],
                  ${part.map((r) => r.namespace)}::text[], ${part.map((r) => r.name)}::text[], ${part.map((r) => r.blobHash)}::text[],
                  ${part.map((r) => r.revisionSha ?? "")}::text[], ${part.map((r) => r.sourcePath ?? "")}::text[], ${part.map((r) => r.applicationId ?? null)}::text[])
        AS t(k, av, ki, ns, n, h, sha, sp, app)
      ON CONFLICT ("environmentId", key) DO UPDATE SET "apiVersion" = EXCLUDED."apiVersion", "blobHash" = EXCLUDED."blobHash",
        "revisionSha" = EXCLUDED."revisionSha", "sourcePath" = EXCLUDED."sourcePath", "applicationId" = EXCLUDED."applicationId", "updatedAt" = EXCLUDED."updatedAt"`;
  }
}

/** Desired rows whose revision moved but whose content did not: only the revision pointer changes. */
export async function moveDesiredRevision(tx: Tx, environmentId: string, keys: string[], sha: string): Promise<void> {
  for (const part of chunks(keys)) {
    await tx.$executeRaw`
      UPDATE "DesiredObject" SET "revisionSha" = ${sha}
      WHERE "environmentId" = ${environmentId}::uuid AND key = ANY(${part}::text[]) AND "revisionSha" <> ${sha}`;
  }
}

/** Desired rows whose file was renamed but whose content did not change: only the file they come from is rewritten. */
export async function moveDesiredSourcePaths(tx: Tx, environmentId: string, rows: Array<{ key: string; sourcePath: string }>): Promise<void> {
  for (const part of chunks(rows)) {
    await tx.$executeRaw`
      UPDATE "DesiredObject" o SET "sourcePath" = t.sp
      FROM unnest(${part.map((r) => r.key)}::text[], ${part.map((r) => r.sourcePath)}::text[]) AS t(k, sp)
      WHERE o."environmentId" = ${environmentId}::uuid AND o.key = t.k`;
  }
}

/** Rows whose object changed hands between applications, content unchanged: only the owner is rewritten. */
export async function reassignRows(tx: Tx, table: "LiveObject" | "DesiredObject", environmentId: string, rows: Array<{ key: string; applicationId: string }>): Promise<void> {
  for (const part of chunks(rows)) {
    const keys = part.map((r) => r.key);
    const apps = part.map((r) => r.applicationId);
    if (table === "LiveObject") {
      await tx.$executeRaw`UPDATE "LiveObject" o SET "applicationId" = t.app::uuid FROM unnest(${keys}::text[], ${apps}::text[]) AS t(k, app) WHERE o."environmentId" = ${environmentId}::uuid AND o.key = t.k`;
    } else {
      await tx.$executeRaw`UPDATE "DesiredObject" o SET "applicationId" = t.app::uuid FROM unnest(${keys}::text[], ${apps}::text[]) AS t(k, app) WHERE o."environmentId" = ${environmentId}::uuid AND o.key = t.k`;
    }
  }
}

export async function deleteRows(tx: Tx, table: "LiveObject" | "DesiredObject", environmentId: string, keys: string[]): Promise<void> {
  for (const part of chunks(keys)) {
    if (table === "LiveObject") {
      await tx.$executeRaw`DELETE FROM "LiveObject" WHERE "environmentId" = ${environmentId}::uuid AND key = ANY(${part}::text[])`;
    } else {
      await tx.$executeRaw`DELETE FROM "DesiredObject" WHERE "environmentId" = ${environmentId}::uuid AND key = ANY(${part}::text[])`;
    }
  }
}

export async function appendVersions(
  tx: Tx,
  environmentId: string,
  runId: number,
  side: "desired" | "live",
  changes: Array<{ key: string; blobHash: string | null }>,
  now: Date,
): Promise<void> {
  for (const part of chunks(changes)) {
    await tx.$executeRaw`
      INSERT INTO "ObjectVersion" ("environmentId", side, key, "blobHash", "runId", "observedAt")
      SELECT ${environmentId}::uuid, ${side}, k, h, ${runId}, ${now}
      FROM unnest(${part.map((c) => c.key)}::text[], ${part.map((c) => c.blobHash)}::text[]) AS t(k, h)`;
  }
}

export async function readCurrent(tx: Tx, table: "LiveObject" | "DesiredObject", environmentId: string): Promise<Map<string, StoredRow>> {
  const rows =
    table === "LiveObject"
      ? await tx.$queryRaw<StoredRow[]>`SELECT key, "blobHash", "resourceVersion", "applicationId" FROM "LiveObject" WHERE "environmentId" = ${environmentId}::uuid`
      : await tx.$queryRaw<StoredRow[]>`SELECT key, "blobHash", "revisionSha", "sourcePath", "applicationId" FROM "DesiredObject" WHERE "environmentId" = ${environmentId}::uuid`;
  return new Map(rows.map((r) => [r.key, r]));
}

export async function readBlobs(tx: Tx, hashes: string[]): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const part of chunks([...new Set(hashes)])) {
    const rows = await tx.$queryRaw<Array<{ hash: string; body: Record<string, unknown> }>>`SELECT hash, body FROM "ObjectBlob" WHERE hash = ANY(${part}::text[])`;
    for (const r of rows) out.set(r.hash, r.body);
  }
  return out;
}

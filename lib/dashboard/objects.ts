// One object of one environment: desired vs live side by side, its drift
// now and before, and the Git file it came from.
import type { PrismaClient } from "@/lib/db/generated/client";
import { notFound } from "@/lib/api/errors";
import { normalizeObject, type KubeObject } from "@/lib/drift";
import type { ObjectDetailDto } from "@/lib/api/contract";
import { findEnvironment } from "./environments";
import { claimRef, changeDtos, driftItemDto, type DriftRow } from "./mappers";
import { partsOfKey } from "./object-key";
import { revisionDto } from "./revisions";
import { repositoryIdsByName, storedSources } from "./application-sources";
import { objectDiff } from "./yaml-diff";

function isKubeObject(v: unknown): v is KubeObject {
  const o = v as Partial<KubeObject> | null;
  return Boolean(o && typeof o === "object" && typeof o.apiVersion === "string" && typeof o.kind === "string" && o.metadata && typeof o.metadata.name === "string");
}

/** The drift engine's own normal form (quantities spelled one way, empties and server defaults dropped); raw body when it is not an object. */
function normalised(body: unknown, dropDefaults: boolean): unknown {
  if (!isKubeObject(body)) return body;
  try {
    return normalizeObject(body, { dropDefaults });
  } catch {
    return body;
  }
}

/** A browsable link only for https remotes; a local path or an ssh remote shows as text. */
function browsableUrl(url: string | null | undefined): string | null {
  if (!url || !/^https:\/\//i.test(url)) return null;
  return url.replace(/\.git$/, "");
}

/**
 * The commit an object was rendered from, and the repository holding it: the
 * environment's own, or, in an environment whose applications follow sources
 * of their own, one of the object's application's sources.
 */
async function renderedFrom(db: PrismaClient, environmentRepositoryId: string | null, applicationId: string | null, sha: string) {
  let repositoryIds: string[] = environmentRepositoryId ? [environmentRepositoryId] : [];
  if (!environmentRepositoryId && applicationId) {
    const [app, ids] = await Promise.all([db.application.findUnique({ where: { id: applicationId }, select: { sources: true } }), repositoryIdsByName(db)]);
    repositoryIds = storedSources(app?.sources, ids).map((s) => s.repositoryId);
  }
  if (repositoryIds.length === 0) return null;
  const revision = await db.revision.findFirst({ where: { repositoryId: { in: repositoryIds }, sha }, include: { repository: { select: { url: true } } } });
  if (revision) return { revision, url: revision.repository.url };
  const repository = await db.repository.findUnique({ where: { id: repositoryIds[0]! }, select: { url: true } });
  return { revision: null, url: repository?.url ?? null };
}

export async function getObjectDetail(db: PrismaClient, environment: string, key: string, now = new Date()): Promise<ObjectDetailDto> {
  const parts = partsOfKey(key);
  if (!parts) throw notFound(`object "${key}"`);
  const env = await findEnvironment(db, environment);
  const where = { environmentId_key: { environmentId: env.id, key } };
  const [desired, live, items] = await Promise.all([
    db.desiredObject.findUnique({ where }),
    db.liveObject.findUnique({ where }),
    db.driftItem.findMany({ where: { environmentId: env.id, key }, orderBy: { openedAt: "desc" }, take: 100 }),
  ]);
  if (!desired && !live && items.length === 0) throw notFound(`object ${key} in environment "${environment}"`);

  const hashes = [desired?.blobHash, live?.blobHash].filter((h): h is string => Boolean(h));
  const [blobs, rendered, claims] = await Promise.all([
    hashes.length ? db.objectBlob.findMany({ where: { hash: { in: hashes } }, select: { hash: true, body: true } }) : [],
    desired ? renderedFrom(db, env.repositoryId, desired.applicationId, desired.revisionSha) : null,
    items.length
      ? db.claimItem.findMany({
          where: { driftItemId: { in: items.map((i) => i.id) } },
          orderBy: { claim: { createdAt: "desc" } },
          select: { driftItemId: true, claim: { select: { id: true, status: true, reason: true, incidentUrl: true, expiresAt: true, returnPath: true, owner: { select: { id: true, username: true, displayName: true } } } } },
        })
      : [],
  ]);
  const body = new Map(blobs.map((b) => [b.hash, b.body]));
  const activeClaim = new Map(claims.filter((c) => c.claim.status === "active").map((c) => [c.driftItemId, claimRef(c.claim, now)]));
  const history = items.map((i) => driftItemDto(env.name, i as DriftRow, activeClaim.get(i.id) ?? null));
  const open = history.find((h) => h.resolvedAt === null) ?? null;
  const secret = parts.kind === "Secret" && parts.group === "";
  const changes = open ? open.changes : [];
  const desiredBody = desired ? normalised(body.get(desired.blobHash) ?? null, false) : null;
  // Server defaults are dropped only when there is no Git side to prune against (Extra objects); otherwise pruning to Git's fields does it without losing what Git sets.
  const liveBody = live ? normalised(body.get(live.blobHash) ?? null, !desired) : null;
  const diff = objectDiff(desiredBody, liveBody, changes, desired ? body.get(desired.blobHash) : undefined);
  return {
    environment: env.name,
    key,
    ...parts,
    apiVersion: desired?.apiVersion ?? live?.apiVersion ?? items[0]?.apiVersion ?? "",
    desired:
      desired && diff.desiredYaml !== null
        ? {
            yaml: diff.desiredYaml,
            revision: revisionDto(desired.revisionSha, rendered?.revision ? { ...rendered.revision, committedAt: rendered.revision.committedAt.toISOString() } : null),
            sourcePath: desired.sourcePath,
            updatedAt: desired.updatedAt.toISOString(),
            repositoryUrl: browsableUrl(rendered?.url),
          }
        : null,
    live: live && diff.liveYaml !== null ? { yaml: diff.liveYaml, resourceVersion: live.resourceVersion, updatedAt: live.updatedAt.toISOString() } : null,
    rows: diff.rows,
    changes: open ? changes : changeDtos([], secret),
    drift: open,
    history,
    secret,
    now: now.toISOString(),
  };
}

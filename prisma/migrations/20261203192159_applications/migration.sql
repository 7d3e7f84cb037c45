-- AlterTable
ALTER TABLE "Environment" ADD COLUMN     "applicationsDrifted" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "applicationsFailing" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "applicationsInSync" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "applicationsPaused" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "applicationsStale" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "applicationsTotal" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "DesiredObject" ADD COLUMN     "applicationId" UUID;

-- AlterTable
ALTER TABLE "LiveObject" ADD COLUMN     "applicationId" UUID;

-- AlterTable
ALTER TABLE "DriftItem" ADD COLUMN     "applicationId" UUID;

-- AlterTable
ALTER TABLE "AppliedRevision" ADD COLUMN     "applicationId" UUID;

-- AlterTable
ALTER TABLE "Pause" ADD COLUMN     "applicationId" UUID;

-- CreateTable
CREATE TABLE "Application" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "environmentId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "promotionKey" TEXT NOT NULL,
    "controllerRef" JSONB,
    "sources" JSONB NOT NULL DEFAULT '[]',
    "spec" JSONB NOT NULL,
    "approvedSha" TEXT,
    "approvedAt" TIMESTAMPTZ(3),
    "appliedSha" TEXT,
    "appliedSource" TEXT,
    "appliedSince" TIMESTAMPTZ(3),
    "controller" JSONB,
    "rollout" JSONB,
    "objectCount" INTEGER NOT NULL DEFAULT 0,
    "driftCount" INTEGER NOT NULL DEFAULT 0,
    "lastError" JSONB,
    "firstSeenAt" TIMESTAMPTZ(3) NOT NULL,
    "lastSeenAt" TIMESTAMPTZ(3),
    "removedAt" TIMESTAMPTZ(3),
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Application_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Application_environmentId_removedAt_idx" ON "Application"("environmentId", "removedAt");

-- CreateIndex
CREATE UNIQUE INDEX "Application_environmentId_name_key" ON "Application"("environmentId", "name");

-- CreateIndex
CREATE INDEX "DriftItem_applicationId_resolvedAt_idx" ON "DriftItem"("applicationId", "resolvedAt");

-- CreateIndex
CREATE INDEX "AppliedRevision_applicationId_firstSeenAt_idx" ON "AppliedRevision"("applicationId", "firstSeenAt");

-- AddForeignKey
ALTER TABLE "Application" ADD CONSTRAINT "Application_environmentId_fkey" FOREIGN KEY ("environmentId") REFERENCES "Environment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DesiredObject" ADD CONSTRAINT "DesiredObject_applicationId_fkey" FOREIGN KEY ("applicationId") REFERENCES "Application"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LiveObject" ADD CONSTRAINT "LiveObject_applicationId_fkey" FOREIGN KEY ("applicationId") REFERENCES "Application"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DriftItem" ADD CONSTRAINT "DriftItem_applicationId_fkey" FOREIGN KEY ("applicationId") REFERENCES "Application"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AppliedRevision" ADD CONSTRAINT "AppliedRevision_applicationId_fkey" FOREIGN KEY ("applicationId") REFERENCES "Application"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Pause" ADD CONSTRAINT "Pause_applicationId_fkey" FOREIGN KEY ("applicationId") REFERENCES "Application"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- ── Written by hand: every environment of the previous release becomes one
-- declared application named "default" (promotion key "default", so the old
-- single-source environments still line up as one promotion chain), carrying
-- the environment's observed state; the rows that belonged to the environment
-- now belong to that application. Nothing is deleted or rewritten otherwise.
INSERT INTO "Application" (
    "environmentId", "name", "kind", "promotionKey", "controllerRef", "sources", "spec",
    "approvedSha", "approvedAt", "appliedSha", "appliedSource", "appliedSince",
    "controller", "rollout", "objectCount", "driftCount", "lastError",
    "firstSeenAt", "lastSeenAt", "removedAt", "updatedAt")
SELECT
    e."id",
    'default',
    CASE e."spec"->'controller'->>'type' WHEN 'flux' THEN 'flux-kustomization' WHEN 'argocd' THEN 'argocd-application' ELSE 'declared' END,
    'default',
    CASE WHEN e."spec"->'controller' IS NULL OR jsonb_typeof(e."spec"->'controller') <> 'object' THEN NULL ELSE jsonb_build_object(
        'type', e."spec"->'controller'->>'type',
        'kind', CASE e."spec"->'controller'->>'type' WHEN 'flux' THEN 'Kustomization' ELSE 'Application' END,
        'namespace', e."spec"->'controller'->>'namespace',
        'name', e."spec"->'controller'->>'name') END,
    jsonb_build_array(jsonb_strip_nulls(jsonb_build_object(
        'url', COALESCE(r."url", ''),
        'repository', e."spec"->'source'->>'repository',
        'ref', jsonb_build_object('branch', e."branch"),
        'path', e."path",
        'render', COALESCE(e."spec"->'source'->>'render', 'plain')))),
    jsonb_strip_nulls(jsonb_build_object(
        'name', 'default',
        'kind', CASE e."spec"->'controller'->>'type' WHEN 'flux' THEN 'flux-kustomization' WHEN 'argocd' THEN 'argocd-application' ELSE 'declared' END,
        'promotionKey', 'default',
        'source', e."spec"->'source',
        'controller', e."spec"->'controller')),
    e."approvedSha", e."approvedAt", e."appliedSha", e."appliedSource", e."appliedSince",
    e."controller", e."rollout", e."objectCount",
    (SELECT count(*)::int FROM "DriftItem" d WHERE d."environmentId" = e."id" AND d."resolvedAt" IS NULL),
    e."lastError",
    e."createdAt", e."lastGoodCollectedAt", e."removedAt", e."updatedAt"
FROM "Environment" e
LEFT JOIN "Repository" r ON r."id" = e."repositoryId";

UPDATE "DesiredObject" o SET "applicationId" = a."id" FROM "Application" a WHERE a."environmentId" = o."environmentId" AND a."name" = 'default';
UPDATE "LiveObject" o SET "applicationId" = a."id" FROM "Application" a WHERE a."environmentId" = o."environmentId" AND a."name" = 'default';
UPDATE "DriftItem" o SET "applicationId" = a."id" FROM "Application" a WHERE a."environmentId" = o."environmentId" AND a."name" = 'default';
UPDATE "AppliedRevision" o SET "applicationId" = a."id" FROM "Application" a WHERE a."environmentId" = o."environmentId" AND a."name" = 'default';
-- A pause of the environment's controller object targeted its one application; a pause of the whole environment still does.
UPDATE "Pause" o SET "applicationId" = a."id" FROM "Application" a WHERE a."environmentId" = o."environmentId" AND a."name" = 'default' AND o."controllerRef" IS NOT NULL;

-- The rollups, as the previous release's state says: one application each.
UPDATE "Environment" e SET
    "applicationsTotal" = CASE WHEN e."removedAt" IS NULL THEN 1 ELSE 0 END,
    "applicationsDrifted" = CASE WHEN e."removedAt" IS NULL AND a."driftCount" > 0 THEN 1 ELSE 0 END,
    "applicationsStale" = CASE WHEN e."removedAt" IS NULL AND e."approvedSha" IS NOT NULL AND e."appliedSha" IS NOT NULL AND e."approvedSha" <> e."appliedSha" THEN 1 ELSE 0 END,
    "applicationsPaused" = CASE WHEN e."removedAt" IS NULL AND EXISTS (SELECT 1 FROM "Pause" p WHERE p."environmentId" = e."id" AND p."endedAt" IS NULL) THEN 1 ELSE 0 END,
    "applicationsFailing" = CASE WHEN e."removedAt" IS NULL AND e."lastError" IS NOT NULL THEN 1 ELSE 0 END,
    "applicationsInSync" = CASE WHEN e."removedAt" IS NULL AND e."lastGoodCollectedAt" IS NOT NULL AND a."driftCount" = 0 AND e."lastError" IS NULL
        AND e."approvedSha" IS NOT DISTINCT FROM e."appliedSha" THEN 1 ELSE 0 END
FROM "Application" a WHERE a."environmentId" = e."id" AND a."name" = 'default';

-- Change notifications for the new table, like every other collected table (20261202173000_change_feed).
CREATE TRIGGER "Application_notify_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "Application" FOR EACH STATEMENT EXECUTE FUNCTION "driftwatch_notify_change"();

-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('viewer', 'operator', 'admin');

-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('queued', 'running', 'succeeded', 'partial', 'failed');

-- CreateEnum
CREATE TYPE "DriftType" AS ENUM ('Modified', 'Missing', 'Extra');

-- CreateEnum
CREATE TYPE "DriftResolution" AS ENUM ('reverted', 'adopted', 'deleted', 'ignored');

-- CreateEnum
CREATE TYPE "PauseOrigin" AS ENUM ('dashboard', 'detected');

-- CreateEnum
CREATE TYPE "ReturnPath" AS ENUM ('revert', 'adopt');

-- CreateEnum
CREATE TYPE "ClaimStatus" AS ENUM ('active', 'released', 'resolved', 'transferred');

-- CreateTable
CREATE TABLE "Repository" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastFetchAt" TIMESTAMPTZ(3),
    "lastError" TEXT,

    CONSTRAINT "Repository_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Revision" (
    "repositoryId" UUID NOT NULL,
    "sha" TEXT NOT NULL,
    "parents" TEXT[],
    "authorName" TEXT NOT NULL,
    "authorEmail" TEXT NOT NULL,
    "authoredAt" TIMESTAMPTZ(3) NOT NULL,
    "committerName" TEXT NOT NULL,
    "committerEmail" TEXT NOT NULL,
    "committedAt" TIMESTAMPTZ(3) NOT NULL,
    "message" TEXT NOT NULL,
    "changedPaths" TEXT[],
    "ingestedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Revision_pkey" PRIMARY KEY ("repositoryId","sha")
);

-- CreateTable
CREATE TABLE "BranchHead" (
    "repositoryId" UUID NOT NULL,
    "branch" TEXT NOT NULL,
    "sha" TEXT NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BranchHead_pkey" PRIMARY KEY ("repositoryId","branch")
);

-- CreateTable
CREATE TABLE "Environment" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "repositoryId" UUID,
    "branch" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "approvedSha" TEXT,
    "approvedAt" TIMESTAMPTZ(3),
    "appliedSha" TEXT,
    "appliedSource" TEXT,
    "appliedSince" TIMESTAMPTZ(3),
    "controller" JSONB,
    "rollout" JSONB,
    "objectCount" INTEGER NOT NULL DEFAULT 0,
    "lastRunId" INTEGER,
    "lastGoodRunId" INTEGER,
    "lastCollectedAt" TIMESTAMPTZ(3),
    "lastGoodCollectedAt" TIMESTAMPTZ(3),
    "lastError" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "removedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Environment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CollectionRun" (
    "id" SERIAL NOT NULL,
    "environmentId" UUID NOT NULL,
    "status" "RunStatus" NOT NULL DEFAULT 'queued',
    "trigger" TEXT NOT NULL,
    "requestedBy" TEXT,
    "queuedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "notBefore" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMPTZ(3),
    "finishedAt" TIMESTAMPTZ(3),
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "progress" JSONB,
    "approvedSha" TEXT,
    "appliedSha" TEXT,
    "stats" JSONB,
    "errors" JSONB NOT NULL DEFAULT '[]',

    CONSTRAINT "CollectionRun_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ObjectBlob" (
    "hash" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "size" INTEGER NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ObjectBlob_pkey" PRIMARY KEY ("hash")
);

-- CreateTable
CREATE TABLE "DesiredObject" (
    "environmentId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "apiVersion" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "blobHash" TEXT NOT NULL,
    "revisionSha" TEXT NOT NULL,
    "sourcePath" TEXT NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DesiredObject_pkey" PRIMARY KEY ("environmentId","key")
);

-- CreateTable
CREATE TABLE "LiveObject" (
    "environmentId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "apiVersion" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "blobHash" TEXT NOT NULL,
    "resourceVersion" TEXT,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LiveObject_pkey" PRIMARY KEY ("environmentId","key")
);

-- CreateTable
CREATE TABLE "ObjectVersion" (
    "id" BIGSERIAL NOT NULL,
    "environmentId" UUID NOT NULL,
    "side" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "blobHash" TEXT,
    "runId" INTEGER NOT NULL,
    "observedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ObjectVersion_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DriftItem" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "environmentId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "apiVersion" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "type" "DriftType" NOT NULL,
    "changes" JSONB NOT NULL DEFAULT '[]',
    "ignored" JSONB NOT NULL DEFAULT '{}',
    "conflict" JSONB,
    "attributionManager" TEXT,
    "attributionClass" TEXT,
    "attributionTime" TIMESTAMPTZ(3),
    "openedAt" TIMESTAMPTZ(3) NOT NULL,
    "lastSeenAt" TIMESTAMPTZ(3) NOT NULL,
    "resolvedAt" TIMESTAMPTZ(3),
    "resolution" "DriftResolution",
    "resolutionSha" TEXT,
    "reopenCount" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "DriftItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AppliedRevision" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "environmentId" UUID NOT NULL,
    "sha" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "firstSeenAt" TIMESTAMPTZ(3) NOT NULL,
    "lastSeenAt" TIMESTAMPTZ(3) NOT NULL,
    "endedAt" TIMESTAMPTZ(3),

    CONSTRAINT "AppliedRevision_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Pause" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "environmentId" UUID NOT NULL,
    "controllerRef" TEXT,
    "origin" "PauseOrigin" NOT NULL,
    "createdById" UUID,
    "ownerId" UUID,
    "reason" TEXT,
    "incidentUrl" TEXT,
    "startedAt" TIMESTAMPTZ(3) NOT NULL,
    "expiresAt" TIMESTAMPTZ(3),
    "executed" BOOLEAN NOT NULL DEFAULT false,
    "previousPolicy" JSONB,
    "detectedManager" TEXT,
    "detectedAt" TIMESTAMPTZ(3),
    "endedAt" TIMESTAMPTZ(3),
    "endedById" UUID,
    "endReason" TEXT,

    CONSTRAINT "Pause_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DivergenceClaim" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "ownerId" UUID NOT NULL,
    "createdById" UUID NOT NULL,
    "reason" TEXT NOT NULL,
    "incidentUrl" TEXT,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "returnPath" "ReturnPath" NOT NULL,
    "status" "ClaimStatus" NOT NULL DEFAULT 'active',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMPTZ(3),
    "endReason" TEXT,
    "resolutionSha" TEXT,

    CONSTRAINT "DivergenceClaim_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ClaimItem" (
    "claimId" UUID NOT NULL,
    "driftItemId" UUID NOT NULL,

    CONSTRAINT "ClaimItem_pkey" PRIMARY KEY ("claimId","driftItemId")
);

-- CreateTable
CREATE TABLE "Alert" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "environmentId" UUID,
    "type" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',
    "openedAt" TIMESTAMPTZ(3) NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "resolvedAt" TIMESTAMPTZ(3),
    "notifiedHash" TEXT,
    "notifiedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Alert_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "User" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "username" TEXT NOT NULL,
    "displayName" TEXT,
    "email" TEXT,
    "role" "Role" NOT NULL DEFAULT 'viewer',
    "passwordHash" TEXT,
    "oidcIssuer" TEXT,
    "oidcSubject" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disabledAt" TIMESTAMPTZ(3),

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Session" (
    "tokenHash" TEXT NOT NULL,
    "userId" UUID NOT NULL,
    "csrfToken" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Session_pkey" PRIMARY KEY ("tokenHash")
);

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "actorName" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "targetType" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "environment" TEXT,
    "reason" TEXT,
    "before" JSONB,
    "after" JSONB,
    "prevHash" TEXT NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "deliveryId" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "receivedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("deliveryId")
);

-- CreateIndex
CREATE UNIQUE INDEX "Repository_name_key" ON "Repository"("name");

-- CreateIndex
CREATE INDEX "Revision_repositoryId_committedAt_idx" ON "Revision"("repositoryId", "committedAt");

-- CreateIndex
CREATE UNIQUE INDEX "Environment_name_key" ON "Environment"("name");

-- CreateIndex
CREATE INDEX "CollectionRun_environmentId_queuedAt_idx" ON "CollectionRun"("environmentId", "queuedAt");

-- CreateIndex
CREATE INDEX "CollectionRun_status_notBefore_idx" ON "CollectionRun"("status", "notBefore");

-- CreateIndex
CREATE INDEX "ObjectVersion_environmentId_key_observedAt_idx" ON "ObjectVersion"("environmentId", "key", "observedAt");

-- CreateIndex
CREATE INDEX "ObjectVersion_observedAt_idx" ON "ObjectVersion"("observedAt");

-- CreateIndex
CREATE INDEX "DriftItem_environmentId_resolvedAt_idx" ON "DriftItem"("environmentId", "resolvedAt");

-- CreateIndex
CREATE INDEX "DriftItem_environmentId_key_idx" ON "DriftItem"("environmentId", "key");

-- CreateIndex
CREATE INDEX "AppliedRevision_environmentId_firstSeenAt_idx" ON "AppliedRevision"("environmentId", "firstSeenAt");

-- CreateIndex
CREATE INDEX "AppliedRevision_sha_idx" ON "AppliedRevision"("sha");

-- CreateIndex
CREATE INDEX "Pause_environmentId_endedAt_idx" ON "Pause"("environmentId", "endedAt");

-- CreateIndex
CREATE INDEX "DivergenceClaim_status_expiresAt_idx" ON "DivergenceClaim"("status", "expiresAt");

-- CreateIndex
CREATE INDEX "ClaimItem_driftItemId_idx" ON "ClaimItem"("driftItemId");

-- CreateIndex
CREATE INDEX "Alert_resolvedAt_idx" ON "Alert"("resolvedAt");

-- CreateIndex
CREATE INDEX "Alert_fingerprint_idx" ON "Alert"("fingerprint");

-- CreateIndex
CREATE UNIQUE INDEX "User_username_key" ON "User"("username");

-- CreateIndex
CREATE UNIQUE INDEX "User_oidcIssuer_oidcSubject_key" ON "User"("oidcIssuer", "oidcSubject");

-- CreateIndex
CREATE INDEX "Session_userId_idx" ON "Session"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "AuditEvent_hash_key" ON "AuditEvent"("hash");

-- CreateIndex
CREATE INDEX "AuditEvent_at_idx" ON "AuditEvent"("at");

-- CreateIndex
CREATE INDEX "AuditEvent_environment_at_idx" ON "AuditEvent"("environment", "at");

-- CreateIndex
CREATE INDEX "AuditEvent_action_at_idx" ON "AuditEvent"("action", "at");

-- AddForeignKey
ALTER TABLE "Revision" ADD CONSTRAINT "Revision_repositoryId_fkey" FOREIGN KEY ("repositoryId") REFERENCES "Repository"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BranchHead" ADD CONSTRAINT "BranchHead_repositoryId_fkey" FOREIGN KEY ("repositoryId") REFERENCES "Repository"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Environment" ADD CONSTRAINT "Environment_repositoryId_fkey" FOREIGN KEY ("repositoryId") REFERENCES "Repository"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CollectionRun" ADD CONSTRAINT "CollectionRun_environmentId_fkey" FOREIGN KEY ("environmentId") REFERENCES "Environment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DesiredObject" ADD CONSTRAINT "DesiredObject_environmentId_fkey" FOREIGN KEY ("environmentId") REFERENCES "Environment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LiveObject" ADD CONSTRAINT "LiveObject_environmentId_fkey" FOREIGN KEY ("environmentId") REFERENCES "Environment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DriftItem" ADD CONSTRAINT "DriftItem_environmentId_fkey" FOREIGN KEY ("environmentId") REFERENCES "Environment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AppliedRevision" ADD CONSTRAINT "AppliedRevision_environmentId_fkey" FOREIGN KEY ("environmentId") REFERENCES "Environment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Pause" ADD CONSTRAINT "Pause_environmentId_fkey" FOREIGN KEY ("environmentId") REFERENCES "Environment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Pause" ADD CONSTRAINT "Pause_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Pause" ADD CONSTRAINT "Pause_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DivergenceClaim" ADD CONSTRAINT "DivergenceClaim_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DivergenceClaim" ADD CONSTRAINT "DivergenceClaim_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ClaimItem" ADD CONSTRAINT "ClaimItem_claimId_fkey" FOREIGN KEY ("claimId") REFERENCES "DivergenceClaim"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ClaimItem" ADD CONSTRAINT "ClaimItem_driftItemId_fkey" FOREIGN KEY ("driftItemId") REFERENCES "DriftItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Alert" ADD CONSTRAINT "Alert_environmentId_fkey" FOREIGN KEY ("environmentId") REFERENCES "Environment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Session" ADD CONSTRAINT "Session_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
